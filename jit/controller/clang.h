// C and C++ compiled by clang's libraries inside orcrt-jit-controller.
#ifndef ORCRT_JIT_CONTROLLER_CLANG_H
#define ORCRT_JIT_CONTROLLER_CLANG_H

#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

// compileSource compiles Source (named Name in diagnostics) for Triple,
// as `clang -c -fPIC -O2 ARGS NAME` would (ARGS ends in "-x c" or "-x
// c++"), into an LLVM module. A compile error is clang's diagnostics, as
// it prints them ("Name:line:col: error: ...", the line, the caret).
llvm::Expected<llvm::orc::ThreadSafeModule>
compileSource(const std::string &Name, const std::vector<std::string> &Args,
              const std::string &Source, const std::string &Triple);

#endif
