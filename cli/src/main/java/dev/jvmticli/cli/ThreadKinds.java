package dev.jvmticli.cli;

import dev.jvmticli.client.ThreadEntry;
import picocli.CommandLine.Option;

/** {@code --virtual} and {@code --all}: which kinds of thread a command is about. */
public final class ThreadKinds {
    @Option(names = "--virtual", description = "Virtual threads (JDK 21+) instead of platform threads; exit code 12 when the target has none.")
    boolean virtual;

    @Option(names = "--all", description = "Platform and virtual threads.")
    boolean all;

    public boolean platform() {
        return all || !virtual;
    }

    public boolean virtualThreads() {
        return all || virtual;
    }

    /** Only --virtual insists on virtual threads; --all on a JDK without them shows platform threads. */
    public boolean virtualRequired() {
        return virtual && !all;
    }

    public boolean shows(ThreadEntry thread) {
        return thread.virtual() ? virtualThreads() : platform();
    }
}
