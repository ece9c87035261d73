/**
 * Pure analysis of a {@link dev.jvmticli.client.StackDump}: the wait-for graph and its cycles
 * (deadlocks), the locks seen from the lock's side, ownable synchronizers by owner, and threads
 * grouped by identical stacks. No I/O here.
 */
package dev.jvmticli.analysis;
