package dev.jvmticli.targets;

import dev.jvmticli.testing.TargetMain;

/**
 * More BLOCKED threads than one request may ask GetObjectMonitorUsage about (300 waiting to enter
 * one monitor its holder keeps), next to threads that fight over three monitors without pause:
 * those move between a moment and its facts, so a dump retries them.
 */
public final class MonitorCrowdTarget {
    public static final int CROWD = 300;
    private static final Object HELD = new Object();
    private static final Object[] HOT = {new Object(), new Object(), new Object()};
    static volatile long sink;

    private MonitorCrowdTarget() {
    }

    public static void main(String[] args) throws Exception {
        TargetMain.start("holder", () -> {
            synchronized (HELD) {
                LocksTarget.sleepForever();
            }
        });
        Thread.sleep(200);
        for (int i = 0; i < CROWD; i++) {
            TargetMain.start("crowd-" + i, () -> {
                synchronized (HELD) {
                    sink++;
                }
            });
        }
        for (int i = 0; i < 48; i++) {
            Object hot = HOT[i % HOT.length];
            TargetMain.start("fight-" + i, () -> {
                while (true) {
                    synchronized (hot) {
                        for (int k = 0; k < 2_000; k++) {
                            sink += k;
                        }
                    }
                }
            });
        }
        TargetMain.serve();
    }
}
