package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A method an answer refers to by index: JVM class signature, name and descriptor (null when unloaded). */
public record MethodRef(@JsonProperty("class") String classSignature, String name, String signature) {
}
