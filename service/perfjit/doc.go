// Package perfjit implements LLVM's JITLoaderPerf on the executor side,
// so that Linux perf names JIT'd functions: the process symbols
// llvm_orc_registerJITLoaderPerfStart, llvm_orc_registerJITLoaderPerfImpl
// and llvm_orc_registerJITLoaderPerfEnd, which the controllers of LLVM 19
// and 22 look up and call when run with -perf-support (docs/protocol.md
// §5.8). Debian's stock executors do not export them.
//
// Start creates perf's jitdump file, jit-PID.dump, in a new directory
// $JITDUMPDIR/.debug/jit/llvm-IR-jit-YYYYMMDD-XXXXXX ($HOME when
// JITDUMPDIR is unset), as LLVM's own implementation does, and maps its
// first page executable so that `perf record` notes the file and `perf
// inject --jit` finds it. Each Impl call (a finalize allocation action)
// appends the batch's debug-info, unwinding and code-load records; a
// code-load record carries a copy of the function's code. Every code
// load is also appended to perf's symbol map /tmp/perf-PID.map, for
// tools that read only that, and named in native/jitsyms, for the executor's
// own crash reports. End writes the close record and closes the
// file; so does the end of the Session that started it.
//
// Records are hostile input: the batch is bounds-checked while decoded,
// and every range of executor memory it names (code, .eh_frame,
// .eh_frame_hdr) is probed page by page before it is copied, so a bad
// address ends the call with an error and writes nothing.
//
// A process has one jitdump file: the state is process-global, and
// Sessions that start it share it (the file closes when the last one
// ends). Every function is safe for concurrent use.
package perfjit
