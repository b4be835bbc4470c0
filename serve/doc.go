// Package serve is the server that serves many LLVM ORC controllers from
// one Linux process, each session in a worker process of its own: [Run]
// listens on Unix, TCP or systemd sockets, keeps a pool of started
// workers that accept on those sockets themselves (the server accepts,
// and hands a connection over with SCM_RIGHTS, only when none may),
// applies the peer policy and the per-session limits, logs one line per
// session, answers the status socket that [ReadStatus] reads, and
// drains. It is what `orcrt-executor serve` runs (README.md, "Serving
// many controllers"; RATIONALE.md, "orcrt-executor serve").
//
// Words: a worker is the process that serves one session (package
// serve/worker); a child is the server's record of one worker (its pid,
// control socket and session). The protocol between the two, the
// worker's command line and the messages on its control socket, is
// serve/internal/wire.
//
// Workers: the server owns them. It starts each by re-executing
// [Config].WorkerPath with worker.WorkerArg and the worker's own
// arguments, in a process group of its own, reaps it, and at the drain
// deadline kills its group. A program that embeds Run provides the
// worker entry point in one of two ways: its own binary (the default
// WorkerPath, os.Executable()) calling worker.MaybeRunWorker first thing
// in main, before it parses its own arguments, or orcrt-executor's
// binary named in WorkerPath, whose main has that hook. A worker serves
// one connection as `orcrt-executor socket:adopt=` would (the dialect
// chosen per controller unless Config.LLVM names it) and exits; a crash
// in JIT'd code ends its session only. The workers inherit the server's
// environment (LISTEN_* removed), stdout, stderr (unless
// Config.OutputDir) and working directory. Run reads no flags and no
// ORCRT_ variables: Config is all it takes.
//
// Concurrency: Run blocks until ctx ends (or, with Config.Signals, until
// SIGTERM or SIGINT), then drains: idle workers are let go, the
// listening sockets close, sessions may go on for Config.DrainTimeout,
// then their process groups are killed; Run returns once no worker is
// left. The Logger is called from many goroutines at once.
//
// Serving needs Linux and cgo: elsewhere Run and ReadStatus return an
// error wrapping errors.ErrUnsupported.
package serve
