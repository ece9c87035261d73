package dev.jvmticli.analysis;

import dev.jvmticli.client.ProfileReport;
import dev.jvmticli.client.ThreadList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/**
 * A profile's samples split into the target's and jvmti-cli's own work, by one rule:
 * <ul>
 * <li>every sample of the agent's thread (its OS thread id, as the agent gives it) is the tool's, and so is
 *     every sample of the threads its sessions start beside a profile (a dump's contention recording, its
 *     parks' owner reads and safepoint log reader; alloc --live's pruner), by the names the agent gives them
 *     ({@link #HELPERS});</li>
 * <li>a sample of the VM thread taken while one of the agent's requests ran (the agent dumps the VM
 *     thread's stacks before and after each request and keeps what each stack gained) is the tool's
 *     when the VM thread was running a VM operation ({@code VM_Operation::evaluate} on its stack) that
 *     is not a garbage collection: a collection in that window is the target's, one the request
 *     waited for; and so is a GC worker's sample in the class histogram's parallel walk
 *     ({@code ParHeapInspectTask::work}) in such a window, the heap walk of a histogram the agent asked for;</li>
 * <li>everything else is the target's, the VM thread's other samples (idle, collections, its own
 *     operations outside the windows) included.</li>
 * </ul>
 * The three parts add up to the engine's samples.
 *
 * @param target       the target's samples
 * @param agentThread  the agent thread's samples, its helpers' included
 * @param vmOperations the VM thread's samples in VM operations the agent asked for
 * @param requests     the agent's requests while the profile ran
 * @param lostSamples  VM-thread samples in those windows the agent could not keep by stack (counted as the target's)
 * @param unreadRequests requests whose VM-thread samples could not be read (counted as the target's)
 */
public record ProfileSplit(Profile target, Profile agentThread, Profile vmOperations, long requests, long lostSamples,
                           long unreadRequests) {
    /** The label of the tool's own work: the root frame of its samples in collapsed stacks and flame graphs. */
    public static final String OWN_WORK_FRAME = "[jvmti-cli's own work, not the target's]";

    /** The threads the agent's sessions start: Java threads (contention, its parks' owner reads, alloc --live) and the safepoint log's reader (pauses). */
    static final java.util.Set<String> HELPERS = java.util.Set.of("jvmti-cli contention", "jvmti-cli park owners", "jvmti-cli alloc --live",
            "jvmti-cli pause");

    private static final String EVALUATE = "VM_Operation::evaluate";
    private static final String HISTOGRAM_WORKER = "ParHeapInspectTask::work";
    private static final String VM_THREAD = "VM Thread";
    /** HotSpot's collections, by the class of their VM operation (G1, Parallel, Serial, Shenandoah, ZGC, metaspace). */
    private static final Pattern COLLECTION = Pattern.compile(
            "VM_(G1|Shenandoah|Z|X(?=[A-Z])|Parallel|Gen|Serial).*|VM_.*Collect.*");

    public static ProfileSplit of(Profile engine, ProfileReport.OwnWork own) {
        if (own == null) {
            return new ProfileSplit(engine, engine.filter(s -> false), engine.filter(s -> false), 0, 0, 0);
        }
        Profile agent = engine.filter(s -> s.tid() == own.agentTid() || HELPERS.contains(s.thread()));
        Profile inWindows = Profile.parse(own.vmThreadStacks().stream().map(s -> s.stack() + " " + s.samples()).toList());
        Profile vmOperations = engine.common(inWindows.filter(ProfileSplit::toolsOperation));
        return new ProfileSplit(engine.minus(agent).minus(vmOperations), agent, vmOperations, own.requests(), own.lostSamples(),
                own.unreadRequests());
    }

    /** Whether a stack sampled during one of the agent's requests is the work of a VM operation it asked for. */
    static boolean toolsOperation(Profile.Stack stack) {
        if (VM_THREAD.equals(stack.thread())) {
            String operation = operation(stack);
            return operation != null && !collection(operation);
        }
        return stack.frames().stream().anyMatch(f -> f.name().equals(HISTOGRAM_WORKER));
    }

    /** The class of the VM operation a VM-thread stack runs (the frame above VM_Operation::evaluate), or null. */
    static String operation(Profile.Stack stack) {
        List<Profile.Frame> frames = stack.frames();
        for (int i = 0; i + 1 < frames.size(); i++) {
            if (frames.get(i).name().equals(EVALUATE)) {
                String doit = frames.get(i + 1).name();
                int colons = doit.indexOf("::");
                return colons > 0 ? doit.substring(0, colons) : doit;
            }
        }
        return null;
    }

    static boolean collection(String operation) {
        return COLLECTION.matcher(operation).matches();
    }

    public long ownSamples() {
        return agentThread.samples() + vmOperations.samples();
    }

    /** Of {@link #agentThread}, the samples of the agent's sessions' helper threads. */
    public long helperSamples() {
        return agentThread.filter(s -> HELPERS.contains(s.thread())).samples();
    }

    /** The tool's VM operations and their samples, by name (the histogram's GC workers as theirs). */
    public Map<String, Long> operations() {
        Map<String, Long> byName = new TreeMap<>();
        vmOperations.stacks().forEach(s -> byName.merge(operation(s) != null ? operation(s) : "VM_GC_HeapInspection (GC workers)",
                s.samples(), Long::sum));
        return byName;
    }

    /** Each part with its threads named as the live threads are (see {@link Profile#named}). */
    public ProfileSplit named(ThreadList live) {
        return new ProfileSplit(target.named(live), agentThread.named(live), vmOperations.named(live), requests, lostSamples, unreadRequests);
    }

    /** Each part with only the stacks kept. */
    public ProfileSplit filter(Predicate<Profile.Stack> keep) {
        return new ProfileSplit(target.filter(keep), agentThread.filter(keep), vmOperations.filter(keep), requests, lostSamples, unreadRequests);
    }
}
