#include "big_block.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

/* Which mappings are big blocks, so that free() can tell one from a malloc block without reading
 * the memory around the pointer. */
static struct {
    void *start;
    size_t bytes;
} slots[BIG_BLOCK_SLOTS];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t page_round(size_t bytes) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return bytes > SIZE_MAX - page ? 0 : (bytes + page - 1) / page * page;
}

/* The slot of `block`, or -1; called with slots_lock held. */
static int slot_of(const void *block) {
    for (int i = 0; i < BIG_BLOCK_SLOTS; i++) {
        if (slots[i].start == block) {
            return i;
        }
    }
    return -1;
}

static int is_page_aligned(const void *block) {
    return block != NULL && (uintptr_t)block % (uintptr_t)sysconf(_SC_PAGESIZE) == 0;
}

void *big_block_map(size_t bytes) {
    size_t mapped = page_round(bytes);
    if (mapped == 0) {
        return NULL;
    }
    void *block = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) {
        return NULL;
    }
    pthread_mutex_lock(&slots_lock);
    int free_slot = slot_of(NULL);
    if (free_slot >= 0) {
        slots[free_slot].start = block;
        slots[free_slot].bytes = mapped;
    }
    pthread_mutex_unlock(&slots_lock);
    if (free_slot < 0) {
        munmap(block, mapped); /* the mapping just made: cannot fail */
        return NULL;
    }
    return block;
}

size_t big_block_size(const void *block) {
    if (!is_page_aligned(block)) {
        return 0;
    }
    pthread_mutex_lock(&slots_lock);
    int slot = slot_of(block);
    size_t bytes = slot < 0 ? 0 : slots[slot].bytes;
    pthread_mutex_unlock(&slots_lock);
    return bytes;
}

void *big_block_remap(void *block, size_t bytes) {
    size_t mapped = page_round(bytes);
    if (!is_page_aligned(block) || mapped == 0) {
        return NULL;
    }
    void *moved = NULL;
    pthread_mutex_lock(&slots_lock);
    int slot = slot_of(block);
    if (slot >= 0) {
        moved = mremap(block, slots[slot].bytes, mapped, MREMAP_MAYMOVE);
        if (moved == MAP_FAILED) {
            moved = NULL;
        } else {
            slots[slot].start = moved;
            slots[slot].bytes = mapped;
        }
    }
    pthread_mutex_unlock(&slots_lock);
    return moved;
}

size_t big_block_unmap(void *block) {
    if (!is_page_aligned(block)) {
        return 0;
    }
    pthread_mutex_lock(&slots_lock);
    int slot = slot_of(block);
    size_t bytes = 0;
    if (slot >= 0) {
        bytes = slots[slot].bytes;
        slots[slot].start = NULL;
        slots[slot].bytes = 0;
    }
    pthread_mutex_unlock(&slots_lock);
    if (bytes > 0) {
        munmap(block, bytes); /* fails only for an address that is not a mapping's, never a slot's */
    }
    return bytes;
}
