//go:build libfuzzer

#ifndef ORCRT_LLVM_ORACLE_H
#define ORCRT_LLVM_ORACLE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

// orcrt_llvm_oracle judges orcrt's decision on one message of the named
// shape (ok: orcrt accepted it, consuming consumed bytes, and re-encoded
// its value as enc) against LLVM 22's deserializer: 1 when they agree, 0
// when they do not (why holds the reason, NUL-terminated, truncated to
// whycap), 2 when LLVM's answer is undefined behaviour (a bool byte other
// than 0 or 1), -1 when the oracle does not know the shape, -2 when it was
// compiled without -fsanitize=bool and cannot tell undefined answers.
int orcrt_llvm_oracle(const char *shape, const char *msg, size_t msglen,
                      int ok, size_t consumed, const char *enc, size_t enclen,
                      char *why, size_t whycap);

// orcrt_llvm_oracle_shapes writes the covered shapes' names, one a line,
// into buf (NUL-terminated, truncated to cap) and returns the full length.
size_t orcrt_llvm_oracle_shapes(char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
