#ifndef ORCRT_GDBJIT_H
#define ORCRT_GDBJIT_H

#include <stdint.h>

// The GDB JIT interface, version 1 (gdb/jit.h).
typedef enum { JIT_NOACTION = 0, JIT_REGISTER_FN, JIT_UNREGISTER_FN } jit_actions_t;

struct jit_code_entry {
	struct jit_code_entry *next_entry;
	struct jit_code_entry *prev_entry;
	const char *symfile_addr;
	uint64_t symfile_size;
};

struct jit_descriptor {
	uint32_t version;
	uint32_t action_flag;
	struct jit_code_entry *relevant_entry;
	struct jit_code_entry *first_entry;
};

extern struct jit_descriptor __jit_debug_descriptor;
void __jit_debug_register_code(void);

// orcrt_gdbjit_register pushes a new entry at the head of the list and
// returns it (0 if out of memory).
uintptr_t orcrt_gdbjit_register(uintptr_t addr, uint64_t size, int auto_register);
// orcrt_gdbjit_snapshot copies up to cap entries (head first) into out as
// {entry, symfile_addr, symfile_size} triples and returns the list
// length; it also reports the descriptor's fields.
uint64_t orcrt_gdbjit_snapshot(uint64_t *out, uint64_t cap, uint32_t *version, uint32_t *action, uint64_t *relevant);
// orcrt_gdbjit_last_entry walks to the last (oldest) entry, as
// llvm-jitlink-executor's test-jitloadergdb output does.
uintptr_t orcrt_gdbjit_last_entry(void);
uint64_t orcrt_gdbjit_register_code_calls(void);
uintptr_t orcrt_gdbjit_descriptor_addr(void);
uintptr_t orcrt_gdbjit_register_code_addr(void);

#endif
