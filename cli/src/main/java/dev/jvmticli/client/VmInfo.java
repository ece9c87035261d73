package dev.jvmticli.client;

import java.util.List;
import java.util.Map;

/**
 * The answer to {@code vm}.
 *
 * @param properties     the VM's system properties as JVMTI GetSystemProperties sees them
 * @param inputArguments the JVM's input arguments (RuntimeMXBean)
 * @param flags          values and origins of incident-relevant VM flags, by name
 */
public record VmInfo(Map<String, String> properties, long startTimeMillis, long uptimeMillis, List<String> inputArguments,
                     Map<String, Flag> flags) {
    /** Whether the boolean flag name is known and on. */
    public boolean flagOn(String name) {
        Flag flag = flags.get(name);
        return flag != null && flag.value().equals("true");
    }

    /** A VM flag's value and where it came from (DEFAULT, ERGONOMIC, VM_CREATION, ...). */
    public record Flag(String value, String origin) {
    }
}
