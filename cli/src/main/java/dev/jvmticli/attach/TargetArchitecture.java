package dev.jvmticli.attach;

import dev.jvmticli.payload.AgentLibrary;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The machine a target JVM's code is built for, read from the ELF header of the libjvm.so it maps,
 * so the agent placed in it is the one of that machine. Not from {@code /proc/<pid>/exe}: an arm64
 * JVM run by qemu-user on an x86-64 host is, to the kernel, the x86-64 program qemu, while the
 * files it maps are the arm64 JVM's own.
 */
public final class TargetArchitecture {
    private static final Pattern LIBJVM = Pattern.compile(" (/\\S*/libjvm\\.so)$", Pattern.MULTILINE);
    private static final int E_MACHINE_OFFSET = 18;
    private static final int EM_X86_64 = 62;
    private static final int EM_AARCH64 = 183;

    private TargetArchitecture() {
    }

    /**
     * The platform name of the agent the target loads ({@link AgentLibrary#platform()}'s form,
     * {@code linux-aarch64}); this CLI's own where the target's libjvm.so cannot be read.
     */
    public static String platform(TargetProcess target) {
        try {
            String maps = Files.readString(Path.of("/proc", Long.toString(target.pid()), "maps"), StandardCharsets.ISO_8859_1);
            Matcher libjvm = LIBJVM.matcher(maps);
            if (libjvm.find()) {
                int machine = elfMachine(libjvm.group(1), target.root());
                return switch (machine) {
                    case EM_X86_64 -> "linux-x86_64";
                    case EM_AARCH64 -> "linux-aarch64";
                    default -> "linux-elf-machine-" + machine;
                };
            }
        } catch (IOException e) {
            // judged when the target was found; the attach will say what fails
        }
        return AgentLibrary.platform();
    }

    /**
     * The e_machine of the file: maps names it as this process sees it (a chroot's files by their
     * path from here), or from the target's root when this process cannot reach that path.
     */
    private static int elfMachine(String path, Path root) throws IOException {
        Path file = Path.of(path);
        if (!Files.isReadable(file)) {
            file = root.resolve(path.substring(1));
        }
        byte[] header = new byte[E_MACHINE_OFFSET + 2];
        try (InputStream in = Files.newInputStream(file)) {
            if (in.readNBytes(header, 0, header.length) < header.length || header[0] != 0x7f || header[1] != 'E' || header[2] != 'L' || header[3] != 'F') {
                throw new IOException(file + " is not an ELF file");
            }
        }
        return (header[E_MACHINE_OFFSET] & 0xff) | (header[E_MACHINE_OFFSET + 1] & 0xff) << 8;
    }
}
