package io.iwarp4j.examples.nvmeof.wire;

/** Opcodes and Fabrics command types used here (Linux {@code nvme_admin_opcode}, {@code nvme_opcode}, {@code nvmf_fabrics_opcode}). */
public final class Opcodes {
  // Admin
  public static final int ADMIN_GET_LOG_PAGE = 0x02;
  public static final int ADMIN_IDENTIFY = 0x06;
  public static final int ADMIN_SET_FEATURES = 0x09;
  public static final int ADMIN_GET_FEATURES = 0x0A;
  public static final int ADMIN_ASYNC_EVENT = 0x0C;
  public static final int ADMIN_KEEP_ALIVE = 0x18;
  // NVM I/O
  public static final int IO_FLUSH = 0x00;
  public static final int IO_WRITE = 0x01;
  public static final int IO_READ = 0x02;
  public static final int IO_WRITE_ZEROES = 0x08;
  // Fabrics: opcode 0x7F, type in octet 4
  public static final int FABRICS = 0x7F;
  public static final int FCTYPE_PROPERTY_SET = 0x00;
  public static final int FCTYPE_CONNECT = 0x01;
  public static final int FCTYPE_PROPERTY_GET = 0x04;
  public static final int FCTYPE_DISCONNECT = 0x08;
  // Identify CNS values
  public static final int CNS_NAMESPACE = 0x00;
  public static final int CNS_CONTROLLER = 0x01;
  public static final int CNS_ACTIVE_NAMESPACES = 0x02;
  public static final int CNS_NAMESPACE_DESCRIPTORS = 0x03;
  // Feature identifiers
  public static final int FEATURE_NUMBER_OF_QUEUES = 0x07;
  public static final int FEATURE_ASYNC_EVENT_CONFIG = 0x0B;
  public static final int FEATURE_KEEP_ALIVE_TIMER = 0x0F;

  private Opcodes() {
  }
}
