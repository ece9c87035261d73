import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A BenchTarget of one shape (threads x depth, kind), started and READY, for the shell benches.
 * It can be paused (SIGSTOP) while another target is measured, so that its busy thread takes no
 * CPU from it.
 */
final class ShapeTarget implements AutoCloseable {
    private final Process process;

    private ShapeTarget(Process process) {
        this.process = process;
    }

    /** Started with the JDK at javaHome, from the classes `bench/warm.sh` compiled under root. */
    static ShapeTarget start(Path root, Path javaHome, int threads, int depth, String kind) throws IOException {
        Process process = new ProcessBuilder(javaHome.resolve("bin/java").toString(), "-Xss256k",
                "-cp", root.resolve("bench/target/classes").toString(), "BenchTarget", Integer.toString(threads), Integer.toString(depth), kind)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String ready = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)).readLine();
        if (!"READY".equals(ready)) {
            process.destroyForcibly();
            throw new IllegalStateException("target " + kind + " " + threads + " x " + depth + " did not start: " + ready);
        }
        return new ShapeTarget(process);
    }

    long pid() {
        return process.pid();
    }

    void pause() throws IOException, InterruptedException {
        signal("STOP");
    }

    void resume() throws IOException, InterruptedException {
        signal("CONT");
    }

    private void signal(String name) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + name + " " + pid() + " failed");
        }
    }

    /** Resumes it if paused, and ends it: it exits when its standard input closes. */
    @Override
    public void close() throws IOException, InterruptedException {
        resume();
        process.getOutputStream().close();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
