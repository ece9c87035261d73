/* HotSpot's description of its own data structures, which libjvm exports for the Serviceability
 * Agent (gHotSpotVMStructs, gHotSpotVMTypes, gHotSpotVMIntConstants and the layout of their
 * entries): field offsets, type sizes and int constants, looked up by name. Other JVMs have none. */
#ifndef JVMTICLI_VM_STRUCTS_H
#define JVMTICLI_VM_STRUCTS_H

#include <stdint.h>

/* An exported array of entries: where each entry's members are, in bytes from its start. An
 * array ends at the first entry whose name member (type_name, or name) is NULL. */
typedef struct {
    const char *first;
    uint64_t stride;
    uint64_t type_name;   /* const char * */
    uint64_t field_name;  /* const char * */
    uint64_t type_string; /* const char *: the field's type */
    uint64_t is_static;   /* int32_t */
    uint64_t offset;      /* uint64_t: a non-static field's offset in its object */
    uint64_t address;     /* void *: a static field's address */
} vm_struct_table;

typedef struct {
    const char *first;
    uint64_t stride;
    uint64_t type_name;   /* const char * */
    uint64_t size;        /* uint64_t */
} vm_type_table;

typedef struct {
    const char *first;
    uint64_t stride;
    uint64_t name;        /* const char * */
    uint64_t value;       /* int32_t */
} vm_int_table;

typedef struct {
    vm_struct_table structs;
    vm_type_table types;
    vm_int_table ints;
} vm_structs;

/* The tables of the libjvm this process runs. Returns 0, or -1 when there is none (not HotSpot)
 * or a layout does not fit its entries. */
int vm_structs_find(vm_structs *vm);

/* A non-static field's offset and type name. Returns 0, or -1 when the table has no such field. */
int vm_structs_field(const vm_structs *vm, const char *type, const char *field, uint64_t *offset,
                     const char **field_type);

/* A static field's address and type name. Returns 0, or -1 when the table has no such field. */
int vm_structs_static(const vm_structs *vm, const char *type, const char *field, uintptr_t *address,
                      const char **field_type);

/* A type's size in bytes. Returns 0, or -1 when unknown. */
int vm_structs_type_size(const vm_structs *vm, const char *type, uint64_t *size);

/* An int constant. Returns 0, or -1 when the table has no such constant. */
int vm_structs_int(const vm_structs *vm, const char *name, int32_t *value);

/* Whether each member lies inside the entry (stride bytes): 1, or 0. For vm_structs_find. */
int vm_structs_layout_fits(const vm_structs *vm);

#endif
