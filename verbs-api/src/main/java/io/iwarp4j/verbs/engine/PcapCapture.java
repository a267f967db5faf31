package io.iwarp4j.verbs.engine;

import io.iwarp4j.verbs.DeviceConfig;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.pcap.PcapWriteHandler;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Puts a connection's TCP stream into a pcap file ({@link DeviceConfig#pcapDirectory()}). It sits
 * first in the pipeline, so it sees the octets as they go to and come from the socket. When the
 * channel becomes active (both addresses known) it opens the file and replaces itself with
 * Netty's {@link PcapWriteHandler}, which wraps the stream in synthetic Ethernet/IPv4/TCP headers
 * (a handshake, sequence and acknowledgement numbers for both directions, the FIN) that
 * Wireshark's TCP reassembly and its heuristic MPA dissector accept. The writer closes the file
 * when the channel closes. A file that cannot be opened is logged and the connection runs
 * uncaptured.
 * Behind the writer, a {@link PcapFlushCoalescer} turns each flush into one segment.
 */
public final class PcapCapture extends ChannelInboundHandlerAdapter {
  private static final Logger log = LoggerFactory.getLogger(PcapCapture.class);
  public static final String NAME = "pcap";

  private final Path directory;
  private final String device;

  public PcapCapture(Path directory, String device) {
    this.directory = directory;
    this.device = device;
  }

  /** The file of the connection between {@code local} and {@code remote}. */
  static Path file(Path directory, String device, InetSocketAddress local,
      InetSocketAddress remote) {
    return directory.resolve(device + "-" + local.getPort() + "-"
        + remote.getAddress().getHostAddress().replace(':', '_') + "-" + remote.getPort()
        + ".pcap");
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) throws Exception {
    InetSocketAddress local = (InetSocketAddress) ctx.channel().localAddress();
    InetSocketAddress remote = (InetSocketAddress) ctx.channel().remoteAddress();
    Path file = file(directory, device, local, remote);
    OutputStream out = null;
    try {
      Files.createDirectories(directory);
      out = new BufferedOutputStream(Files.newOutputStream(file));
      ctx.pipeline().addAfter(ctx.name(), "pcap-writer", PcapWriteHandler.builder()
          .forceTcpChannel(local, remote, ctx.channel().parent() != null)
          .build(out));
      ctx.pipeline().addAfter("pcap-writer", PcapFlushCoalescer.NAME, new PcapFlushCoalescer());
      log.info("pcap capture started: file={} local={} peer={}", file, local, remote);
    } catch (IOException | RuntimeException e) {
      log.warn("pcap capture not possible: file={} peer={} cause={}", file, remote, e.toString());
      if (out != null) {
        out.close();
      }
    }
    ctx.pipeline().remove(this);
    ctx.fireChannelActive();
  }
}
