// A program of known shape for the JFR reader's tests: for a while
// (argument 1, milliseconds; default 2000) one thread computes, one
// allocates, two take turns holding one monitor (each waits for the
// other: jdk.JavaMonitorEnter), one parks (jdk.ThreadPark) and one waits
// in a native method, a socket's accept (jdk.NativeMethodSample).
import java.io.IOException;
import java.net.ServerSocket;
import java.util.concurrent.locks.LockSupport;

public class JfrShape {
	static volatile long sink;
	static volatile boolean done;
	static final Object monitor = new Object();

	static long mix(long x) {
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005L + i;
		return x;
	}

	static void compute() {
		long x = 1;
		while (!done)
			x = mix(x);
		sink = x;
	}

	static Object[] keep = new Object[64];

	static void allocate() {
		int i = 0;
		while (!done) {
			keep[i++ & 63] = new byte[1 << (i & 15)];
			keep[i++ & 63] = new StringBuilder().append(i).toString();
		}
	}

	static void holdMonitor() {
		while (!done) {
			synchronized (monitor) {
				long until = System.nanoTime() + 30_000_000L;
				while (System.nanoTime() < until)
					sink += mix(sink);
			}
		}
	}

	static void park() {
		while (!done)
			LockSupport.parkNanos(30_000_000L);
	}

	static ServerSocket server;

	static void accept() {
		try {
			server.accept();
		} catch (IOException e) {
			// closed by main: the end
		}
	}

	static Thread start(String name, Runnable body) {
		Thread t = new Thread(body, name);
		t.start();
		return t;
	}

	public static void main(String[] args) throws Exception {
		server = new ServerSocket(0);
		long millis = args.length > 0 ? Long.parseLong(args[0]) : 2000;
		Thread[] threads = {
			start("compute", JfrShape::compute),
			start("allocate", JfrShape::allocate),
			start("contend 1", JfrShape::holdMonitor),
			start("contend 2", JfrShape::holdMonitor),
			start("park", JfrShape::park),
			start("accept", JfrShape::accept),
		};
		Thread.sleep(millis);
		done = true;
		server.close();
		for (Thread t : threads)
			t.join();
	}
}
