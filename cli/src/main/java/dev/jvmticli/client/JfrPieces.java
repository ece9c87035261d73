package dev.jvmticli.client;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.List;
import java.util.function.Consumer;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * An async-profiler JFR recording the agent sent as base64 pieces, read event by event. The JDK
 * reads JFR only from a file, so the pieces are written to a file of the CLI's own (0600, in a
 * directory only its user can enter), deleted once read.
 */
final class JfrPieces {
    private JfrPieces() {
    }

    static void forEachEvent(List<String> pieces, String directoryPrefix, Consumer<RecordedEvent> each) throws IOException {
        Path directory = Files.createTempDirectory(directoryPrefix, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path file = directory.resolve("recording.jfr");
        try {
            try (OutputStream out = Files.newOutputStream(file)) {
                Base64.Decoder decoder = Base64.getDecoder();
                for (String piece : pieces) {
                    out.write(decoder.decode(piece));
                }
            }
            try (RecordingFile recording = new RecordingFile(file)) {
                while (recording.hasMoreEvents()) {
                    each.accept(recording.readEvent());
                }
            }
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(directory);
        }
    }
}
