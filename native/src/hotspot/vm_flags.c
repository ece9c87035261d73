#include "vm_flags.h"

#include <stdint.h>
#include <string.h>

#include "vm_structs.h"

typedef struct {
    const char *first;
    uint64_t stride;
    uint64_t count;
    uint64_t name;    /* const char * */
    uint64_t address; /* void *: where the value lives */
} flag_table;

static int find_table(flag_table *table) {
    vm_structs vm;
    if (vm_structs_find(&vm) != 0) {
        return -1;
    }
    const char *ignored;
    uintptr_t flags_at, count_at;
    if (vm_structs_static(&vm, "JVMFlag", "flags", &flags_at, &ignored) != 0
        || vm_structs_static(&vm, "JVMFlag", "numFlags", &count_at, &ignored) != 0
        || vm_structs_field(&vm, "JVMFlag", "_name", &table->name, &ignored) != 0
        || vm_structs_field(&vm, "JVMFlag", "_addr", &table->address, &ignored) != 0
        || vm_structs_type_size(&vm, "JVMFlag", &table->stride) != 0
        || table->name + sizeof(char *) > table->stride || table->address + sizeof(void *) > table->stride) {
        return -1;
    }
    memcpy(&table->first, (const void *)flags_at, sizeof table->first);
    memcpy(&table->count, (const void *)count_at, sizeof table->count);
    return table->first == NULL ? -1 : 0;
}

int vm_flag_bytes(const char *name, void *value, size_t size) {
    flag_table table;
    if (find_table(&table) != 0) {
        return -1;
    }
    for (uint64_t i = 0; i < table.count; i++) {
        const char *entry = table.first + i * table.stride;
        const char *flag_name;
        const void *address;
        memcpy(&flag_name, entry + table.name, sizeof flag_name);
        if (flag_name == NULL) {
            break;
        }
        if (strcmp(flag_name, name) == 0) {
            memcpy(&address, entry + table.address, sizeof address);
            if (address == NULL) {
                return -1;
            }
            memcpy(value, address, size);
            return 0;
        }
    }
    return -1;
}
