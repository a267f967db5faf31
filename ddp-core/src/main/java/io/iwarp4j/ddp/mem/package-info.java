/**
 * Registered memory for DDP's Tagged Buffer Model (RFC 5041 §8, RFC 5040 §8.1.1): protection
 * domains, memory regions and the STag table the receive path validates tagged segments against.
 *
 * <p>One {@link io.iwarp4j.ddp.mem.StagTable} per device hands out STags; each
 * {@link io.iwarp4j.ddp.mem.ProtectionDomain} owns the {@link io.iwarp4j.ddp.mem.MemoryRegion}s
 * registered through it. Event loops look STags up, {@linkplain
 * io.iwarp4j.ddp.mem.StagTable#check validate} segments and {@linkplain
 * io.iwarp4j.ddp.mem.MemoryRegion#place place} payload without locks or allocation; application
 * threads register and deregister. A region's pin guard makes placing into memory that has
 * been deregistered impossible.
 */
package io.iwarp4j.ddp.mem;
