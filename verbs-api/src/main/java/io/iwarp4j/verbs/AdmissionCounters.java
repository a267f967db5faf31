package io.iwarp4j.verbs;

/**
 * What a device's listeners did with connections that could not all be admitted to the MPA
 * startup (see {@link DeviceConfig#maxStartupConnectionsPerSource()} and
 * {@link DeviceConfig#maxConnections()}), counted since the device opened.
 *
 * @param refusedPerSource accepted connections closed at once because their source address
 *     already had {@code maxStartupConnectionsPerSource} connections in MPA startup
 * @param refusedDeviceFull accepted connections closed at once because the device had
 *     {@code maxConnections} open and none of them was in MPA startup
 * @param evicted connections in MPA startup (no MPA Request yet) closed, oldest first, to admit
 *     a new one while the device had {@code maxConnections} open
 */
public record AdmissionCounters(long refusedPerSource, long refusedDeviceFull, long evicted) {
}
