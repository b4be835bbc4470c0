//go:build cgo

package lookup

import (
	"fmt"
	"sync"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/sps"
)

// exports is the process-wide table orcrt_export fills: one C entry point
// serves every Executor. An entry remembers the region (its pin) the
// address was in when it was exported, so that code released and another
// allocated at the same address is never taken for it.
var exports = struct {
	mu      sync.Mutex
	byName  map[string][]export // newest last
	changed chan struct{}       // closed and replaced on every export
}{byName: map[string][]export{}, changed: make(chan struct{})}

type export struct {
	addr uintptr
	f    *Finder          // whose JIT'd memory holds it; nil: host code
	pin  *keepalive.Group // the region's pin; nil: host code
}

var exportOnce sync.Once

// InstallExportHandler makes native's orcrt_export fill the table, once
// per process.
func InstallExportHandler() {
	exportOnce.Do(func() {
		native.SetExportHandler(func(name string, addr uintptr) int {
			x := export{addr: addr}
			live.mu.Lock()
			for f := range live.set {
				if pin, err := f.env.Pin(sps.Addr(addr)); err == nil {
					x.f, x.pin = f, pin
					break
				}
			}
			live.mu.Unlock()
			exports.mu.Lock()
			exports.byName[name] = append(exports.byName[name], x)
			close(exports.changed)
			exports.changed = make(chan struct{})
			exports.mu.Unlock()
			return 0
		})
	})
}

// newestExport finds name's newest export f can call, forgetting those
// whose code is gone (exports.mu held).
func (f *Finder) newestExport(name string) (call.Func, bool) {
	xs := exports.byName[name]
	defer func() { exports.byName[name] = xs }()
	for i := len(xs) - 1; i >= 0; i-- {
		x := xs[i]
		switch {
		case x.pin != nil && x.pin.Closing():
			xs = append(xs[:i], xs[i+1:]...) // released, for every Executor
		case x.f == f:
			if fn, err := f.funcIn(x.pin, x.addr); err == nil {
				return fn, true
			}
		case x.f == nil:
			// Host code, or JIT'd code exported while its memory was still
			// being initialized (a static constructor): bind it now.
			if g, err := f.env.Guard(x.addr); err == nil {
				if g != f.sessionGroup() {
					xs[i].f, xs[i].pin = f, g
				}
				return call.NewFunc(x.addr, g, f.sessionGroup()), true
			}
		}
	}
	return call.Func{}, false
}

// live is the set of Finders of Executors not yet shut down, whose memory
// the export handler searches.
var live = struct {
	mu  sync.Mutex
	set map[*Finder]struct{}
}{set: map[*Finder]struct{}{}}

// notFound lists the names not found, for errors.
func notFound(names []string, found []bool) string {
	s := ""
	for i, n := range names {
		if !found[i] {
			if s != "" {
				s += ", "
			}
			s += fmt.Sprintf("%q", n)
		}
	}
	return s
}
