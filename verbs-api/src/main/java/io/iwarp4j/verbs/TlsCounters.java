package io.iwarp4j.verbs;

/**
 * What a device's TLS listeners ({@link ListenParams.Builder#tls(TlsSettings)}) refused, counted
 * since the device opened.
 *
 * @param plaintextRefused accepted connections whose first octet did not start a TLS handshake
 *     record (a client without TLS: its MPA Request in clear); each got a TLS alert and was
 *     closed
 * @param handshakesFailed accepted connections whose TLS handshake failed (an untrusted or
 *     missing client certificate, no common parameters, a timeout, a close) and were closed
 */
public record TlsCounters(long plaintextRefused, long handshakesFailed) {
}
