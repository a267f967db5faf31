package io.iwarp4j.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import io.iwarp4j.verbs.RdmaDevice;
import io.iwarp4j.verbs.RecvWorkRequest;
import io.iwarp4j.verbs.SendFlags;
import io.iwarp4j.verbs.SendWorkRequest;
import io.iwarp4j.verbs.WorkRequestOpcode;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestExecutionResult.Status;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The extension fails a test that leaves a work request uncompleted, a completion unpolled or
 * a buffer leaked, and closes what it injected: each case runs a deliberately careless test
 * class (a static nested class, which surefire does not pick up itself) through the JUnit
 * launcher and reads its outcome.
 */
class ExtensionChecksTest {
  /** Devices the careless tests were given, to check that they were closed. */
  static final List<RdmaDevice> GIVEN = new ArrayList<>();
  static RdmaPair givenPair;

  /** Parameter set by {@link #failureOf}: the careless classes run only when it launches them. */
  private static final String LAUNCHED = "iwarp4j.testkit.careless";

  /** Disables the careless classes when a build runs them directly (say, -Dtest=**). */
  static final class OnlyWhenLaunchedHere implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
      return context.getConfigurationParameter(LAUNCHED).isPresent()
          ? ConditionEvaluationResult.enabled("launched by ExtensionChecksTest")
          : ConditionEvaluationResult.disabled("fails on purpose; ExtensionChecksTest runs it");
    }
  }

  @RdmaTest
  @ExtendWith(OnlyWhenLaunchedHere.class)
  static class LeavesAReceivePosted {
    @Test
    void test(RdmaPair pair) {
      pair.server().qp().postRecv(new RecvWorkRequest(1).wrId(1)
          .addSge(pair.server().region(), 0, 8));
    }
  }

  @RdmaTest
  @ExtendWith(OnlyWhenLaunchedHere.class)
  static class LeavesACompletionUnpolled {
    @Test
    void test(RdmaPair pair) {
      givenPair = pair;
      pair.client().qp().postSend(new SendWorkRequest(1).wrId(7)
          .opcode(WorkRequestOpcode.RDMA_WRITE).flags(SendFlags.SIGNALED)
          .remote(pair.client().remote().stag(), pair.client().remote().address()));
    }
  }

  @RdmaTest
  @ExtendWith(OnlyWhenLaunchedHere.class)
  static class LeaksABuffer {
    @Test
    void test(RdmaDevice device) {
      GIVEN.add(device);
      ByteBuf leaked = PooledByteBufAllocator.DEFAULT.directBuffer(16);
      leaked.writeInt(42);
    }
  }

  @RdmaTest
  @ExtendWith(OnlyWhenLaunchedHere.class)
  static class CleansUp {
    @Test
    void test(RdmaPair pair) {
      givenPair = pair;
      pair.server().qp().postRecv(new RecvWorkRequest(1).wrId(1)
          .addSge(pair.server().region(), 0, 8));
      pair.client().qp().postSend(new SendWorkRequest(1).wrId(2)
          .opcode(WorkRequestOpcode.SEND).flags(SendFlags.SIGNALED));
      pair.client().completions().next().isSuccess();
      pair.server().completions().next().isSuccess().hasByteLength(0);
    }
  }

  @Test
  void aReceiveLeftPostedFailsTheTest() {
    Throwable t = failureOf(LeavesAReceivePosted.class);
    assertTrue(t.getMessage().contains("server: 0 send and 1 receive work request(s) posted and"
        + " never completed"), t.getMessage());
  }

  @Test
  void aCompletionLeftUnpolledFailsTheTestAndThePairIsClosed() {
    Throwable t = failureOf(LeavesACompletionUnpolled.class);
    assertTrue(t.getMessage().contains("client: 1 completion(s) nobody polled"), t.getMessage());
    assertTrue(givenPair.client().device().isClosed());
    assertTrue(givenPair.server().device().isClosed());
  }

  @Test
  void aLeakedBufferFailsTheTestAndTheDeviceIsClosed() {
    GIVEN.clear();
    Throwable t = failureOf(LeaksABuffer.class);
    assertTrue(t.getMessage().contains("LEAK"), t.getMessage());
    assertEquals(1, GIVEN.size());
    assertTrue(GIVEN.get(0).isClosed());
  }

  @Test
  void aTestThatCleansUpPasses() {
    assertEquals(null, failureOf(CleansUp.class));
    assertTrue(givenPair.client().device().isClosed());
  }

  /** Runs {@code testClass} and returns why its one test failed, or null if it passed. */
  private static Throwable failureOf(Class<?> testClass) {
    List<TestExecutionResult> results = new ArrayList<>();
    Launcher launcher = LauncherFactory.create();
    launcher.execute(LauncherDiscoveryRequestBuilder.request().selectors(selectClass(testClass))
        .configurationParameter(LAUNCHED, "true").build(), new TestExecutionListener() {
          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (id.isTest()) {
              results.add(result);
            }
          }
        });
    assertEquals(1, results.size(), "one test ran");
    TestExecutionResult r = results.get(0);
    if (r.getStatus() == Status.SUCCESSFUL) {
      return null;
    }
    return r.getThrowable().orElseThrow();
  }
}
