// A JVM target for hearth's JIT tests and benchmark: THREADS named threads (worker-0, worker-1,
// …) computing Hot.fib over and over, so the JIT compiles it and compiled frames fill their
// stacks. Prints "ready PID" once every worker runs; exits when its stdin closes (so it never
// outlives the test that started it).
// Usage: java -XX:+PreserveFramePointer -cp DIR Hot [THREADS]
public final class Hot {
  static volatile long sink;

  static int fib(int n) {
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
  }

  static void work() {
    for (;;) sink += fib(24);
  }

  public static void main(String[] args) throws Exception {
    final int threads = args.length > 0 ? Integer.parseInt(args[0]) : 2;
    final java.util.concurrent.CountDownLatch started =
        new java.util.concurrent.CountDownLatch(threads);
    for (int i = 0; i < threads; ++i) {
      Thread t = new Thread(() -> {
        started.countDown();
        work();
      }, "worker-" + i);
      t.setDaemon(true);
      t.start();
    }
    started.await();
    System.out.println("ready " + ProcessHandle.current().pid());
    System.out.flush();
    while (System.in.read() >= 0) {
    }
    System.exit(0);
  }
}
