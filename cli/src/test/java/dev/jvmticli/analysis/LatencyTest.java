package dev.jvmticli.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LatencyTest {
    /** Buckets as the agent sends them for 90 calls of ~1 ms, 9 of ~20 ms and 1 of ~100 ms. */
    private static final long[][] BUCKETS = {
        {1_015_808, 1_032_192, 90}, // 1 ms lies in [62 << 14, 63 << 14)
        {19_922_944, 20_185_088, 9},
        {100_663_296, 101_711_872, 1},
    };

    @Test
    void theValueAtRankCeilPnIsItsBucketsMidpoint() {
        assertEquals((1_015_808 + 1_032_192) / 2, Latency.percentile(BUCKETS, 1_016_000, 101_000_000, 0.5));
        assertEquals((1_015_808 + 1_032_192) / 2, Latency.percentile(BUCKETS, 1_016_000, 101_000_000, 0.9)); // rank 90
        assertEquals((19_922_944 + 20_185_088) / 2, Latency.percentile(BUCKETS, 1_016_000, 101_000_000, 0.91)); // rank 91
        assertEquals((19_922_944 + 20_185_088) / 2, Latency.percentile(BUCKETS, 1_016_000, 101_000_000, 0.99));
        // the last bucket's midpoint lies above the exact maximum: the maximum it is
        assertEquals(101_000_000, Latency.percentile(BUCKETS, 1_016_000, 101_000_000, 0.999));
    }

    @Test
    void aBucketOfOneNanosecondIsExactAndNoCallsIsZero() {
        assertEquals(7, Latency.percentile(new long[][] {{7, 8, 3}}, 7, 7, 0.5));
        assertEquals(0, Latency.percentile(new long[0][], 0, 0, 0.5));
    }

    @Test
    void theMidpointIsWithinTheStatedErrorOfAnyValueInItsBucket() {
        long low = 64L << 20;
        long high = 65L << 20; // 1/64 of low wide
        long mid = Latency.percentile(new long[][] {{low, high, 1}}, low, high - 1, 1.0);
        assertTrue(mid - low <= low * Latency.RELATIVE_ERROR && high - 1 - mid <= (high - 1) * Latency.RELATIVE_ERROR);
    }
}
