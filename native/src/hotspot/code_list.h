/* The JVM's own account of its compiled code, for the tier and OSR entry of each piece of code
 * (JVMTI's CompiledMethodLoad gives neither). HotSpot's Compiler.codelist diagnostic command, asked
 * through the JVM's attach listener as jcmd asks it (diagnostic_command.h), lists every live nmethod as
 * `compile_id level state name [nmethod, code_begin - code_end]`; code_begin and code_end are
 * exactly the code_addr and code_addr + code_size that CompiledMethodLoad reports, but on JDK 11,
 * whose CompiledMethodLoad reports the instructions alone: there the code ends at the nmethod's
 * stubs, read from the nmethod at the offset of nmethod::_stub_offset the JVM publishes. The OSR bci
 * is not in that list: it is read from the nmethod itself, at the offset of nmethod::_entry_bci
 * that the JVM publishes for its Serviceability Agent (vm_structs.h), through
 * own_memory.h (code freed meanwhile makes the read fail instead of faulting), and only
 * trusted when nmethod::_compile_id read alongside is the listed compile id. */
#ifndef JVMTICLI_CODE_LIST_H
#define JVMTICLI_CODE_LIST_H

#include <stddef.h>
#include <stdint.h>

#define CODE_LIST_BCI_UNKNOWN INT32_MIN

typedef struct {
    uint64_t code_begin;
    uint64_t code_end;
    uint64_t nmethod;
    int32_t compile_id;
    int32_t level;      /* 0: a native or method-handle wrapper, 1-3: C1, 4: C2 */
    int32_t state;      /* 0: in use; else not entrant (or not used) */
    int32_t entry_bci;  /* -1: the method's normal entry, >= 0: OSR at that bci, or CODE_LIST_BCI_UNKNOWN */
    uint64_t instructions_end; /* where the stubs begin, or 0 when unknown */
} code_list_entry;

typedef struct {
    code_list_entry *entries; /* sorted by code_begin */
    size_t count;
    char error[192];
} code_list;

/* Parses Compiler.codelist's output (lines that do not have its shape are skipped); entry_bci is
 * left unknown. 0, or -1 with list->error. */
int code_list_parse(code_list *list, const char *text, size_t length);
/* Asks the JVM this agent runs in, then reads each nmethod's OSR bci. 0, or -1 with list->error. */
int code_list_read(code_list *list);
/* The entry whose code, or whose instructions, are exactly [code_begin, code_end), or NULL. */
const code_list_entry *code_list_find(const code_list *list, uint64_t code_begin, uint64_t code_end);
void code_list_free(code_list *list);

/* How many nmethods in use in before are, in after, not in use or gone (by compile id): the code
 * made not entrant, deoptimized, between the two lists. */
int64_t code_list_left_use(const code_list *before, const code_list *after);

#endif
