/* The JVM's own -XX flags, read from its flag table (JVMFlag::flags, described by VMStructs). */
#ifndef JVMTICLI_VM_FLAGS_H
#define JVMTICLI_VM_FLAGS_H

#include <stddef.h>

/* Copies the first size bytes of the named flag's value into value. Returns 0, or -1 when the
 * table cannot be read (not HotSpot) or has no such flag. */
int vm_flag_bytes(const char *name, void *value, size_t size);

#endif
