#include "lock_owners.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "key_index.h"

/* Owner slots of a hash no thread owns, or that two threads (or two classes) share: two objects
 * with one identity hash, so nobody is named. */
#define OWNER_NONE SIZE_MAX
#define OWNER_AMBIGUOUS (SIZE_MAX - 1)

static int same_class(const char *a, const char *b) {
    return a != NULL && b != NULL && strcmp(a, b) == 0;
}

int lock_owners_match(const lock_subject *subjects, size_t count, lock_facts *facts, unsigned char *unresolved) {
    size_t keys = 0;
    for (size_t i = 0; i < count; i++) {
        keys += (size_t)facts[i].owned_count + (facts[i].waiting == WAIT_ENTER);
    }
    key_index by_hash; /* keys: identity hash */
    key_index_init(&by_hash, sizeof(jint));
    size_t *owner = malloc((keys > 0 ? keys : 1) * sizeof *owner);          /* by key: subject */
    const char **class_of = malloc((keys > 0 ? keys : 1) * sizeof *class_of); /* by key: its class */
    int status = owner != NULL && class_of != NULL ? 0 : -1;

    for (size_t i = 0; i < count && status == 0; i++) {
        /* one of what it lists it let go of, not known which: none is known to be its */
        for (jint k = 0; k < facts[i].owned_count && status == 0 && !facts[i].wait_unnamed; k++) {
            const lock_ref *m = &facts[i].owned[k].lock;
            size_t known = by_hash.count;
            int32_t at = key_index_of(&by_hash, &m->hash);
            if (at < 0) {
                status = -1;
            } else if ((size_t)at == known) {
                owner[at] = i;
                class_of[at] = m->class_name;
            } else if (owner[at] != i || !same_class(class_of[at], m->class_name)) {
                owner[at] = OWNER_AMBIGUOUS;
            }
        }
    }

    for (size_t i = 0; i < count; i++) {
        lock_facts *f = &facts[i];
        if (f->waiting != WAIT_ENTER) {
            continue;
        }
        size_t known = by_hash.count;
        int32_t at = status == 0 ? key_index_of(&by_hash, &f->waits_for.hash) : -1;
        if (at >= 0 && (size_t)at == known) {
            owner[at] = OWNER_NONE;
        }
        int found = at >= 0 && owner[at] < OWNER_AMBIGUOUS && owner[at] != i && same_class(class_of[at], f->waits_for.class_name);
        f->owner_id = found ? subjects[owner[at]].id : -1;
        unresolved[i] = (unsigned char)!found;
    }
    key_index_free(&by_hash);
    free(owner);
    free(class_of);
    return status;
}
