// Command staticllvm is the size reference of BenchmarkHostSize: the
// smallest Go program that links LLVM 22's ORC statically (cgo, the LLJIT
// C API) and creates an in-process LLJIT. Built with CGO_LDFLAGS from
// llvm-config --link-static.
package main

/*
#include <llvm-c/LLJIT.h>
#include <llvm-c/Target.h>
#include <stdio.h>

static int start(void) {
	LLVMInitializeNativeTarget();
	LLVMInitializeNativeAsmPrinter();
	LLVMOrcLLJITRef j;
	LLVMErrorRef err = LLVMOrcCreateLLJIT(&j, 0);
	if (err) return 1;
	puts(LLVMOrcLLJITGetTripleString(j));
	fflush(stdout);
	LLVMOrcDisposeLLJIT(j);
	return 0;
}
*/
import "C"

import "os"

func main() { os.Exit(int(C.start())) }
