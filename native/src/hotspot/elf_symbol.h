/* Symbols of a loaded library that only its own symbol table (.symtab) names: HotSpot keeps the
 * list of its non-Java threads and its classes' vtables there, not among the exported symbols
 * dlsym finds. Read from the library's file on disk, as the Serviceability Agent does; a stripped
 * library has no .symtab, and then nothing is found. */
#ifndef JVMTICLI_ELF_SYMBOL_H
#define JVMTICLI_ELF_SYMBOL_H

#include <stddef.h>
#include <stdint.h>

/* For each names[i] (mangled), sets addresses[i] to where that symbol is in this process, or 0 when
 * the file of the library that holds the exported symbol anchor (dlsym) does not define it.
 * Returns how many were found. */
size_t elf_symbols_find(const char *anchor, const char *const *names, size_t count, uintptr_t *addresses);

#endif
