/**
 * Rewriting the target's class files for {@code trace}, with ASM: the agent sends a class's bytes as
 * the JVM holds them, the CLI adds the probes and sends back finished bytes that HotSpot verifies
 * before it takes them. Pure: bytes in, bytes out.
 */
package dev.jvmticli.instrument;
