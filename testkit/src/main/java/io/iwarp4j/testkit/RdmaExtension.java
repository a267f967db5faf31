package io.iwarp4j.testkit;

import io.iwarp4j.verbs.RdmaDevice;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * The JUnit 5 extension behind {@link RdmaTest}: injects an {@link RdmaPair} and fresh {@link
 * RdmaDevice}s into test method parameters and into non-static fields of those types, closes
 * them after each test, and fails the test if
 *
 * <ul>
 *   <li>a work request posted on the pair's queue pairs did not complete (those still in flight
 *       get the test's timeout to finish),
 *   <li>a completion of the pair was never polled, or
 *   <li>Netty reported a leaked buffer (its detector runs at PARANOID from the first test
 *       on).
 * </ul>
 *
 * <p>A test method gets one pair, whether it asks for it in a parameter, a field or both. Each
 * {@code RdmaDevice} parameter or field is a device of its own, with the default configuration
 * and one event loop. These checks are skipped when the test has already failed; the
 * resources are closed either way. Use {@code @RdmaTest} rather than registering this class
 * directly, unless the defaults suit.
 */
public final class RdmaExtension
    implements BeforeAllCallback, BeforeEachCallback, AfterEachCallback, ParameterResolver {
  private static final ExtensionContext.Namespace NS =
      ExtensionContext.Namespace.create(RdmaExtension.class);

  /** Creates the extension; JUnit does, through {@link RdmaTest}. */
  public RdmaExtension() {}

  /** What one test method was given. */
  private static final class Given {
    final PairSettings settings;
    RdmaPair pair;
    final List<RdmaDevice> devices = new ArrayList<>();

    Given(PairSettings settings) {
      this.settings = settings;
    }

    RdmaPair pair() throws Exception {
      if (pair == null) {
        pair = RdmaPair.open(settings);
      }
      return pair;
    }

    RdmaDevice device() {
      RdmaDevice d = RdmaDevice.open(settings.deviceConfig());
      devices.add(d);
      return d;
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    LeakWatch.install();
  }

  @Override
  public void beforeEach(ExtensionContext context) throws Exception {
    LeakWatch.install();
    Given given = given(context);
    for (Object instance : context.getRequiredTestInstances().getAllInstances()) {
      for (Class<?> c = instance.getClass(); c != Object.class; c = c.getSuperclass()) {
        for (Field f : c.getDeclaredFields()) {
          if (Modifier.isStatic(f.getModifiers()) || Modifier.isFinal(f.getModifiers())) {
            continue;
          }
          Object value = f.getType() == RdmaPair.class ? given.pair()
              : f.getType() == RdmaDevice.class ? given.device() : null;
          if (value != null) {
            f.setAccessible(true);
            f.set(instance, value);
          }
        }
      }
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameterContext,
      ExtensionContext extensionContext) {
    Class<?> type = parameterContext.getParameter().getType();
    return type == RdmaPair.class || type == RdmaDevice.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameterContext,
      ExtensionContext extensionContext) {
    Given given = given(extensionContext);
    try {
      return parameterContext.getParameter().getType() == RdmaPair.class ? given.pair()
          : given.device();
    } catch (Exception e) {
      throw new ParameterResolutionException("could not connect an RdmaPair", e);
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    Given given = context.getStore(NS).remove(Given.class, Given.class);
    boolean failed = context.getExecutionException().isPresent();
    List<String> problems = new ArrayList<>();
    if (given != null) {
      if (given.pair != null && !failed) {
        problems.addAll(given.pair.problems());
      }
      if (given.pair != null) {
        given.pair.close();
      }
      for (RdmaDevice d : given.devices) {
        d.close();
      }
    }
    LeakWatch.collectGarbageAndPoll();
    problems.addAll(LeakWatch.takeReports());
    if (!problems.isEmpty() && !failed) {
      throw new AssertionError(context.getDisplayName() + " left:\n"
          + String.join("\n----\n", problems));
    }
  }

  private static Given given(ExtensionContext context) {
    return context.getStore(NS).getOrComputeIfAbsent(Given.class,
        k -> new Given(PairSettings.of(settingsOf(context))), Given.class);
  }

  /** The method's {@link RdmaTest}, else the nearest class's, else none (defaults). */
  private static RdmaTest settingsOf(ExtensionContext context) {
    Optional<Method> m = context.getTestMethod();
    if (m.isPresent() && m.get().isAnnotationPresent(RdmaTest.class)) {
      return m.get().getAnnotation(RdmaTest.class);
    }
    for (Optional<Class<?>> c = context.getTestClass(); c.isPresent();
        c = Optional.ofNullable(c.get().getEnclosingClass())) {
      RdmaTest t = c.get().getAnnotation(RdmaTest.class);
      if (t != null) {
        return t;
      }
    }
    return null;
  }
}
