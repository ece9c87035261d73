package dev.jvmticli.cli;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.render.JsonOutput;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * The output directory of {@code dump}: every file is written under a temporary name and renamed
 * into place, and the manifest {@code index.json} is rewritten the same way after each file, so
 * that a dump killed half-way leaves only whole files and a manifest that lists exactly them.
 */
final class DumpDirectory {
    /** One file of the dump: its path relative to the directory, round (0 for once-only files), time, command. */
    record Entry(String file, int round, String time, String command) {
    }

    private final Path root;
    private final List<Entry> entries = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private final Map<String, Object> header = new LinkedHashMap<>();

    DumpDirectory(Path root, long pid) throws IOException {
        this.root = root;
        if (Files.isDirectory(root)) {
            try (Stream<Path> present = Files.list(root)) {
                if (present.findAny().isPresent()) {
                    // the manifest and the zip would not tell an earlier run's files from this one's
                    throw new CliFailure(ExitCode.USAGE, root + " is not empty: dump writes into a new or empty directory");
                }
            }
        }
        Files.createDirectories(root);
        header.put("pid", pid);
        header.put("started", Instant.now().toString());
    }

    Path root() {
        return root;
    }

    List<Entry> entries() {
        return List.copyOf(entries);
    }

    /** Writes what the printer prints as a file of the given round, and records it. */
    void write(String file, int round, String command, Consumer<PrintWriter> printer) throws IOException {
        StringWriter text = new StringWriter();
        try (PrintWriter out = new PrintWriter(text)) {
            printer.accept(out);
        }
        writeAtomically(root.resolve(file), text.toString());
        entries.add(new Entry(file, round, Instant.now().toString(), command));
        writeManifest();
    }

    void writeJson(String file, int round, String command, Object value) throws IOException {
        write(file, round, command, out -> JsonOutput.print(out, value));
    }

    /** Records a failure in the manifest, so that a partial dump says why it is partial. */
    void recordError(String message) throws IOException {
        errors.add(message);
        writeManifest();
    }

    /** Packs the directory into a zip next to it (written atomically too); returns its path. */
    Path zip() throws IOException {
        Path zip = root.resolveSibling(root.getFileName() + ".zip");
        Path temporary = root.resolveSibling("." + root.getFileName() + ".zip.tmp");
        try (OutputStream file = Files.newOutputStream(temporary); ZipOutputStream out = new ZipOutputStream(file);
             Stream<Path> files = Files.walk(root)) {
            for (Path path : files.filter(Files::isRegularFile).sorted().toList()) {
                out.putNextEntry(new ZipEntry(root.getFileName() + "/" + root.relativize(path)));
                Files.copy(path, out);
                out.closeEntry();
            }
        }
        Files.move(temporary, zip, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return zip;
    }

    private void writeManifest() throws IOException {
        Map<String, Object> manifest = new LinkedHashMap<>(header);
        manifest.put("files", entries);
        manifest.put("errors", errors);
        StringWriter text = new StringWriter();
        JsonOutput.print(new PrintWriter(text), manifest);
        writeAtomically(root.resolve("index.json"), text.toString());
    }

    private static void writeAtomically(Path target, String content) throws IOException {
        Files.createDirectories(target.getParent());
        Path temporary = target.resolveSibling("." + target.getFileName() + ".tmp");
        Files.writeString(temporary, content, StandardCharsets.UTF_8);
        Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }
}
