/**
 * Creating files where another user may write, without following that user's links:
 * {@link dev.jvmticli.files.VerifiedDirectory} holds a directory open by descriptor, checked after
 * opening, and creates, renames and removes entries relative to it, optionally with another user's
 * file-system credentials.
 */
package dev.jvmticli.files;
