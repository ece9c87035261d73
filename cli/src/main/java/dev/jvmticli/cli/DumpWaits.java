package dev.jvmticli.cli;

import dev.jvmticli.client.AgentClient;
import dev.jvmticli.client.AgentError;
import dev.jvmticli.client.ContentionSession;
import dev.jvmticli.client.PausesReport;
import dev.jvmticli.client.PausesReport.Pause;
import dev.jvmticli.client.PausesStartRequest;
import dev.jvmticli.render.ContentionView;
import dev.jvmticli.render.ParksView;
import dev.jvmticli.render.PausesView;
import dev.jvmticli.render.WaitsSummary;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * What `dump` records across its rounds, beside them: the JVM's pauses (`pauses`) and lock contention
 * (`contention`: monitors and parks on java.util.concurrent locks), each a session of its own engine (the engines run side by side, and beside
 * `--profile`'s), started before the first round and stopped after the last. A session that cannot
 * start (no attach listener for the safepoint log, another client's session of the same engine)
 * leaves its reason, for one line of summary.md, instead of failing the dump.
 *
 * The dump's own reads stop the JVM too (a thread dump, the monitors' usage, a class histogram are
 * safepoint operations): those of the operations its reads make, logged while one of its reads ran,
 * are told apart from the target's, and so are the contention recording's own look-ups of a
 * monitor's owner and its putting probes in LockSupport (a class redefinition).
 */
final class DumpWaits {
    private static final long SLOW_REACH_NANOS = 5_000_000;
    private static final int CONTENTION_ROWS = 20;
    private static final int LATE_THREADS_TOP = 10;

    /**
     * The VM operations the dump's reads make: ThreadMXBean's thread dump, JVMTI's stack traces of a
     * list of threads and monitor usage (the lock facts), a class histogram (--heap).
     */
    private static final Set<String> OWN_OPERATIONS = Set.of("ThreadDump", "GetThreadListStackTraces", "GetObjectMonitorUsage",
            "GC_HeapInspection");

    /** What `contention`'s helper asks, while a thread is blocked, to learn who holds the monitor: a safepoint each. */
    private static final String CONTENTION_OPERATION = "GetObjectMonitorUsage";

    /** What the parks recording's probes in LockSupport and VirtualThread, and --trace's, cost when put in and taken out: a class redefinition. */
    private static final String PROBES_OPERATION = "RedefineClasses";

    /** When one of the dump's reads ran, on the wall clock (the clock of the JVM's log decorations). */
    private record Read(long fromMillis, long toMillis) {
    }

    private final boolean pauses;
    private final ContentionSession contention;
    private final String pausesMissing;
    private final String contentionMissing;
    private final List<Read> reads = new ArrayList<>();
    private boolean traceProbes;
    private boolean stopped;

    private DumpWaits(boolean pauses, ContentionSession contention, String pausesMissing, String contentionMissing) {
        this.pauses = pauses;
        this.contention = contention;
        this.pausesMissing = pausesMissing;
        this.contentionMissing = contentionMissing;
    }

    /** Starts what is asked; what cannot start is kept with its reason. */
    static DumpWaits start(AgentClient client, boolean pauses, boolean contention) {
        String pausesMissing = !pauses ? "not recorded (--no-pauses)" : started(() -> client.call(new PausesStartRequest(null), Map.class));
        if (!contention) {
            return new DumpWaits(pausesMissing == null, null, pausesMissing, "not recorded (--no-contention)");
        }
        try {
            return new DumpWaits(pausesMissing == null, ContentionSession.start(client, true), pausesMissing, null);
        } catch (AgentError e) {
            return new DumpWaits(pausesMissing == null, null, pausesMissing, notRecorded(e));
        }
    }

    /** null when the session started, else why not, as the agent said it. */
    private static String started(Runnable start) {
        try {
            start.run();
            return null;
        } catch (AgentError e) {
            return notRecorded(e);
        }
    }

    private static String notRecorded(AgentError e) {
        return "not recorded: " + e.agentMessage() + " (" + e.code() + ")";
    }

    /** Runs one of the dump's own reads of the target, remembering when. */
    <T> T read(Supplier<T> read) {
        long from = readBegins();
        try {
            return read.get();
        } finally {
            readEnded(from);
        }
    }

    /** The dump's own reads begin: the time to hand to {@link #readEnded}. */
    long readBegins() {
        return System.currentTimeMillis();
    }

    /** The dump's own reads that began at fromMillis (readBegins) end. */
    void readEnded(long fromMillis) {
        reads.add(new Read(fromMillis, System.currentTimeMillis()));
    }

    /**
     * --trace put its probes in: from now on every class redefinition is counted the dump's (its
     * install and its restore; the target's own too, as with the parks' probes).
     */
    void traceProbesIn() {
        traceProbes = true;
    }

    /** Stops the sessions, writes pauses/ and contention/, and returns what summary.md says of them. */
    WaitsSummary.Waits stop(AgentClient client, DumpDirectory directory) {
        stopped = true;
        PausesReport pauseReport = pauses ? client.call("pauses.stop", Map.of(), PausesReport.class) : null;
        ContentionSession.Result recorded = contention == null ? null : contention.stop();
        List<Pause> own = new ArrayList<>();
        if (pauseReport != null) {
            pauseReport.pauses().stream().filter(this::ownRead).forEach(own::add);
            directory.write("pauses/pauses.txt", 0, "pauses", printer -> {
                printer.println(WaitsSummary.ownPausesLine(own, traceProbes));
                printer.println();
                PausesView.print(printer, pauseReport, SLOW_REACH_NANOS, LATE_THREADS_TOP);
            });
            directory.writeJson("pauses/pauses.json", 0, "pauses --json", PausesView.document(pauseReport, SLOW_REACH_NANOS));
        }
        List<ParksView.Holders> holders = recorded == null || recorded.parks() == null ? List.of() : ParkHolders.read(client, recorded.parks());
        if (recorded != null) {
            directory.write("contention/contention.txt", 0, "contention --top " + CONTENTION_ROWS, printer -> {
                ContentionView.print(printer, recorded.monitors(), CONTENTION_ROWS, false);
                if (recorded.parks() != null) {
                    ParksView.print(printer, recorded.parks(), CONTENTION_ROWS, holders);
                }
            });
            Map<String, Object> document = new LinkedHashMap<>(ContentionView.document(recorded.monitors(), false));
            if (recorded.parks() != null) {
                document.put("parks", ParksView.document(recorded.parks(), holders));
            }
            directory.writeJson("contention/contention.json", 0, "contention --json", document);
        }
        return new WaitsSummary.Waits(pauseReport, own, pausesMissing, SLOW_REACH_NANOS, recorded, holders, contentionMissing, traceProbes);
    }

    /** The dump ends another way (a failure, an interrupt): the sessions end without their reports, the probes taken out. */
    void abandon(AgentClient client) {
        if (stopped) {
            return;
        }
        stopped = true;
        if (pauses) {
            client.stopQuietly("pauses.stop");
        }
        if (contention != null) {
            contention.stopQuietly();
        }
    }

    /**
     * A pause of an operation the dump's reads make, logged while one ran; or, while it records
     * contention, one of the look-ups of who holds a contended monitor the recording makes at any time,
     * or the putting in of its probes for parks; with --trace, the trace's probes put in and taken out
     * (the target's own redefinitions are then counted the dump's too).
     */
    private boolean ownRead(Pause pause) {
        boolean probesIn = traceProbes || contention != null && contention.recordsParks();
        if (contention != null && pause.operation().equals(CONTENTION_OPERATION) || probesIn && pause.operation().equals(PROBES_OPERATION)) {
            return true;
        }
        // the log's clock and the CLI's are read at whole milliseconds
        return OWN_OPERATIONS.contains(pause.operation())
                && reads.stream().anyMatch(r -> pause.endMillis() >= r.fromMillis() - 1 && pause.startMillis() <= r.toMillis() + 1);
    }
}
