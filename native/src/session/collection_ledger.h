/* The collections `alloc --live` counts, told by the sentinels they clear (alloc_live.c), and the
 * age they give a sample. Pure bookkeeping: the caller polls the sentinels.
 *
 * A collection that clears sentinel k has marked everything allocated before k. It counts only
 * once it is settled. A collector that clears weak refs inside a pause (Serial, Parallel, G1) is
 * done with a collection once it is seen. ZGC and Shenandoah clear them concurrently, after
 * marking: a poll may find a sentinel cleared while the refs of dead samples older than it are not
 * cleared yet, and crediting those with the collection would report garbage as survivors. There the
 * first poll that finds sentinels cleared opens a pending collection, settled when a later poll
 * finds a sentinel cleared that was allocated after it was opened: that sentinel did not exist
 * when the pending collection began marking, so a later collection cleared it, and collections
 * that clear weak refs do not overlap. Sentinels cleared in between, older than that one, are the
 * pending collection's own late ones. Ages are lower bounds: they leave out a collection still
 * pending, and two that fell between the same polls count as one. */
#ifndef JVMTICLI_COLLECTION_LEDGER_H
#define JVMTICLI_COLLECTION_LEDGER_H

#include <stddef.h>
#include <stdint.h>

#define LEDGER_MAX_COLLECTIONS 8192

typedef struct {
    int cleared_in_pauses;
    uint32_t newest_cleared[LEDGER_MAX_COLLECTIONS]; /* per settled collection: the newest sentinel it cleared */
    size_t settled;
    int pending;                /* a collection seen, not yet settled */
    uint32_t pending_newest;    /* the newest sentinel it had cleared when first seen */
    uint32_t pending_settler;   /* the first sentinel allocated after that */
} collection_ledger;

void ledger_init(collection_ledger *ledger, int cleared_in_pauses);

/* A poll found the sentinels up to newest_cleared cleared; newest_published is the index of the
 * newest sentinel published so far (the next one gets newest_published + 1). */
void ledger_observe(collection_ledger *ledger, uint32_t newest_cleared, uint32_t newest_published);

/* The settled collections that cleared next_sentinel (the sentinel allocated after a sample) or a
 * later one. */
uint32_t ledger_age(const collection_ledger *ledger, uint32_t next_sentinel);

#endif
