// A program of known shape for the stack-dump readers' tests (jstack
// thread dumps, Java exception stacks): for a while (argument 1,
// milliseconds; default 3000) two pool threads and one named with a
// blank compute in methods of their own, one sleeps, one waits in a
// socket's accept; then it prints an exception with a cause and a
// suppressed one, as a log would.
import java.io.IOException;
import java.net.ServerSocket;

public class Stacks {
	static volatile long sink;
	static volatile boolean done;

	static long mix(long x) {
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005L + i;
		return x;
	}

	static void inner() {
		long x = 1;
		for (int i = 0; i < 200; i++)
			x = mix(x);
		sink += x;
	}

	static void outer() {
		while (!done)
			inner();
	}

	static void nap() {
		while (!done) {
			try {
				Thread.sleep(20);
			} catch (InterruptedException e) {
				return;
			}
		}
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

	static void parse(String text) throws IOException {
		try {
			Integer.parseInt(text);
		} catch (NumberFormatException e) {
			throw new IOException("bad record: " + text, e);
		}
	}

	static void load() {
		try {
			parse("x1");
		} catch (IOException e) {
			IllegalStateException failure = new IllegalStateException("load failed", e);
			failure.addSuppressed(new RuntimeException("cleanup failed"));
			failure.printStackTrace();
		}
	}

	public static void main(String[] args) throws Exception {
		server = new ServerSocket(0);
		long millis = args.length > 0 ? Long.parseLong(args[0]) : 3000;
		Thread[] threads = {
			start("pool-1-thread-1", Stacks::outer),
			start("pool-1-thread-2", Stacks::outer),
			start("hot loop", Stacks::outer),
			start("napper", Stacks::nap),
			start("acceptor", Stacks::accept),
		};
		Thread.sleep(millis);
		done = true;
		server.close();
		for (Thread t : threads)
			t.join();
		load();
	}
}
