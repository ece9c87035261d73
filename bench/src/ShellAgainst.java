import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Warm {@code stacks} in this checkout's shell against another build's, shape by shape: each
 * shell in a target of its own (two of the same shape), taking turns command by command, with the
 * target not being measured paused (SIGSTOP) so that the two never share the CPUs. Each shell loads
 * its own build's agent. Medians; the ratio is the other build's wall time over this one's.
 *
 * Usage: java -cp jvmti-cli.jar:classes ShellAgainst ROOT ROUNDS OTHER_LAUNCHER SHAPE...
 */
public final class ShellAgainst {
    private ShellAgainst() {
    }

    public static void main(String[] args) throws Exception {
        Path root = Path.of(args[0]);
        int rounds = Integer.parseInt(args[1]);
        Path other = Path.of(args[2]);
        Path javaHome = Path.of(System.getProperty("java.home"));
        Path mine = root.resolve("jvmti-cli");
        System.out.println("# Warm stacks in the shell, this build (" + mine + ") against " + other + ": "
                + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + ", "
                + Runtime.getRuntime().availableProcessors() + " CPUs, " + rounds + " rounds, medians; load average at start "
                + Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        System.out.println();
        System.out.println("| target | threads x frames | this build ms | other build ms | other / this |");
        System.out.println("|---|---|---:|---:|---:|");
        for (int i = 3; i < args.length; i++) {
            String[] shape = args[i].split(":");
            int threads = Integer.parseInt(shape[1]);
            int depth = Integer.parseInt(shape[2]);
            try (ShapeTarget mineTarget = ShapeTarget.start(root, javaHome, threads, depth, shape[3]);
                 ShapeTarget otherTarget = ShapeTarget.start(root, javaHome, threads, depth, shape[3]);
                 BenchShell mineShell = new BenchShell(mine, mineTarget.pid());
                 BenchShell otherShell = new BenchShell(other, otherTarget.pid())) {
                List<long[]> samples = new ArrayList<>();
                for (int round = -ShellBench.WARMUP; round < rounds; round++) {
                    long[] sample = {alone(mineTarget, otherTarget, mineShell), alone(otherTarget, mineTarget, otherShell)};
                    if (round >= 0) {
                        samples.add(sample);
                    }
                }
                double mineWall = ShellBench.median(samples, 0);
                double otherWall = ShellBench.median(samples, 1);
                System.out.printf(Locale.ROOT, "| %s | %d x %d | %.0f | %.0f | %.2f |%n", shape[0], threads, depth,
                        mineWall / 1e6, otherWall / 1e6, otherWall / mineWall);
            }
        }
    }

    /** One stacks in shell (wall nanoseconds), its target running and the other paused. */
    private static long alone(ShapeTarget running, ShapeTarget paused, BenchShell shell) throws Exception {
        paused.pause();
        running.resume();
        Thread.sleep(200); // the resumed target's threads settle back into their states
        return shell.stacks()[0];
    }
}
