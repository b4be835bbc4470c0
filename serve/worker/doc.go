// Package worker is the worker process of serve: it serves one
// controller's connection and exits, so a crash or an exit() in JIT'd
// code ends that session only. serve.Run starts each worker by
// re-executing a binary with [WorkerArg] and the flags the server
// writes; that binary's main calls [MaybeRunWorker] first thing (or,
// parsing its own command line, [RunWorker]).
//
// A worker is initialised before any controller connects: it takes the
// descriptors the server passes, builds an executor ahead for the
// dialect most likely, warms the path from accept to the Setup write,
// and tells the server it is ready. It then waits for its connection:
// one it accepts on the inherited listening sockets once the server arms
// it (its peer checked against the policy the server passes; a refused
// peer is reported and closed, and the wait goes on), or one the server
// hands over with SCM_RIGHTS. It chooses the dialect for that
// controller, applies the session's limits (RLIMIT_AS, RLIMIT_CPU, the
// idle timeout) and serves it as `orcrt-executor socket:adopt=` would,
// reporting the session to the server once Setup is out.
//
// [Session] serves one connection on the calling goroutine: the worker's
// and orcrt-executor's own one-session modes' (filedescs=, listen=, ...).
//
// Serving needs Linux and cgo: elsewhere a worker exits 1.
package worker
