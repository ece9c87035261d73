package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * One of the JVM's own threads, which JVMTI does not show: a JavaThread it hides (a compiler
 * thread, the Service Thread, ...) or a non-Java thread (VM Thread, GC workers, ...). Fields the
 * agent could not read for certain are null (nid 0, cpuNanos -1).
 *
 * @param name       as jstack prints it
 * @param javaThread true for a hidden JavaThread (it has a java.lang.Thread), false for a non-Java
 *                   thread; null when not known which
 * @param id         a hidden JavaThread's java.lang.Thread id
 * @param daemon     its java.lang.Thread's daemon flag
 * @param priority   its java.lang.Thread's priority
 * @param state      its java.lang.Thread.State
 * @param osState    what jstack prints after the nid ("runnable", "waiting on condition")
 * @param tid        HotSpot's Thread address (jstack's {@code tid=0x...})
 * @param osPriority the OS thread's nice value (jstack's {@code os_prio})
 * @param started    when the OS thread started, epoch milliseconds (for jstack's {@code elapsed})
 */
@JsonPropertyOrder({"kind", "name"})
@JsonInclude(JsonInclude.Include.NON_NULL)
public record VmThread(String name, Boolean javaThread, Long id, Boolean daemon, Integer priority, String state,
                       long cpuNanos, long nid, String osState, String tid, Integer osPriority, Long started)
        implements RunningThread {
    @Override
    @JsonProperty
    public String kind() {
        return "vm";
    }

    @Override
    public String identity() {
        return nid > 0 ? "nid " + nid : tid != null ? "tid " + tid : "vm " + name;
    }
}
