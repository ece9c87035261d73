package dev.jvmticli.cli;

import dev.jvmticli.failure.CliFailure;
import dev.jvmticli.failure.ExitCode;
import dev.jvmticli.files.OutputFile;
import dev.jvmticli.files.OwnDirectory;
import dev.jvmticli.files.UnsafePathException;
import dev.jvmticli.render.JsonOutput;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * The output directory of {@code dump}: a directory of the running user that no one else can
 * write (made 0700 when missing; see {@link OwnDirectory}), where every file is 0600, created new
 * under a temporary name relative to the open directory and renamed into place, and the manifest
 * {@code index.json} is rewritten the same way after each file, so that a dump killed half-way
 * leaves only whole files and a manifest that lists exactly them. A file that cannot be written
 * (a full or read-only file system) leaves no temporary, and the manifest records the error or,
 * when even that cannot be written, is removed rather than left silent about it.
 */
final class DumpDirectory implements AutoCloseable {
    private static final String MANIFEST = "index.json";

    /** One file of the dump: its path relative to the directory, round (0 for once-only files), time, command. */
    record Entry(String file, int round, String time, String command) {
    }

    private final OwnDirectory root;
    private final Map<String, OwnDirectory> subdirectories = new HashMap<>();
    private final List<Entry> entries = new ArrayList<>();
    private final List<String> errors = new ArrayList<>();
    private final Map<String, Object> header = new LinkedHashMap<>();
    private boolean manifestWritten;

    DumpDirectory(Path path, long pid) {
        try {
            root = OwnDirectory.open(path);
        } catch (UnsafePathException e) {
            throw new CliFailure(ExitCode.USAGE, e.getMessage() + ": dump writes only into a directory of its own user"
                    + " that no one else can write");
        } catch (IOException e) {
            throw new CliFailure(ExitCode.FAILURE, "cannot create " + path + ": " + OutputFile.reason(e), e);
        }
        if (!root.isEmpty()) {
            closeQuietly();
            // the manifest and the zip would not tell an earlier run's files from this one's
            throw new CliFailure(ExitCode.USAGE, path + " is not empty: dump writes into a new or empty directory");
        }
        header.put("pid", pid);
        header.put("started", Instant.now().toString());
    }

    Path root() {
        return root.path();
    }

    List<Entry> entries() {
        return List.copyOf(entries);
    }

    /** Writes what the printer prints as a file of the given round, and records it. */
    void write(String file, int round, String command, Consumer<PrintWriter> printer) {
        StringWriter text = new StringWriter();
        try (PrintWriter out = new PrintWriter(text)) {
            printer.accept(out);
        }
        writeAtomically(file, text.toString());
        entries.add(new Entry(file, round, Instant.now().toString(), command));
        writeManifest();
    }

    void writeJson(String file, int round, String command, Object value) {
        write(file, round, command, out -> JsonOutput.print(out, value));
    }

    /** Records a failure in the manifest, so that a partial dump says why it is partial. */
    void recordError(String message) {
        errors.add(message);
        writeManifest();
    }

    /**
     * Records the failure that ends the dump. When the manifest cannot be rewritten with it (the
     * disk that failed a file may fail this too), the manifest is removed: none rather than one
     * that says nothing went wrong.
     */
    void recordFailure(String message) {
        try {
            recordError(message);
        } catch (CliFailure failure) {
            if (manifestWritten) {
                try {
                    root.delete(MANIFEST);
                } catch (IOException e) {
                    // nothing more can be done on this file system; the command's failure says why
                }
            }
        }
    }

    /** Packs the directory into a zip next to it, written under a temporary name inside it; returns its path. */
    Path zip() {
        String name = root.path().getFileName() + ".zip";
        String temporary = "." + name + ".tmp";
        Path zip = root.path().resolveSibling(name);
        TreeSet<String> files = new TreeSet<>();
        entries.forEach(entry -> files.add(entry.file()));
        files.add(MANIFEST);
        try {
            try (OutputStream file = root.createNew(temporary); ZipOutputStream out = new ZipOutputStream(file)) {
                for (String each : files) {
                    out.putNextEntry(new ZipEntry(root.path().getFileName() + "/" + each));
                    try (InputStream in = directoryOf(each).openRegularFile(nameOf(each))) {
                        in.transferTo(out);
                    }
                    out.closeEntry();
                }
            }
            root.moveOut(temporary, name);
        } catch (IOException e) {
            deleteQuietly(root, temporary);
            throw new CliFailure(ExitCode.FAILURE, "cannot write " + zip + ": " + OutputFile.reason(e), e);
        }
        return zip;
    }

    @Override
    public void close() {
        closeQuietly();
    }

    private void writeManifest() {
        Map<String, Object> manifest = new LinkedHashMap<>(header);
        manifest.put("files", entries);
        manifest.put("errors", errors);
        StringWriter text = new StringWriter();
        JsonOutput.print(new PrintWriter(text), manifest);
        writeAtomically(MANIFEST, text.toString());
        manifestWritten = true;
    }

    private void writeAtomically(String file, String content) {
        OwnDirectory directory;
        try {
            directory = directoryOf(file);
        } catch (IOException e) {
            throw new CliFailure(ExitCode.FAILURE, "cannot create " + root.path().resolve(file).getParent() + ": " + OutputFile.reason(e), e);
        }
        String name = nameOf(file);
        String temporary = "." + name + ".tmp";
        try {
            try (OutputStream out = directory.createNew(temporary)) {
                out.write(content.getBytes(StandardCharsets.UTF_8));
            }
            directory.rename(temporary, name);
        } catch (IOException e) {
            deleteQuietly(directory, temporary);
            throw new CliFailure(ExitCode.FAILURE, "cannot write " + root.path().resolve(file) + ": " + OutputFile.reason(e), e);
        }
    }

    /** The directory file is in: the root or one level below it (round-001/, profile/). */
    private OwnDirectory directoryOf(String file) throws IOException {
        int slash = file.indexOf('/');
        if (slash < 0) {
            return root;
        }
        String name = file.substring(0, slash);
        OwnDirectory directory = subdirectories.get(name);
        if (directory == null) {
            directory = root.subdirectory(name);
            subdirectories.put(name, directory);
        }
        return directory;
    }

    private static String nameOf(String file) {
        return file.substring(file.indexOf('/') + 1);
    }

    private static void deleteQuietly(OwnDirectory directory, String name) {
        try {
            directory.delete(name);
        } catch (IOException e) {
            // not there (it was never created) or the file system refuses even that: nothing left to undo
        }
    }

    private void closeQuietly() {
        for (OwnDirectory directory : subdirectories.values()) {
            try {
                directory.close();
            } catch (IOException e) {
                // a descriptor that fails to close has nothing left to write
            }
        }
        try {
            root.close();
        } catch (IOException e) {
            // as above
        }
    }
}
