/**
 * Creating files where another user may write, without following that user's links:
 * {@link dev.jvmticli.files.VerifiedDirectory} holds a directory open by descriptor, checked after
 * opening, and creates, renames and removes entries relative to it, optionally with another user's
 * file-system credentials.
 * <p>
 * Files the CLI creates where another user may be able to write: {@link dev.jvmticli.files.OwnDirectory},
 * a directory opened once without following a link and checked after opening, in which every file is
 * created new relative to the open directory; and {@link dev.jvmticli.files.OutputFile}, a file a person
 * names ({@code --html FILE}, the shell's {@code > FILE}), which is never reached through a link and
 * never another user's file. {@link dev.jvmticli.files.UnsafePathException} is the refusal of either.
 */
package dev.jvmticli.files;
