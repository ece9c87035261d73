package dev.jvmticli.client;

import dev.jvmticli.instrument.ParkProbeClass;
import dev.jvmticli.instrument.ParkProbes;
import java.util.List;
import java.util.Map;

/**
 * A contention recording over a window, as {@code contention} and any other command (such as
 * {@code dump}) runs one: contended monitor enters (JVMTI monitor events, {@code contention.start})
 * and, when asked, the parks (with a blocker or without) and the pinned parks of virtual threads (probes in
 * LockSupport and VirtualThread, {@code parks.start}). Parks that cannot be recorded (another client's
 * park session, a JVM that refuses the probes) leave the monitors recorded and say why.
 */
public final class ContentionSession {
    private final AgentClient client;
    private final boolean parks;
    private final String parksUnavailable;

    /** What the window recorded: monitors, parks (null when not recorded) and why parks were not (null when they were, or not asked). */
    public record Result(ContentionReport monitors, ParksReport parks, String parksUnavailable) {
    }

    private ContentionSession(AgentClient client, boolean parks, String parksUnavailable) {
        this.client = client;
        this.parks = parks;
        this.parksUnavailable = parksUnavailable;
    }

    /** Starts recording monitors, and parks when withParks. */
    public static ContentionSession start(AgentClient client, boolean withParks) {
        client.call("contention.start", Map.of(), Map.class);
        if (!withParks) {
            return new ContentionSession(client, false, null);
        }
        try {
            startParks(client);
            return new ContentionSession(client, true, null);
        } catch (AgentError e) {
            return new ContentionSession(client, false, e.agentMessage());
        }
    }

    /** Whether parks are recorded (asked, and the probes are in). */
    public boolean recordsParks() {
        return parks;
    }

    /** Stops both and reads their reports. */
    public Result stop() {
        ContentionReport monitors = client.call("contention.stop", Map.of(), ContentionReport.class);
        ParksReport parkReport = parks ? client.call("parks.stop", Map.of(), ParksReport.class) : null;
        return new Result(monitors, parkReport, parksUnavailable);
    }

    /** Ends the recording without its reports, as a way out that is not the end: the agent puts the classes back. */
    public void stopQuietly() {
        client.stopQuietly("contention.stop");
        if (parks) {
            client.stopQuietly("parks.stop");
        }
    }

    private static void startParks(AgentClient client) {
        ParksStarted started = client.call(new ParksStartRequest(ParkProbeClass.bytes()), ParksStarted.class);
        try {
            List<TraceStarted.ClassBytes> classes = started.classes();
            for (int i = 0; i < classes.size(); i++) {
                ClassBytesRequest.send(client, "parks", i, ParkProbes.rewrite(classes.get(i).name(), classes.get(i).bytes()).bytes());
            }
            client.call("parks.install", Map.of(), Map.class);
        } catch (RuntimeException e) {
            if (!(e instanceof AgentError error && error.code().equals("refused"))) {
                client.stopQuietly("parks.stop");
            }
            throw e;
        }
    }
}
