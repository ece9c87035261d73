package dev.jvmticli.render;

import dev.jvmticli.client.MethodRef;
import java.util.List;

/** JVM names as a Java programmer writes them: {@code Ljava/lang/String;} is {@code java.lang.String}, {@code [B} is {@code byte[]}. */
public final class JvmNames {
    private JvmNames() {
    }

    public static String className(String signature) {
        if (signature == null) {
            return "?";
        }
        int dims = 0;
        while (dims < signature.length() && signature.charAt(dims) == '[') {
            dims++;
        }
        String element = signature.substring(dims);
        String name = switch (element) {
            case "Z" -> "boolean";
            case "B" -> "byte";
            case "C" -> "char";
            case "S" -> "short";
            case "I" -> "int";
            case "J" -> "long";
            case "F" -> "float";
            case "D" -> "double";
            case "V" -> "void";
            default -> binaryName(element.startsWith("L") && element.endsWith(";") ? element.substring(1, element.length() - 1) : element);
        };
        return name + "[]".repeat(dims);
    }

    /** An internal name as Class.getName() has it: a hidden class's '.' (a lambda's {@code $$Lambda.0x...}) is its '/'. */
    private static String binaryName(String internal) {
        StringBuilder name = new StringBuilder(internal.length());
        for (int i = 0; i < internal.length(); i++) {
            char c = internal.charAt(i);
            name.append(c == '/' ? '.' : c == '.' ? '/' : c);
        }
        return name.toString();
    }

    /** {@code pkg.Class.method}, or {@code ?} for an index the answer does not hold. */
    public static String method(List<MethodRef> methods, long index) {
        if (index < 0 || index >= methods.size()) {
            return "?";
        }
        MethodRef m = methods.get((int) index);
        return className(m.classSignature()) + "." + (m.name() == null ? "?" : m.name());
    }

    /** {@code pkg.Class.method:line} for a frame {@code [method, bci, line]}. */
    public static String frame(List<MethodRef> methods, long[] frame) {
        String method = method(methods, frame[0]);
        return frame.length > 2 && frame[2] >= 0 ? method + ":" + frame[2] : method;
    }

    /**
     * The innermost frame whose method the agent said is not the JDK's (the innermost frame itself
     * when it is application code); null at a frame it could not tell, or when every frame is the JDK's.
     */
    public static String applicationFrame(List<MethodRef> methods, long[][] frames) {
        for (long[] frame : frames) {
            MethodRef method = frame[0] >= 0 && frame[0] < methods.size() ? methods.get((int) frame[0]) : null;
            if (method == null || method.jdk() == null) {
                return null;
            }
            if (!method.jdk()) {
                return frame(methods, frame);
            }
        }
        return null;
    }

    /** A site, followed by the application frame that led to it when the site is the JDK's. */
    public static String siteWithCaller(String site, String applicationFrame) {
        return applicationFrame == null || applicationFrame.equals(site) ? site : site + " <- " + applicationFrame;
    }
}
