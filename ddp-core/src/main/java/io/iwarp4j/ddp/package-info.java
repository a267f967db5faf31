/**
 * DDP, Direct Data Placement (RFC 5041): segmentation, Data Sink validation and placement into
 * registered off-heap memory. The segment headers themselves are in {@code io.iwarp4j.wire}.
 */
package io.iwarp4j.ddp;
