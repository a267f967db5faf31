package io.iwarp4j.example.kvstore;

/** A key-value operation that could not be done; the message names the step and the reason. */
public final class KvStoreException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  KvStoreException(String message) {
    super(message);
  }

  KvStoreException(String message, Throwable cause) {
    super(message, cause);
  }
}
