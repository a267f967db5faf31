/**
 * MPA, Marker PDU Aligned framing for TCP (RFC 5044, updated by RFC 6581 enhanced connection
 * setup): the startup handshake in both roles, FPDU framing with CRC32c and optional Markers,
 * and the MPA error codes.
 */
package io.iwarp4j.mpa;
