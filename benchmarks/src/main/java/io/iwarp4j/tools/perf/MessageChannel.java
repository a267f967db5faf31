package io.iwarp4j.tools.perf;

import java.io.IOException;

/**
 * perftest's out-of-band channel in rdma_cm mode: Sends on a queue pair of its own. Each message
 * lands in the one receive the peer keeps posted.
 */
public interface MessageChannel {
  /**
   * Sends one message and waits until it left.
   *
   * @param message the octets, at most {@link PerftestExchange#DEST_SIZE}
   * @throws IOException when the channel failed
   */
  void send(byte[] message) throws IOException;

  /**
   * Waits for the next message and reposts the receive.
   *
   * @return the octets received
   * @throws IOException when the channel failed or the peer went away
   */
  byte[] receive() throws IOException;
}
