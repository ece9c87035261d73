import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A target's -Xlog:safepoint file, read between two offsets: the safepoints that happened while a
 * tool ran. Each line looks like
 * {@code [..][info][safepoint] Safepoint "ThreadDump", Time since last: .. ns, Reaching safepoint: .. ns, ..., Total: 337700646 ns}.
 */
final class SafepointLog {
    private static final Pattern LINE = Pattern.compile("Safepoint \"([^\"]+)\".*Total: (\\d+) ns");

    private final Path file;

    SafepointLog(Path file) {
        this.file = file;
    }

    long size() {
        return file.toFile().length();
    }

    /** The safepoints logged from offset on. */
    Pauses since(long offset) throws IOException {
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long end = in.length();
            byte[] bytes = new byte[(int) Math.max(0, end - offset)];
            in.seek(offset);
            in.readFully(bytes);
            Pauses pauses = new Pauses();
            for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
                Matcher m = LINE.matcher(line);
                if (m.find()) {
                    long nanos = Long.parseLong(m.group(2));
                    pauses.count++;
                    pauses.totalNanos += nanos;
                    pauses.maxNanos = Math.max(pauses.maxNanos, nanos);
                    pauses.operations.merge(m.group(1), 1, Integer::sum);
                }
            }
            return pauses;
        }
    }

    static final class Pauses {
        int count;
        long totalNanos;
        long maxNanos;
        final java.util.TreeMap<String, Integer> operations = new java.util.TreeMap<>();
    }
}
