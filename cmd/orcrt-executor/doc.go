// Command orcrt-executor is a drop-in replacement for LLVM 22's
// llvm-jitlink-executor, built on orcrt (package executor): run
//
//	llvm-jitlink -oop-executor=/path/to/orcrt-executor prog.o
//
// and llvm-jitlink links and runs prog.o in this process exactly as with
// LLVM's own executor.
//
// Usage, as the stock executor:
//
//	orcrt-executor [test-jitloadergdb] filedescs=<infd>,<outfd> [args...]
//	orcrt-executor [test-jitloadergdb] listen=<host>:<port> [args...]
//
// plus the orcrt extension unix=<path> (accept one Unix-domain
// connection). Trailing args are ignored; test-jitloadergdb prints
// __jit_debug_descriptor's last entry to stderr before and after the
// session. Usage errors print the stock text and exit 1; a fatal protocol
// error prints "<argv0>: <message>" and exits 1; a session that ends
// normally exits 0. A fatal signal in JIT'd code kills the process by
// that signal, as in the stock executor (package rt/fatalsig).
//
// Once the controller has gone (end of input, a fatal protocol error),
// calls still running in JIT'd code are waited for at most
// ORCRT_DRAIN_TIMEOUT (a Go duration, default 10s; 0 waits for ever, as
// the stock executor does); then the executor prints
// "<argv0>: executor: calls into JIT'd code still running ..." and exits
// 1 instead of outliving its controller. A message larger than
// ORCRT_MAX_MESSAGE_SIZE bytes (default 1 GiB) ends the session with
// "<argv0>: Message size N exceeds the limit of M bytes"; the stock
// executor allocates whatever a header claims.
//
// The executor serves with GOMAXPROCS 1 (its Go code is glue between the
// pipe and native code; JIT'd code runs on threads of its own) unless the
// GOMAXPROCS variable says otherwise, and it links libstdc++, libgcc_s
// and libm as the stock executor does, so they are loaded before the
// session starts.
//
// A leading -v, or ORCRT_LOG=debug in the environment, logs the protocol
// traffic (log/slog, text) to stderr. Nothing is ever written to stdout
// but JIT'd programs' own output.
package main
