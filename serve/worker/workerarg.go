package worker

import "github.com/orcgo/orcrt/serve/internal/wire"

// WorkerArg, as a binary's first argument, makes it a serve worker
// (MaybeRunWorker, RunWorker); the server writes the worker's flags
// after it.
const WorkerArg = wire.WorkerArg
