/**
 * The agent payload: the native agent library, carried in this jar under
 * {@code dev/jvmticli/native/<os>-<arch>/}, and {@link dev.jvmticli.payload.AgentLibrary},
 * which extracts it once, named by its content hash, into a private directory that the
 * target JVM can read, without following links and with the hash verified before each use.
 */
package dev.jvmticli.payload;
