package dev.specwatch.cli;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POSIX signal handlers (SIGHUP to reload, SIGTERM/SIGINT to stop cleanly with exit 0) through
 * {@code sun.misc.Signal}, reached by reflection: it is supported (module jdk.unsupported) but
 * javac warns on direct use, and the build treats warnings as errors.
 */
final class Signals {
  private static final Logger logger = LoggerFactory.getLogger(Signals.class);

  private Signals() {}

  /** Runs {@code action} on a JVM signal thread when {@code name} (HUP, TERM, INT) arrives. */
  static boolean handle(String name, Runnable action) {
    try {
      Class<?> signalClass = Class.forName("sun.misc.Signal");
      Class<?> handlerClass = Class.forName("sun.misc.SignalHandler");
      Object signal = signalClass.getConstructor(String.class).newInstance(name);
      InvocationHandler invocation =
          (proxy, method, args) -> {
            if (method.getName().equals("handle")) {
              action.run();
            }
            return null;
          };
      Object handler =
          Proxy.newProxyInstance(
              Signals.class.getClassLoader(), new Class<?>[] {handlerClass}, invocation);
      signalClass.getMethod("handle", signalClass, handlerClass).invoke(null, signal, handler);
      return true;
    } catch (ReflectiveOperationException | RuntimeException e) {
      logger.warn(
          "cannot handle SIG{} on this JVM ({}); use POST /-/reload instead",
          name,
          e.getClass().getSimpleName());
      return false;
    }
  }
}
