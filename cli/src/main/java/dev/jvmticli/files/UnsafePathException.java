package dev.jvmticli.files;

import java.io.IOException;

/** A path refused because another user could redirect or read what would be written there. */
public final class UnsafePathException extends IOException {
    public UnsafePathException(String message) {
        super(message);
    }
}
