/* The collections `alloc --live` counts (collection_ledger.h). */
#include "collection_ledger.h"

void ledger_init(collection_ledger *ledger, int cleared_in_pauses) {
    ledger->cleared_in_pauses = cleared_in_pauses;
    ledger->settled = 0;
    ledger->pending = 0;
}

static void settle(collection_ledger *ledger, uint32_t newest_cleared) {
    /* past the last slot the last one stands for the rest: ages stay lower bounds */
    ledger->settled += ledger->settled < LEDGER_MAX_COLLECTIONS;
    ledger->newest_cleared[ledger->settled - 1] = newest_cleared;
}

void ledger_observe(collection_ledger *ledger, uint32_t newest_cleared, uint32_t newest_published) {
    if (ledger->cleared_in_pauses) {
        settle(ledger, newest_cleared);
        return;
    }
    if (ledger->pending) {
        if (newest_cleared < ledger->pending_settler) {
            return;
        }
        settle(ledger, ledger->pending_newest);
    }
    ledger->pending = 1;
    ledger->pending_newest = newest_cleared;
    ledger->pending_settler = newest_published + 1;
}

uint32_t ledger_age(const collection_ledger *ledger, uint32_t next_sentinel) {
    size_t low = 0, high = ledger->settled; /* newest_cleared grows: the first one >= next_sentinel */
    while (low < high) {
        size_t mid = (low + high) / 2;
        if (ledger->newest_cleared[mid] < next_sentinel) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    return (uint32_t)(ledger->settled - low);
}
