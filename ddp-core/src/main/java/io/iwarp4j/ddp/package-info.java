/**
 * DDP, Direct Data Placement (RFC 5041): tagged and untagged segment headers, segmentation,
 * Data Sink validation and placement into registered off-heap memory.
 */
package io.iwarp4j.ddp;
