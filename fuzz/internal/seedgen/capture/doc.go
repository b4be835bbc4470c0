// Package capture reads the sessions fuzz/internal/seedgen records
// between a real llvm-jitlink and its stock executor, and names what the
// controller called: seedgen turns them into wire and SPS seeds, and
// fuzz/executorfuzz (which owns the placeholder encoding) into executor
// seeds.
//
// A session NAME is two files in one directory: NAME.c2e, the bytes the
// controller sent, and NAME.e2c, the bytes the executor sent. NAME is
// llvmN-PROGRAM, N the LLVM major release.
//
// Used by one goroutine at a time: seedgen, and a test of executorfuzz.
package capture
