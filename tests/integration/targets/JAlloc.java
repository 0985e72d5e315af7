// A JVM allocation target for `hearth alloc`'s JVM tests: THREADS named threads (alloc-0, …)
// each allocating, over and over, a Widget from JAlloc.makeWidget (48 bytes of fields) and a
// byte[1000] from JAlloc.makeBytes, both kept in a ring so that no escape analysis removes them.
// Neither method is inlined (run with -XX:CompileCommand=dontinline,JAlloc::make*) so that each
// is a frame of its own. Prints "ready PID" once the JIT has seen both methods called many times;
// exits when its stdin closes (so it never outlives the test that started it).
// Usage: java -XX:+ExtendedDTraceProbes -XX:+PreserveFramePointer -cp DIR JAlloc [THREADS]
public final class JAlloc {
  static final class Widget {
    long a, b, c, d, e;
    Object next;
  }

  static final int RING = 1024;

  static Widget makeWidget(long i) {
    Widget w = new Widget();
    w.a = i;
    return w;
  }

  static byte[] makeBytes(long i) {
    byte[] b = new byte[1000];
    b[0] = (byte) i;
    return b;
  }

  static void work(Object[] ring, java.util.concurrent.CountDownLatch warm) {
    for (long i = 0;; ++i) {
      ring[(int) (i & (RING - 1))] = makeWidget(i);
      ring[(int) ((i + 1) & (RING - 1))] = makeBytes(i);
      if (i == 200_000) warm.countDown();
    }
  }

  public static void main(String[] args) throws Exception {
    final int threads = args.length > 0 ? Integer.parseInt(args[0]) : 1;
    final java.util.concurrent.CountDownLatch warm =
        new java.util.concurrent.CountDownLatch(threads);
    for (int i = 0; i < threads; ++i) {
      final Object[] ring = new Object[RING];
      Thread t = new Thread(() -> work(ring, warm), "alloc-" + i);
      t.setDaemon(true);
      t.start();
    }
    warm.await();
    System.out.println("ready " + ProcessHandle.current().pid());
    System.out.flush();
    while (System.in.read() >= 0) {
    }
    System.exit(0);
  }
}
