package dev.jvmticli.instrument;

/** Methods of shapes that need stack map frames, for LatencyProbesTest to rewrite and run. */
public final class Sample {
    private int calls;

    public Sample() {
    }

    public static int loop(int n) {
        int sum = 0;
        for (int i = 0; i < n; i++) {
            sum += i % 3 == 0 ? i : -1;
        }
        return sum;
    }

    public long reusesSlots(String s) {
        calls++;
        if (s.isEmpty()) {
            long zero = 0;
            return zero;
        }
        Object o = s;
        double d = s.length();
        return (long) d + o.hashCode() % 1;
    }

    public static int catchesItsOwn(String s) {
        try {
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    public static void throwsOut(boolean really) {
        if (really) {
            throw new IllegalStateException("out");
        }
    }

    /** Calls three others: one returns, one may throw into its own handler, one may throw out of it. */
    public static int callsOthers(String s) {
        int n = s.length();
        try {
            n += Integer.parseInt(s);
        } catch (NumberFormatException e) {
            n = -n;
        }
        throwsOut(n > 100);
        return n;
    }

    public int calls() {
        return calls;
    }
}
