package serve

import (
	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/serve/worker"
)

// WorkerArg, as a binary's first argument, makes it a serve worker.
//
// Deprecated: use [worker.WorkerArg]; the worker is package serve/worker.
const WorkerArg = worker.WorkerArg

// MaybeRunWorker runs a serve worker if this process is one.
//
// Deprecated: use [worker.MaybeRunWorker]; the worker is package
// serve/worker.
func MaybeRunWorker(trace executor.Logger) { worker.MaybeRunWorker(trace) }

// RunWorker is a serve worker.
//
// Deprecated: use [worker.RunWorker]; the worker is package serve/worker.
func RunWorker(argv0 string, args []string, trace executor.Logger) int {
	return worker.RunWorker(argv0, args, trace)
}
