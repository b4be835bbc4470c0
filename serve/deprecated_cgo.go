//go:build cgo

package serve

import "github.com/orcgo/orcrt/serve/worker"

// Session serves one controller's connection as orcrt-executor does.
//
// Deprecated: use [worker.Session]; the worker is package serve/worker.
type Session = worker.Session
