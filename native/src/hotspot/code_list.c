#include "code_list.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diagnostic_command.h"
#include "own_memory.h"
#include "vm_structs.h"

#define CODE_LIST_MAX_ANSWER (64u << 20)
#define CODE_LIST_TIMEOUT_SECONDS 10

static int by_code_begin(const void *a, const void *b) {
    const code_list_entry *x = a;
    const code_list_entry *y = b;
    return x->code_begin < y->code_begin ? -1 : x->code_begin > y->code_begin;
}

/* One line: `id level state name [0xnmethod, 0xbegin - 0xend]`. 1 when it has that shape. */
static int parse_line(const char *line, const char *end, code_list_entry *out) {
    char copy[4096];
    size_t length = (size_t)(end - line);
    if (length >= sizeof copy) {
        return 0; /* a method whose name and signature take over 4000 bytes: left unknown */
    }
    memcpy(copy, line, length);
    copy[length] = '\0';
    int id, level, state;
    if (sscanf(copy, "%d %d %d ", &id, &level, &state) != 3) {
        return 0;
    }
    const char *bracket = strrchr(copy, '[');
    unsigned long long nmethod, begin, stop;
    char close;
    if (bracket == NULL || sscanf(bracket, "[%llx, %llx - %llx%c", &nmethod, &begin, &stop, &close) != 4 || close != ']') {
        return 0;
    }
    *out = (code_list_entry){ begin, stop, nmethod, id, level, state, CODE_LIST_BCI_UNKNOWN, 0 };
    return 1;
}

int code_list_parse(code_list *list, const char *text, size_t length) {
    memset(list, 0, sizeof *list);
    size_t lines = 1;
    for (size_t i = 0; i < length; i++) {
        lines += text[i] == '\n';
    }
    list->entries = calloc(lines, sizeof *list->entries);
    if (list->entries == NULL) {
        snprintf(list->error, sizeof list->error, "out of memory");
        return -1;
    }
    const char *end = text + length;
    for (const char *line = text; line < end;) {
        const char *newline = memchr(line, '\n', (size_t)(end - line));
        const char *stop = newline == NULL ? end : newline;
        list->count += parse_line(line, stop, &list->entries[list->count]);
        line = stop + 1;
    }
    qsort(list->entries, list->count, sizeof *list->entries, by_code_begin);
    return 0;
}

/* Each nmethod's OSR bci and where its instructions end, trusted only when its compile id is the listed one. */
static void read_nmethods(code_list *list) {
    vm_structs vm;
    uint64_t bci_offset, id_offset, stub_offset;
    const char *type;
    if (vm_structs_find(&vm) != 0 || vm_structs_field(&vm, "nmethod", "_entry_bci", &bci_offset, &type) != 0
            || vm_structs_field(&vm, "nmethod", "_compile_id", &id_offset, &type) != 0) {
        return;
    }
    int has_stubs = vm_structs_field(&vm, "nmethod", "_stub_offset", &stub_offset, &type) == 0 && strcmp(type, "int") == 0;
    for (size_t i = 0; i < list->count; i++) {
        code_list_entry *e = &list->entries[i];
        int32_t id, bci, stubs = 0;
        own_read reads[] = {
            { (uintptr_t)(e->nmethod + id_offset), &id, sizeof id, 0 },
            { (uintptr_t)(e->nmethod + bci_offset), &bci, sizeof bci, 0 },
            { (uintptr_t)(e->nmethod + (has_stubs ? stub_offset : 0)), &stubs, sizeof stubs, 0 },
        };
        own_memory_read_each(reads, has_stubs ? 3 : 2);
        if (!reads[0].ok || id != e->compile_id) {
            continue;
        }
        if (reads[1].ok && bci >= -1) {
            e->entry_bci = bci;
        }
        if (has_stubs && reads[2].ok && stubs > 0 && e->nmethod + (uint64_t)stubs > e->code_begin
                && e->nmethod + (uint64_t)stubs <= e->code_end) {
            e->instructions_end = e->nmethod + (uint64_t)stubs;
        }
    }
}

int code_list_read(code_list *list) {
    char error[sizeof list->error] = "";
    size_t length = 0;
    char *text = diagnostic_command_run("Compiler.codelist", CODE_LIST_MAX_ANSWER, CODE_LIST_TIMEOUT_SECONDS,
                                        error, sizeof error, &length);
    if (text == NULL) {
        memset(list, 0, sizeof *list);
        memcpy(list->error, error, sizeof error);
        return -1;
    }
    int parsed = code_list_parse(list, text, length);
    free(text);
    if (parsed == 0) {
        read_nmethods(list);
    }
    return parsed;
}

const code_list_entry *code_list_find(const code_list *list, uint64_t code_begin, uint64_t code_end) {
    code_list_entry key = { .code_begin = code_begin };
    const code_list_entry *e = list->entries == NULL ? NULL
            : bsearch(&key, list->entries, list->count, sizeof key, by_code_begin);
    return e != NULL && (e->code_end == code_end || (e->instructions_end != 0 && e->instructions_end == code_end)) ? e : NULL;
}

void code_list_free(code_list *list) {
    free(list->entries);
    list->entries = NULL;
    list->count = 0;
}

static int by_compile_id(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a;
    int32_t y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

int64_t code_list_left_use(const code_list *before, const code_list *after) {
    int32_t *in_use = malloc((after->count + 1) * sizeof *in_use);
    if (in_use == NULL) {
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < after->count; i++) {
        if (after->entries[i].state == 0) {
            in_use[n++] = after->entries[i].compile_id;
        }
    }
    qsort(in_use, n, sizeof *in_use, by_compile_id);
    int64_t left = 0;
    for (size_t i = 0; i < before->count; i++) {
        int32_t id = before->entries[i].compile_id;
        left += before->entries[i].state == 0 && bsearch(&id, in_use, n, sizeof *in_use, by_compile_id) == NULL;
    }
    free(in_use);
    return left;
}
