/* Who owns the monitor a thread is blocked entering, when the source of lock facts does not say
 * (ThreadSnapshot): the thread that has that monitor among the ones it owns, matched by identity
 * hash and class name. Pure logic over lock_facts. */
#ifndef JVMTICLI_LOCK_OWNERS_H
#define JVMTICLI_LOCK_OWNERS_H

#include <stddef.h>

#include "lock_facts.h"

/* Sets owner_id of every facts[i] that waits to enter a monitor (WAIT_ENTER): the id of the one
 * subject owning it, or -1 with unresolved[i] set when no subject, or more than one, owns it. What
 * a subject with wait_unnamed lists is not taken to be owned.
 * Returns 0, or -1 when out of memory (then every such facts[i] is left unresolved). */
int lock_owners_match(const lock_subject *subjects, size_t count, lock_facts *facts, unsigned char *unresolved);

#endif
