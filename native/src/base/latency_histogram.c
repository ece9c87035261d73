#include "latency_histogram.h"

#include <string.h>

void latency_reset(latency_histogram *h) {
    memset(h, 0, sizeof *h);
    h->min_nanos = UINT64_MAX;
}

int latency_bucket(uint64_t nanos) {
    if (nanos < LATENCY_SUB_BUCKETS) {
        return (int)nanos;
    }
    int exponent = 63 - __builtin_clzll(nanos);
    if (exponent > LATENCY_TOP_EXPONENT) {
        return LATENCY_BUCKETS - 1;
    }
    int shift = exponent - LATENCY_SUB_BITS;
    int sub = (int)(nanos >> shift) - LATENCY_SUB_BUCKETS;
    return LATENCY_SUB_BUCKETS * (shift + 1) + sub;
}

uint64_t latency_bucket_low(int bucket) {
    if (bucket < LATENCY_SUB_BUCKETS) {
        return (uint64_t)bucket;
    }
    int shift = bucket / LATENCY_SUB_BUCKETS - 1;
    uint64_t sub = (uint64_t)(bucket % LATENCY_SUB_BUCKETS);
    return (LATENCY_SUB_BUCKETS + sub) << shift;
}

uint64_t latency_bucket_high(int bucket) {
    if (bucket == LATENCY_BUCKETS - 1) {
        return UINT64_MAX;
    }
    return latency_bucket_low(bucket + 1);
}

static void raise_to(uint64_t *slot, uint64_t value) {
    uint64_t seen = __atomic_load_n(slot, __ATOMIC_RELAXED);
    while (value > seen && !__atomic_compare_exchange_n(slot, &seen, value, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

static void lower_to(uint64_t *slot, uint64_t value) {
    uint64_t seen = __atomic_load_n(slot, __ATOMIC_RELAXED);
    while (value < seen && !__atomic_compare_exchange_n(slot, &seen, value, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

void latency_record(latency_histogram *h, uint64_t nanos, int error) {
    __atomic_add_fetch(&h->counts[latency_bucket(nanos)], 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&h->calls, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&h->total_nanos, nanos, __ATOMIC_RELAXED);
    if (error) {
        __atomic_add_fetch(&h->errors, 1, __ATOMIC_RELAXED);
    }
    raise_to(&h->max_nanos, nanos);
    lower_to(&h->min_nanos, nanos);
}

void latency_write_json(json_writer *w, const latency_histogram *h) {
    json_field_int(w, "maxNanos", (int64_t)h->max_nanos);
    json_field_int(w, "minNanos", h->calls == 0 ? 0 : (int64_t)h->min_nanos);
    json_begin_array_field(w, "buckets");
    for (int b = 0; b < LATENCY_BUCKETS; b++) {
        if (h->counts[b] != 0) {
            json_begin_array(w);
            json_int(w, (int64_t)latency_bucket_low(b));
            json_int(w, b == LATENCY_BUCKETS - 1 ? INT64_MAX : (int64_t)latency_bucket_high(b));
            json_int(w, (int64_t)h->counts[b]);
            json_end_array(w);
        }
    }
    json_end_array(w);
}
