/* A log-linear histogram of durations in nanoseconds, as HdrHistogram keeps them: below 64 ns one
 * bucket per nanosecond; above, each power of two split into 64 equal buckets, so a bucket is at
 * most 1/64 of its lower bound wide and its midpoint is within 1/128 (0.78%) of any value in it.
 * Counts are exact. Durations from 2^40 ns (18 minutes) up share the last bucket; the exact
 * maximum is kept beside. Recording is lock-free (atomic adds), for probes on many threads. */
#ifndef JVMTICLI_LATENCY_HISTOGRAM_H
#define JVMTICLI_LATENCY_HISTOGRAM_H

#include <stdint.h>

#include "json.h"

#define LATENCY_SUB_BITS 6
#define LATENCY_SUB_BUCKETS (1 << LATENCY_SUB_BITS)
#define LATENCY_TOP_EXPONENT 40
#define LATENCY_BUCKETS (LATENCY_SUB_BUCKETS * (LATENCY_TOP_EXPONENT - LATENCY_SUB_BITS + 2))

typedef struct {
    uint64_t counts[LATENCY_BUCKETS];
    uint64_t calls;
    uint64_t errors;       /* exits by an exception */
    uint64_t total_nanos;
    uint64_t max_nanos;
    uint64_t min_nanos;    /* UINT64_MAX until a call is recorded */
} latency_histogram;

void latency_reset(latency_histogram *h);

/* The bucket of a duration. */
int latency_bucket(uint64_t nanos);

/* The lowest duration in a bucket, and the lowest of the next one. */
uint64_t latency_bucket_low(int bucket);
uint64_t latency_bucket_high(int bucket);

/* Counts one call of the given duration (any thread). */
void latency_record(latency_histogram *h, uint64_t nanos, int error);

/* The fields "maxNanos", "minNanos" (0 with no call) and "buckets" ([low, high, count] of each bucket
 * counted, low ascending; the last bucket's high INT64_MAX) into the object being written. */
void latency_write_json(json_writer *w, const latency_histogram *h);

#endif
