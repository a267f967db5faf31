package io.iwarp4j.mpa;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.atomic.AtomicReference;

/** Handlers the startup tests put after the MPA handlers. */
final class HandshakeFixtures {
  private HandshakeFixtures() {
  }

  /** A ULP handler that keeps the connect request for the test to decide. */
  static final class UlpDecision extends ChannelInboundHandlerAdapter {
    final AtomicReference<MpaConnectRequest> request = new AtomicReference<>();

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
      if (evt instanceof MpaConnectRequest) {
        request.set((MpaConnectRequest) evt);
      } else {
        ctx.fireUserEventTriggered(evt);
      }
    }
  }
}
