// Command orcrt-executor is a drop-in replacement for the
// llvm-jitlink-executor and lli-child-target of LLVM 14, 15, 16, 19 and
// 22, one binary for all (it speaks the dialect of the controller that
// starts it), built on orcrt (package executor): run
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
// connection), and lli-child-target's `<infd> <outfd>`, two bare
// descriptor numbers (what `lli -remote-mcjit` passes its child), as
// filedescs=<infd>,<outfd>. Trailing args are ignored; test-jitloadergdb
// prints __jit_debug_descriptor's last entry to stderr before and after
// the session. With port 0, listen= picks a free port and says which on
// stderr, "orcrt-executor: listening on 127.0.0.1:40123" (the stock
// prints nothing in listen mode, nor does orcrt for an explicit port).
// -h/--help prints the usage, modes and environment variables, and
// --version the orcrt, Go and LLVM versions, to stdout (exit 0). Usage
// errors print the stock error line, then orcrt-executor's usage, and
// exit 1; a fatal protocol error prints "<argv0>: <message>" and exits 1;
// a session that ends normally exits 0. A fatal signal in JIT'd code kills the process by
// that signal, as in the stock executor (package native/fatalsig).
//
// Once the controller has gone, calls still running in JIT'd code are
// waited for at most ORCRT_DRAIN_TIMEOUT (a Go duration, default 10s; 0
// waits for ever, as the stock does), then the executor exits 1. A message
// larger than ORCRT_MAX_MESSAGE_SIZE bytes (default 1 GiB) ends the
// session (docs/protocol.md §8.2). It serves with GOMAXPROCS 1 unless the
// GOMAXPROCS variable is set, and links libstdc++, libgcc_s and libm as
// the stock executor does (RATIONALE.md, "executor and
// cmd/orcrt-executor").
//
// A leading -v, or ORCRT_LOG=debug in the environment, logs the protocol
// traffic to stderr, in log/slog's text format. Nothing is ever written
// to stdout but JIT'd programs' own output. LLVM main's socket:adopt=<fd>,
// tcp:connect=<host>:<port> and tcp:listen=<host>:<port> are aliases.
//
// On Linux it also serves many controllers, until SIGTERM:
//
//	orcrt-executor serve [-pool=N] [-max-sessions=N] [-allow-uid=L] [-allow-gid=L]
//	    [-allow-remote] [-rlimit-as=SIZE] [-rlimit-cpu=D] [-idle-timeout=D]
//	    [-drain-timeout=D] [-status=PATH] [-output=DIR] unix=<path> | listen=<host>:<port> | systemd
//	orcrt-executor status <status-socket>
//
// Each session runs in a worker process of its own (package serve, which
// a Go program can embed; README.md, "Serving many controllers").
package main
