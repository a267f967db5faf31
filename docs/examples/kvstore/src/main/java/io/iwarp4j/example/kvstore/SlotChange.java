package io.iwarp4j.example.kvstore;

/**
 * What the server learns from one PUT's Immediate Data: which slot was rewritten, and the key
 * that slot holds.
 *
 * @param slot the slot index the client sent as Immediate Data
 * @param key the key stored in that slot
 */
public record SlotChange(int slot, String key) {
}
