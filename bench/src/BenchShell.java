import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * The shell as a user runs it ({@code jvmti-cli shell PID}, by the launcher given), with its
 * commands on standard input and each command's output read from its pipe to the end.
 */
final class BenchShell implements AutoCloseable {
    private static final String SENTINEL_COMMAND = "help watch";
    /** The line the sentinel command prints, last. */
    private static final String SENTINEL = "watch [-n SECONDS] COMMAND: run COMMAND every SECONDS (default 2), redrawing the screen, until Ctrl-C.\n";

    private final Process process;
    private final OutputStream commands;
    private final InputStream output;
    private final Path stat;
    private final byte[] buffer = new byte[1 << 20];
    private final byte[] sentinel = SENTINEL.getBytes(StandardCharsets.UTF_8);

    BenchShell(Path launcher, long pid) throws IOException {
        process = new ProcessBuilder(launcher.toString(), "shell", Long.toString(pid))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        commands = process.getOutputStream();
        output = process.getInputStream();
        stat = Path.of("/proc/" + process.pid() + "/stat"); // the launcher execs the JVM
    }

    /** One stacks, then the sentinel: wall and CPU nanoseconds, and the bytes stacks printed. */
    long[] stacks() throws IOException {
        long cpuBefore = cpuNanos();
        long start = System.nanoTime();
        commands.write(("stacks\n" + SENTINEL_COMMAND + "\n").getBytes(StandardCharsets.UTF_8));
        commands.flush();
        long bytes = 0;
        byte[] tail = new byte[0]; // the last bytes read, where the sentinel's line ends the output
        while (!endsWith(tail, sentinel)) {
            int n = output.read(buffer);
            if (n < 0) {
                throw new IOException("the shell ended");
            }
            bytes += n;
            byte[] seen = Arrays.copyOf(tail, tail.length + Math.min(n, sentinel.length));
            System.arraycopy(buffer, n - Math.min(n, sentinel.length), seen, tail.length, Math.min(n, sentinel.length));
            tail = Arrays.copyOfRange(seen, Math.max(0, seen.length - sentinel.length), seen.length);
        }
        long wall = System.nanoTime() - start;
        return new long[] {wall, cpuNanos() - cpuBefore, bytes - sentinel.length};
    }

    /** utime + stime of the shell's JVM (the launcher execs it: same process). */
    private long cpuNanos() throws IOException {
        String text = Files.readString(stat);
        String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) * 10_000_000L; // 100 ticks a second
    }

    private static boolean endsWith(byte[] text, byte[] end) {
        return text.length >= end.length && Arrays.equals(text, text.length - end.length, text.length, end, 0, end.length);
    }

    @Override
    public void close() throws Exception {
        commands.close();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
