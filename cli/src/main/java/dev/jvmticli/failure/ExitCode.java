package dev.jvmticli.failure;

/** The process exit codes of jvmti-cli; README lists them. */
public enum ExitCode {
    OK(0, "success"),
    FAILURE(1, "the command failed in the agent or the CLI"),
    USAGE(2, "bad command line: unknown option, bad value, a name matching no JVM or several"),
    NO_SUCH_PROCESS(3, "no process with that pid"),
    NOT_A_JVM(4, "the process is not a HotSpot JVM"),
    DYNAMIC_AGENTS_REFUSED(5, "the JVM refuses dynamically loaded agents"),
    AGENT_LOAD_FAILED(6, "the agent failed to start inside the target"),
    PERMISSION_DENIED(7, "not allowed to attach to that process"),
    TIMEOUT(8, "the target did not answer in time"),
    CONNECTION_LOST(9, "the target exited or dropped the connection mid-command"),
    DEADLOCK_FOUND(10, "deadlocks found a deadlock"),
    INCOMPATIBLE_AGENT(11, "the resident agent speaks another protocol version"),
    NO_VIRTUAL_THREADS(12, "--virtual on a JVM without virtual threads (before JDK 21)"),
    UNTRUSTED_SOCKET(13, "the agent's socket directory or the process listening on its socket is not the JVM's"),
    AGENT_BUSY(14, "every connection the agent serves is busy"),
    UNSUPPORTED_C_LIBRARY(15, "the JVM runs on a C library the agent cannot load on: musl, or glibc older than 2.17"),
    NO_ROOM(16, "heap --dump: the target's file system has less free room than the heap's used bytes"),
    OUTPUT_CLOSED(141, "standard output was closed by its reader (as `| head` does) or cannot be written");

    private final int code;
    private final String meaning;

    ExitCode(int code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }

    public int code() {
        return code;
    }

    public String meaning() {
        return meaning;
    }
}
