package dev.jvmticli.attach;

import com.sun.tools.attach.VirtualMachine;
import dev.jvmticli.client.AgentConnector;
import java.util.concurrent.TimeUnit;

/**
 * One first-ever attach of the agent to a JVM whose attach listener is not running yet: through
 * the JDK's Attach API ({@code jdk}) or through the CLI's own client of HotSpot's attach protocol
 * ({@code own}). Prints the milliseconds the attach took and the CPU milliseconds of this whole
 * process (JVM start-up included). In this package to reach the CLI's package-private client.
 * Usage: AttachTime jdk|own PID LIBRARY
 */
public final class AttachTime {
    private AttachTime() {
    }

    public static void main(String[] args) throws Exception {
        long pid = Long.parseLong(args[1]);
        String library = args[2];
        long start = System.nanoTime();
        if (args[0].equals("jdk")) {
            VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
            vm.loadAgentPath(library, AgentConnector.AGENT_OPTIONS);
            vm.detach();
        } else {
            AttachListener.Answer answer = new AttachListener(TargetProcess.of(pid))
                    .execute(start + TimeUnit.SECONDS.toNanos(30), "load", library, "true", AgentConnector.AGENT_OPTIONS);
            if (answer.status() != 0 || !answer.output().strip().equals("return code: 0")) {
                throw new IllegalStateException("the load failed: " + answer);
            }
        }
        long attachMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        long cpuMillis = ProcessHandle.current().info().totalCpuDuration().map(d -> d.toMillis()).orElse(-1L);
        System.out.println(attachMillis + " " + cpuMillis);
    }
}
