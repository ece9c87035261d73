/** The sample JVM that {@code jvmti-cli demo} starts: threads held in known states. */
package dev.jvmticli.demo;
