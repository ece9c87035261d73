package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.jvmticli.client.ProfileReport;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProfileSplitTest {
    private static final String EVALUATE = "[VM Thread tid=9];VMThread::evaluate_operation;VM_Operation::evaluate;";

    @Test
    void theAgentThreadAndTheRequestedVmOperationsAreTheToolsCollectionsInTheirWindowsAndEverythingElseTheTargets() {
        Profile engine = Profile.parse(List.of(
                "[worker tid=5];Burn.spin_[j] 50",
                "[jvmti-cli agent tid=7];server_loop;poll 4",
                EVALUATE + "VM_GC_HeapInspection::doit;RecordInstanceClosure::do_object 6",
                EVALUATE + "VM_G1CollectForAllocation::doit;G1CollectedHeap::do_collection_pause 3",
                EVALUATE + "VM_GetAllStackTraces::doit 2",
                "[GC Thread#0 tid=11];GangWorker::loop;ParHeapInspectTask::work;RecordInstanceClosure::do_object 5",
                "[GC Thread#0 tid=11];GangWorker::loop;G1ParTask::work 4",
                "[VM Thread tid=9];VMThread::wait_for_operation;__futex_abstimed_wait_common 8"));
        // in the windows: 5 of the 6 histogram samples (one came from someone else's histogram outside them), the collection
        // the request waited for, the idle VM thread, and the workers' histogram walk
        ProfileReport.OwnWork own = new ProfileReport.OwnWork(7, 3, 1_000_000, List.of(
                new ProfileReport.VmThreadStack(EVALUATE + "VM_GC_HeapInspection::doit;RecordInstanceClosure::do_object", 5),
                new ProfileReport.VmThreadStack(EVALUATE + "VM_G1CollectForAllocation::doit;G1CollectedHeap::do_collection_pause", 3),
                new ProfileReport.VmThreadStack(EVALUATE + "VM_GetAllStackTraces::doit", 2),
                new ProfileReport.VmThreadStack("[VM Thread tid=9];VMThread::wait_for_operation;__futex_abstimed_wait_common", 2),
                new ProfileReport.VmThreadStack("[GC Thread#0 tid=11];GangWorker::loop;ParHeapInspectTask::work;RecordInstanceClosure::do_object", 5)),
                0, 0);

        ProfileSplit split = ProfileSplit.of(engine, own);

        assertEquals(4, split.agentThread().samples());
        assertEquals(Map.of("VM_GC_HeapInspection", 5L, "VM_GetAllStackTraces", 2L, "VM_GC_HeapInspection (GC workers)", 5L), split.operations());
        assertEquals(12, split.vmOperations().samples());
        assertEquals(50 + 1 + 3 + 4 + 8, split.target().samples());
        assertEquals(engine.samples(), split.target().samples() + split.ownSamples());
    }

    /** The threads the agent's sessions start beside a profile (a dump's contention, its parks' owner reads, pauses) are the tool's, by their names. */
    @Test
    void theAgentsHelperThreadsAreTheTools() {
        Profile engine = Profile.parse(List.of("[worker tid=5];Burn.spin_[j] 50", "[jvmti-cli contention tid=8];owner_lookups 2",
                "[jvmti-cli park owners tid=9];read_owner 4", "[jvmti-cli pause tid=12];read_log;poll 3", "[jvmti-cli agent tid=7];server_loop 1"));
        ProfileSplit split = ProfileSplit.of(engine, new ProfileReport.OwnWork(7, 0, 0, List.of(), 0, 0));
        assertEquals(10, split.agentThread().samples());
        assertEquals(9, split.helperSamples());
        assertEquals(50, split.target().samples());
    }

    @Test
    void withoutTheAgentsAccountEverySampleIsTheTargets() {
        Profile engine = Profile.parse(List.of("[w tid=5];a 3"));
        assertEquals(3, ProfileSplit.of(engine, null).target().samples());
    }

    @Test
    void collectionsAreToldFromOtherOperationsByTheirClass() {
        for (String gc : List.of("VM_G1CollectForAllocation", "VM_G1CollectFull", "VM_G1PauseRemark", "VM_ParallelGCFailedAllocation",
                "VM_GenCollectFull", "VM_SerialCollectForAllocation", "VM_ShenandoahInitMark", "VM_ZMarkStart", "VM_XMarkStart",
                "VM_CollectForMetadataAllocation")) {
            assertEquals(true, ProfileSplit.collection(gc), gc);
        }
        for (String other : List.of("VM_GC_HeapInspection", "VM_GetAllStackTraces", "VM_ThreadDump", "VM_HeapWalkOperation", "VM_DeoptimizeFrame")) {
            assertEquals(false, ProfileSplit.collection(other), other);
        }
    }
}
