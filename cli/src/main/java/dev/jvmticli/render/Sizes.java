package dev.jvmticli.render;

import java.util.Locale;

/** Byte counts and durations for people: {@code 1.5 MiB}, {@code 512 KiB}, {@code 12.3 ms}. */
public final class Sizes {
    private static final String[] UNITS = {"B", "KiB", "MiB", "GiB", "TiB"};

    private Sizes() {
    }

    public static String bytes(long bytes) {
        double value = bytes;
        int unit = 0;
        while (Math.abs(value) >= 1024 && unit < UNITS.length - 1) {
            value /= 1024;
            unit++;
        }
        if (unit == 0) {
            return bytes + " B";
        }
        return (value == Math.rint(value) ? String.format(Locale.ROOT, "%.0f", value) : String.format(Locale.ROOT, "%.1f", value))
                + " " + UNITS[unit];
    }

    public static String millis(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e6);
    }

    public static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e9);
    }

    public static String percent(long part, long whole) {
        return whole <= 0 ? "-" : String.format(Locale.ROOT, "%.1f", 100.0 * part / whole);
    }
}
