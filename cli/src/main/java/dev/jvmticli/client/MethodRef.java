package dev.jvmticli.client;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A method an answer refers to by index: JVM class signature, name and descriptor (null when unloaded).
 * jdk, where the answer tells it: whether the method's class was defined by the boot or the platform
 * class loader (true), another loader (false), or it could not be told (null).
 */
public record MethodRef(@JsonProperty("class") String classSignature, String name, String signature, Boolean jdk) {
    public MethodRef(String classSignature, String name, String signature) {
        this(classSignature, name, signature, null);
    }
}
