#include "vm_structs.h"

#include <dlfcn.h>
#include <string.h>

/* HotSpot's tables hold a few thousand entries; past this an array is taken as unterminated. */
#define MAX_ENTRIES 100000
#define MAX_STRIDE 4096

static const char *entry(const char *first, uint64_t stride, size_t i) {
    return first + i * stride;
}

static const char *string_member(const char *e, uint64_t offset) {
    const char *s;
    memcpy(&s, e + offset, sizeof s);
    return s;
}

static uint64_t u64_member(const char *e, uint64_t offset) {
    uint64_t v;
    memcpy(&v, e + offset, sizeof v);
    return v;
}

static int32_t i32_member(const char *e, uint64_t offset) {
    int32_t v;
    memcpy(&v, e + offset, sizeof v);
    return v;
}

static int member_fits(uint64_t stride, uint64_t offset, uint64_t size) {
    return offset <= stride && size <= stride - offset;
}

int vm_structs_layout_fits(const vm_structs *vm) {
    const vm_struct_table *s = &vm->structs;
    const vm_type_table *t = &vm->types;
    const vm_int_table *c = &vm->ints;
    return s->stride <= MAX_STRIDE && t->stride <= MAX_STRIDE && c->stride <= MAX_STRIDE
           && member_fits(s->stride, s->type_name, sizeof(char *)) && member_fits(s->stride, s->field_name, sizeof(char *))
           && member_fits(s->stride, s->type_string, sizeof(char *)) && member_fits(s->stride, s->is_static, sizeof(int32_t))
           && member_fits(s->stride, s->offset, sizeof(uint64_t)) && member_fits(s->stride, s->address, sizeof(void *))
           && member_fits(t->stride, t->type_name, sizeof(char *)) && member_fits(t->stride, t->size, sizeof(uint64_t))
           && member_fits(c->stride, c->name, sizeof(char *)) && member_fits(c->stride, c->value, sizeof(int32_t));
}

/* The first entry, before the one whose name member is NULL, whose name member is name and, when
 * second is not NULL, whose member at second_at is second. NULL when none is. */
static const char *entry_named(const char *first, uint64_t stride, uint64_t name_at, const char *name,
                               uint64_t second_at, const char *second) {
    for (size_t i = 0; first != NULL && i < MAX_ENTRIES; i++) {
        const char *e = entry(first, stride, i);
        const char *entry_name = string_member(e, name_at);
        if (entry_name == NULL) {
            break;
        }
        const char *entry_second = second == NULL ? NULL : string_member(e, second_at);
        if (strcmp(entry_name, name) == 0 && (second == NULL || (entry_second != NULL && strcmp(entry_second, second) == 0))) {
            return e;
        }
    }
    return NULL;
}

int vm_structs_field(const vm_structs *vm, const char *type, const char *field, uint64_t *offset,
                     const char **field_type) {
    const vm_struct_table *s = &vm->structs;
    const char *e = entry_named(s->first, s->stride, s->type_name, type, s->field_name, field);
    if (e == NULL || i32_member(e, s->is_static) != 0) {
        return -1;
    }
    *offset = u64_member(e, s->offset);
    *field_type = string_member(e, s->type_string);
    return 0;
}

int vm_structs_static(const vm_structs *vm, const char *type, const char *field, uintptr_t *address,
                      const char **field_type) {
    const vm_struct_table *s = &vm->structs;
    const char *e = entry_named(s->first, s->stride, s->type_name, type, s->field_name, field);
    if (e == NULL || i32_member(e, s->is_static) == 0) {
        return -1;
    }
    const char *where = string_member(e, s->address);
    *address = (uintptr_t)where;
    *field_type = string_member(e, s->type_string);
    return where == NULL ? -1 : 0;
}

int vm_structs_type_size(const vm_structs *vm, const char *type, uint64_t *size) {
    const vm_type_table *t = &vm->types;
    const char *e = entry_named(t->first, t->stride, t->type_name, type, 0, NULL);
    if (e == NULL) {
        return -1;
    }
    *size = u64_member(e, t->size);
    return 0;
}

int vm_structs_int(const vm_structs *vm, const char *name, int32_t *value) {
    const vm_int_table *c = &vm->ints;
    const char *e = entry_named(c->first, c->stride, c->name, name, 0, NULL);
    if (e == NULL) {
        return -1;
    }
    *value = i32_member(e, c->value);
    return 0;
}

/* An exported uint64_t of libjvm (an entry layout member). */
static int exported_u64(void *lib, const char *symbol, uint64_t *value) {
    const uint64_t *p = dlsym(lib, symbol);
    if (p == NULL) {
        return -1;
    }
    *value = *p;
    return 0;
}

/* An exported array pointer of libjvm (gHotSpotVMStructs and the like). */
static int exported_array(void *lib, const char *symbol, const char **first) {
    const char *const *p = dlsym(lib, symbol);
    if (p == NULL || *p == NULL) {
        return -1;
    }
    *first = *p;
    return 0;
}

static int read_tables(void *lib, vm_structs *vm) {
    vm_struct_table *s = &vm->structs;
    vm_type_table *t = &vm->types;
    vm_int_table *c = &vm->ints;
    int missing = exported_array(lib, "gHotSpotVMStructs", &s->first)
                  | exported_u64(lib, "gHotSpotVMStructEntryArrayStride", &s->stride)
                  | exported_u64(lib, "gHotSpotVMStructEntryTypeNameOffset", &s->type_name)
                  | exported_u64(lib, "gHotSpotVMStructEntryFieldNameOffset", &s->field_name)
                  | exported_u64(lib, "gHotSpotVMStructEntryTypeStringOffset", &s->type_string)
                  | exported_u64(lib, "gHotSpotVMStructEntryIsStaticOffset", &s->is_static)
                  | exported_u64(lib, "gHotSpotVMStructEntryOffsetOffset", &s->offset)
                  | exported_u64(lib, "gHotSpotVMStructEntryAddressOffset", &s->address)
                  | exported_array(lib, "gHotSpotVMTypes", &t->first)
                  | exported_u64(lib, "gHotSpotVMTypeEntryArrayStride", &t->stride)
                  | exported_u64(lib, "gHotSpotVMTypeEntryTypeNameOffset", &t->type_name)
                  | exported_u64(lib, "gHotSpotVMTypeEntrySizeOffset", &t->size)
                  | exported_array(lib, "gHotSpotVMIntConstants", &c->first)
                  | exported_u64(lib, "gHotSpotVMIntConstantEntryArrayStride", &c->stride)
                  | exported_u64(lib, "gHotSpotVMIntConstantEntryNameOffset", &c->name)
                  | exported_u64(lib, "gHotSpotVMIntConstantEntryValueOffset", &c->value);
    return missing != 0 || !vm_structs_layout_fits(vm) ? -1 : 0;
}

int vm_structs_find(vm_structs *vm) {
    memset(vm, 0, sizeof *vm);
    if (read_tables(RTLD_DEFAULT, vm) == 0) {
        return 0;
    }
    /* a launcher that opened libjvm without RTLD_GLOBAL */
    void *lib = dlopen("libjvm.so", RTLD_LAZY | RTLD_NOLOAD);
    if (lib == NULL) {
        return -1;
    }
    memset(vm, 0, sizeof *vm);
    int found = read_tables(lib, vm);
    dlclose(lib);
    return found;
}
