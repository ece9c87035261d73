package dev.jvmticli.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A mount namespace of its own with an empty tmpfs on /tmp (mode 1777, as /tmp is), kept alive by
 * a sleeping holder process: what a test squats in its /tmp (another user's /tmp/.jvmti-cli-0)
 * disturbs no other run on the machine. Processes enter it through {@link #wrapper()} (nsenter);
 * the pid namespace stays the machine's, so pids are the same inside and out.
 */
public final class PrivateTmp implements AutoCloseable {
    private final Process holder;

    private PrivateTmp(Process holder) {
        this.holder = holder;
    }

    public static PrivateTmp create() {
        assumeTrue(OtherUser.isRoot(), "unshare needs root");
        try {
            Process holder = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "sh", "-c",
                    mountEmptyTmp() + " && echo READY && exec sleep 3600").redirectErrorStream(true).start();
            String line = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8)).readLine();
            if (!"READY".equals(line)) {
                holder.destroyForcibly();
                throw new IllegalStateException("no private /tmp: " + line);
            }
            return new PrivateTmp(holder);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Shell commands that mount an empty tmpfs (mode 1777, as /tmp is) on /tmp in the mount namespace
     * they run in, with the checkout still at its path where it lies under /tmp (a CI clone may): its
     * jar and classes stay reachable.
     */
    public static String mountEmptyTmp() {
        String mount = "mount -t tmpfs -o mode=1777 tmpfs /tmp";
        Path checkout = Path.of("").toAbsolutePath().getParent();
        if (!checkout.startsWith("/tmp")) {
            return mount;
        }
        String below = Path.of("/tmp").relativize(checkout).toString();
        return "mount --bind /tmp /mnt && " + mount + " && mkdir -p /tmp/" + below + " && mount --bind /mnt/" + below + " /tmp/" + below;
    }

    /** The command prefix that runs a program in this namespace, then as the user the rest of prefix names. */
    public List<String> wrapper(List<String> prefix) {
        List<String> wrapper = new ArrayList<>(List.of("nsenter", "--target", Long.toString(holder.pid()), "--mount", "--"));
        wrapper.addAll(prefix);
        return wrapper;
    }

    public List<String> wrapper() {
        return wrapper(List.of());
    }

    @Override
    public void close() {
        holder.destroyForcibly();
    }
}
