/**
 * Test your own RDMA code with iwarp4j: {@link io.iwarp4j.testkit.RdmaTest} injects connected
 * loopback pairs and devices into JUnit 5 tests and fails a test that leaves work requests,
 * completions or buffers behind; {@link io.iwarp4j.testkit.Completions} waits for and asserts on
 * completions; {@link io.iwarp4j.testkit.ScriptedPeer} is an MPA peer that misbehaves on cue;
 * {@link io.iwarp4j.testkit.FaultProxy} delays, stalls, closes or resets a connection. See
 * docs/testing.md.
 */
package io.iwarp4j.testkit;
