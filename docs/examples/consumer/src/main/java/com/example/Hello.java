package com.example;

import io.iwarp4j.verbs.RdmaDevice;

/** Opens a device and says which transport it runs on. */
public final class Hello {
  private Hello() {
  }

  /**
   * Entry point.
   *
   * @param args unused
   */
  public static void main(String[] args) {
    try (RdmaDevice device = RdmaDevice.open()) {
      System.out.println("iwarp4j device " + device.name() + " on " + device.transport());
    }
  }
}
