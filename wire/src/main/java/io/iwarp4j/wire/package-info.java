/**
 * Every iWARP header and protocol constant, once (Aeron's {@code io.aeron.protocol}, siw's
 * {@code iwarp.h}): the MPA startup frames and RFC 6581 enhanced data, FPDU framing and Markers
 * (RFC 5044), Terminate (RFC 5040 §4.8), the DDP
 * control field and tagged/untagged headers (RFC 5041), the RDMAP control field, opcodes and
 * request/response headers (RFC 5040, RFC 7306), and {@link io.iwarp4j.wire.OpcodeTable}.
 * Stateless codecs and flyweights over the caller's buffer: no allocation per message.
 */
package io.iwarp4j.wire;
