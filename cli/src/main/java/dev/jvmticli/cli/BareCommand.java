package dev.jvmticli.cli;

import java.util.concurrent.Callable;

/**
 * The commands run most, in their bare form {@code jvmti-cli <command> <pid>} (and
 * {@code stacks -l <pid>}, as {@code jstack -l}, and {@code threads --virtual --summary <pid>}, the count
 * of a JVM's virtual threads), made without picocli. Building picocli's model
 * reads annotations by reflection, even for a command of one option, and costs more than the JVM
 * start, the connection and the answer together (docs/performance.md); jstack pays none of it. Each
 * command's fields start at the values picocli gives them when no option is given
 * (BareCommandTest checks this), so the bare form runs the same code. Any other command line,
 * --help included, goes through picocli.
 */
public final class BareCommand {
    private BareCommand() {
    }

    /** Runs a bare {@code <command> <pid>}; null, having run nothing, for any other command line. */
    public static Integer runIfBare(CliContext context, String[] args) {
        Callable<Integer> bare = of(context, args);
        return bare == null ? null : run(context, args[0], bare);
    }

    /** The command for these arguments, or null when they are not a bare form. */
    static Callable<Integer> of(CliContext context, String[] args) {
        boolean synchronizers = args.length == 3 && args[0].equals("stacks") && args[1].equals("-l");
        boolean virtualSummary = args.length == 4 && args[0].equals("threads") && args[1].equals("--virtual")
                && args[2].equals("--summary");
        String pid = args.length == 2 || synchronizers || virtualSummary ? args[args.length - 1] : "";
        if (pid.isEmpty() || pid.startsWith("-") || pid.startsWith("@")) { // @file: picocli's argument files
            return null;
        }
        TargetOption target;
        Callable<Integer> command;
        switch (args[0]) {
            case "threads" -> {
                ThreadsCommand threads = new ThreadsCommand(context);
                threads.kinds.virtual = virtualSummary;
                threads.summary = virtualSummary;
                target = threads.target;
                command = threads;
            }
            case "stacks" -> {
                StacksCommand stacks = new StacksCommand(context);
                stacks.synchronizers = synchronizers;
                target = stacks.target;
                command = stacks;
            }
            case "monitors" -> {
                MonitorsCommand monitors = new MonitorsCommand(context);
                target = monitors.target;
                command = monitors;
            }
            case "deadlocks" -> {
                DeadlocksCommand deadlocks = new DeadlocksCommand(context);
                target = deadlocks.target;
                command = deadlocks;
            }
            default -> {
                return null;
            }
        }
        target.target = pid;
        return command;
    }

    /** Runs a command made by {@link #of}, with failures told as picocli's handler tells them. */
    static int run(CliContext context, String name, Callable<Integer> command) {
        try {
            return command.call();
        } catch (Exception e) {
            return FailureReport.print(context, e, "jvmti-cli " + name);
        }
    }
}
