/* What HotSpot prints as a thread's os_prio on Linux (os::get_native_priority): the thread's nice
 * value only where the JVM sets native priorities itself (UseThreadPriorities with
 * -XX:ThreadPriorityPolicy=1, which HotSpot takes only from root); everywhere else the native
 * priority of NORM_PRIORITY, 0, whatever nice the process runs at. */
#ifndef JVMTICLI_OS_PRIORITY_H
#define JVMTICLI_OS_PRIORITY_H

/* The os_prio of a thread whose nice value is nice. Returns 0, or -1 when the JVM's flags cannot
 * be read (then os_prio is not known). */
int os_priority(int nice, int *os_prio);

#endif
