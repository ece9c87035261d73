#include "elf_symbol.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Past these a file is not taken for a libjvm (whose .symtab holds ~70,000 symbols). */
#define MAX_SECTIONS 4096
#define MAX_TABLE_BYTES (64u << 20)

static int read_at(int fd, void *into, size_t size, uint64_t offset) {
    return pread(fd, into, size, (off_t)offset) == (ssize_t)size ? 0 : -1;
}

/* A whole section, malloc'd; NULL when it cannot be read or is too large. */
static void *read_section(int fd, const Elf64_Shdr *section) {
    if (section->sh_size == 0 || section->sh_size > MAX_TABLE_BYTES) {
        return NULL;
    }
    void *data = malloc(section->sh_size);
    if (data != NULL && read_at(fd, data, section->sh_size, section->sh_offset) != 0) {
        free(data);
        data = NULL;
    }
    return data;
}

static size_t find_in_file(int fd, uintptr_t base, const char *const *names, size_t count, uintptr_t *addresses) {
    Elf64_Ehdr header;
    if (read_at(fd, &header, sizeof header, 0) != 0 || memcmp(header.e_ident, ELFMAG, SELFMAG) != 0
            || header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr)
            || header.e_shnum == 0 || header.e_shnum > MAX_SECTIONS) {
        return 0;
    }
    Elf64_Shdr *sections = malloc(header.e_shnum * sizeof *sections);
    if (sections == NULL || read_at(fd, sections, header.e_shnum * sizeof *sections, header.e_shoff) != 0) {
        free(sections);
        return 0;
    }
    size_t found = 0;
    for (size_t s = 0; s < header.e_shnum && found == 0; s++) {
        if (sections[s].sh_type != SHT_SYMTAB || sections[s].sh_link >= header.e_shnum
                || sections[s].sh_entsize != sizeof(Elf64_Sym)) {
            continue;
        }
        const Elf64_Shdr *strings_section = &sections[sections[s].sh_link];
        Elf64_Sym *symbols = read_section(fd, &sections[s]);
        char *strings = read_section(fd, strings_section);
        size_t symbol_count = sections[s].sh_size / sizeof(Elf64_Sym);
        for (size_t i = 0; symbols != NULL && strings != NULL && i < symbol_count; i++) {
            const Elf64_Sym *symbol = &symbols[i];
            if (symbol->st_name >= strings_section->sh_size || symbol->st_shndx == SHN_UNDEF || symbol->st_value == 0) {
                continue;
            }
            const char *name = strings + symbol->st_name;
            size_t room = strings_section->sh_size - symbol->st_name;
            for (size_t n = 0; n < count; n++) {
                if (addresses[n] == 0 && strnlen(name, room) < room && strcmp(name, names[n]) == 0) {
                    addresses[n] = base + symbol->st_value;
                    found++;
                }
            }
        }
        free(symbols);
        free(strings);
    }
    free(sections);
    return found;
}

size_t elf_symbols_find(const char *anchor, const char *const *names, size_t count, uintptr_t *addresses) {
    memset(addresses, 0, count * sizeof *addresses);
    Dl_info info;
    void *exported = dlsym(RTLD_DEFAULT, anchor);
    if (exported == NULL || dladdr(exported, &info) == 0 || info.dli_fname == NULL || info.dli_fbase == NULL) {
        return 0;
    }
    int fd = open(info.dli_fname, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return 0;
    }
    size_t found = find_in_file(fd, (uintptr_t)info.dli_fbase, names, count, addresses);
    close(fd);
    return found;
}
