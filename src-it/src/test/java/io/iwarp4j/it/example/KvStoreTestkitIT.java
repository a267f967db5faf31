package io.iwarp4j.it.example;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.iwarp4j.example.kvstore.KvClient;
import io.iwarp4j.example.kvstore.KvServer;
import io.iwarp4j.testkit.RdmaTest;
import io.iwarp4j.testkit.ScriptedPeer;
import io.iwarp4j.testkit.Terminate;
import io.iwarp4j.testkit.Ulpdus;
import io.iwarp4j.verbs.RemoteBuffer;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The key-value store example of docs/examples/kvstore tested with the testkit: a hostile client
 * (a {@link ScriptedPeer}) that reads the store with the STag the server advertised is
 * answered byte for byte, one that forges the STag gets the exact Terminate (RDMAP, Remote
 * Protection Error, invalid STag) and is cut off, and the store keeps serving its real clients.
 */
@Timeout(60)
@RdmaTest
class KvStoreTestkitIT {
  private static final int SINK_STAG = 0x99;

  @Test
  void aClientForgingTheStagIsCutOffAndTheStoreKeepsServing() throws Exception {
    try (KvServer server = KvServer.start(new InetSocketAddress("127.0.0.1", 0), 16, c -> { });
        KvClient client = KvClient.connect(server.address())) {
      client.put("color", "blue");
      try (ScriptedPeer peer = ScriptedPeer.connect(server.address()).readDepths(1, 1)) {
        peer.sendRequest(new byte[0]);
        RemoteBuffer store = RemoteBuffer.fromBytes(peer.readReply().privateData(), 0);
        // The shared counter, the store's first 8 octets, is 0: no client incremented it.
        peer.sendReadRequest(SINK_STAG, 0, 8, store.stag(), store.address());
        assertArrayEquals(Ulpdus.readResponse(SINK_STAG, 0, new byte[8]), peer.readUlpdu());
        peer.sendReadRequest(SINK_STAG, 0, 8, store.stag() ^ 0x100, store.address())
            .expectTerminate(Terminate.LAYER_RDMAP, 1, 0x00)
            .expectClosed();
      }
      assertEquals(Optional.of("blue"), client.get("color"));
    }
  }
}
