package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;

/**
 * Many classes of one name, for the bounds of a trace session: {@code load N} defines {@link Part}
 * N more times, each in a class loader of its own (so a pattern naming Part matches N loaded
 * classes of 9 methods each); {@code call} calls m1 of each once and answers how many it called;
 * {@code redefinitions} answers how many times the JVM has redefined the Part classes in all, as
 * each Class keeps it (its private classRedefinedCount: the target runs with java.lang opened to
 * it). Written in Java 11, the oldest JDK targets run on.
 */
public final class WideTarget {
    /** By name: a class literal would load Part in the application's loader too. */
    private static final String PART = "dev.jvmticli.targets.WideTarget$Part";
    private static final List<Class<?>> PARTS = new ArrayList<>();

    private WideTarget() {
    }

    /** Defined once per loader: 9 methods. */
    public static final class Part {
        private Part() {
        }

        public static int m1(int x) {
            return x + 1;
        }

        public static int m2(int x) {
            return x + 2;
        }

        public static int m3(int x) {
            return x + 3;
        }

        public static int m4(int x) {
            return x + 4;
        }

        public static int m5(int x) {
            return x + 5;
        }

        public static int m6(int x) {
            return x + 6;
        }

        public static int m7(int x) {
            return x + 7;
        }

        public static int m8(int x) {
            return x + 8;
        }

        public static int m9(int x) {
            return x + 9;
        }
    }

    public static void main(String[] args) throws Exception {
        TargetMain.serve(line -> {
            if (line.startsWith("load ")) {
                for (int i = Integer.parseInt(line.substring(5)); i > 0; i--) {
                    PARTS.add(new PartLoader().define());
                }
                return "loaded " + PARTS.size();
            }
            if (line.equals("call")) {
                int sum = 0;
                for (Class<?> part : PARTS) {
                    try {
                        sum += (Integer) part.getMethod("m1", int.class).invoke(null, 0);
                    } catch (NoSuchMethodException | IllegalAccessException | InvocationTargetException e) {
                        return e.toString();
                    }
                }
                return "called " + sum;
            }
            if (line.equals("redefinitions")) {
                return "redefinitions " + redefinitions();
            }
            return "unknown command " + line;
        });
    }

    private static int redefinitions() {
        try {
            Field count = Class.class.getDeclaredField("classRedefinedCount");
            count.setAccessible(true);
            int sum = 0;
            for (Class<?> part : PARTS) {
                sum += count.getInt(part);
            }
            return sum;
        } catch (NoSuchFieldException | IllegalAccessException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Defines Part from the class path's bytes; everything else comes from the parent. */
    private static final class PartLoader extends ClassLoader {
        PartLoader() {
            super(WideTarget.class.getClassLoader());
        }

        Class<?> define() {
            try (InputStream in = getParent().getResourceAsStream(PART.replace('.', '/') + ".class")) {
                byte[] bytes = in.readAllBytes();
                return defineClass(PART, bytes, 0, bytes.length);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
