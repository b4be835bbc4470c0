//go:build cgo

package executor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/orcgo/orcrt/alloc"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dylib"
	"github.com/orcgo/orcrt/rt/ehframe"
	"github.com/orcgo/orcrt/rt/entry"
	"github.com/orcgo/orcrt/rt/gdbjit"
	"github.com/orcgo/orcrt/rt/jitdispatch"
	"github.com/orcgo/orcrt/rt/memaccess"
	"github.com/orcgo/orcrt/rt/native"
	"github.com/orcgo/orcrt/rt/simpleremote"
)

// Options configure an Executor. The zero value is what
// llvm-jitlink-executor does.
type Options struct {
	// Logger receives debug logs of the protocol traffic (one record per
	// message, with bootstrap names for known addresses) and the errors
	// the Session reports. nil logs nothing.
	Logger *slog.Logger
	// NoSharedMemory leaves out the shared-memory mapper and its five
	// optional bootstrap names (llvm-jitlink then cannot use
	// -use-memmgr=shared).
	NoSharedMemory bool
	// Alloc configures the memory manager.
	Alloc alloc.Config
	// ProcessInfo overrides the triple and page size sent in Setup
	// (nil: rt.DetectProcessInfo, what the stock sends).
	ProcessInfo *rt.ProcessInfo
	// Wire configures the SimpleRemoteEPC connection (nil: defaults).
	Wire *simpleremote.Options
}

// Executor is one executor session: a Session with the LLVM 22 services.
type Executor struct {
	opts   Options
	log    *slog.Logger
	runner *rt.GoRunner
	s      *rt.Session
	syms   *rt.SymbolTable
	bi     *rt.BootstrapInfo
	mm     *alloc.MemoryManager
	dylibs *dylib.Manager

	mu       sync.Mutex
	served   bool
	reported []error // errors the Session reported
}

var (
	prepareOnce sync.Once
	prepareErr  error
)

// ProcessLibraries are loaded RTLD_NOW|RTLD_GLOBAL by PrepareProcess.
var ProcessLibraries = []string{"libstdc++.so.6", "libgcc_s.so.1", "libm.so.6"}

// PrepareProcess makes the C++ runtime, the unwinder and libm globally
// visible in the process (protocol.md §7.1): the ORC runtime and JIT'd
// C++ resolve libstdc++, libgcc_s (__register_frame, _Unwind_*) and libm
// symbols through the process handle, as they would in the stock
// executor, which links them. It runs once per process; New calls it.
func PrepareProcess() error {
	prepareOnce.Do(func() {
		var errs []error
		for _, lib := range ProcessLibraries {
			if _, err := native.Dlopen(lib, native.RTLD_NOW|native.RTLD_GLOBAL); err != nil {
				errs = append(errs, err)
			}
		}
		if err := ehframe.Init(); err != nil {
			errs = append(errs, err)
		}
		if len(errs) > 0 {
			prepareErr = fmt.Errorf("executor: preparing the process: %w", errors.Join(errs...))
		}
	})
	return prepareErr
}

// New builds an executor: the process preparation, a Session and all
// services, and the bootstrap symbols. Nothing is connected yet.
func New(opts Options) (*Executor, error) {
	if err := PrepareProcess(); err != nil {
		return nil, err
	}
	var pi rt.ProcessInfo
	if opts.ProcessInfo != nil {
		pi = *opts.ProcessInfo
	} else {
		var err error
		if pi, err = rt.DetectProcessInfo(); err != nil {
			return nil, fmt.Errorf("executor: %w", err)
		}
	}
	e := &Executor{opts: opts, log: opts.Logger, runner: rt.NewGoRunner(16), syms: rt.NewSymbolTable()}
	if e.log == nil {
		e.log = slog.New(slog.DiscardHandler)
	}
	e.s = rt.NewSession(pi, e.runner, e.report)
	if err := e.install(); err != nil {
		e.s.Close()
		e.runner.Close()
		return nil, err
	}
	// The stock Setup has an empty bootstrap map.
	e.bi = rt.NewBootstrapInfo(e.s, e.syms, map[string][]byte{})
	return e, nil
}

func (e *Executor) install() error {
	s, syms := e.s, e.syms
	s.SetUnknownTargetHandler(entry.CallJITWrapper)
	e.dylibs = dylib.New()
	steps := []func(*rt.Session, *rt.SymbolTable) error{
		jitdispatch.Install,
		e.dylibs.Install,
		memaccess.Install,
		entry.Install,
		ehframe.Install,
		gdbjit.Install,
	}
	for _, step := range steps {
		if err := step(s, syms); err != nil {
			return err
		}
	}
	// After the services whose Go actions its dealloc actions may call,
	// so it shuts down (reverse order) while they still work.
	mm, err := alloc.Register(s, syms, e.opts.Alloc)
	if err != nil {
		return fmt.Errorf("executor: %w", err)
	}
	e.mm = mm
	if !e.opts.NoSharedMemory {
		if _, err := alloc.RegisterSharedMemoryMapper(s, syms); err != nil {
			return fmt.Errorf("executor: %w", err)
		}
	}
	return nil
}

// report is the Session's error reporter: errors are logged and kept,
// to be joined to Serve's result (the stock executor joins the services'
// shutdown errors into the error it exits with).
func (e *Executor) report(_ *rt.Session, err error) {
	if err == nil {
		return
	}
	e.log.Error("session error", "err", err)
	e.mu.Lock()
	e.reported = append(e.reported, err)
	e.mu.Unlock()
}

// Session returns the executor's Session.
func (e *Executor) Session() *rt.Session { return e.s }

// Symbols returns the bootstrap symbol table sent in Setup. Symbols
// added before Serve are advertised too.
func (e *Executor) Symbols() *rt.SymbolTable { return e.syms }

// BootstrapInfo returns the bootstrap information sent in Setup.
func (e *Executor) BootstrapInfo() *rt.BootstrapInfo { return e.bi }

// MemoryManager returns the memory manager service.
func (e *Executor) MemoryManager() *alloc.MemoryManager { return e.mm }

// Serve attaches the SimpleRemoteEPC protocol over conn (owned by the
// executor from now on), sends Setup and serves the controller until the
// session ends, then shuts the executor down (see the package
// documentation) and returns nil for an orderly end (end of input,
// Hangup) or the terminal error. Cancelling ctx ends the session as a
// local disconnect (a Hangup is sent). Serve may be called once.
func (e *Executor) Serve(ctx context.Context, conn simpleremote.Conn) error {
	e.mu.Lock()
	if e.served {
		e.mu.Unlock()
		_ = conn.Close()
		return errors.New("executor: Serve called twice")
	}
	e.served = true
	e.mu.Unlock()
	if e.s.State() != rt.StateStart {
		_ = conn.Close()
		return errors.New("executor: Serve after Close")
	}

	if e.log.Enabled(ctx, slog.LevelDebug) {
		conn = newLogConn(conn, e.log, e.names())
	}
	var (
		discMu  sync.Mutex
		discErr error
	)
	e.s.SetOnDisconnect(func(err error) {
		discMu.Lock()
		discErr = err
		discMu.Unlock()
		e.s.Shutdown(nil)
	})
	ca := simpleremote.New(conn, e.opts.Wire)
	stop := context.AfterFunc(ctx, func() { e.s.Shutdown(nil) })
	defer stop()
	_ = e.s.Attach(ca, e.bi) // a failure is delivered to OnDisconnect too
	e.s.Wait()
	e.runner.Close()
	flushErr := native.FflushAll()

	discMu.Lock()
	err := discErr
	discMu.Unlock()
	e.mu.Lock()
	reported := e.reported
	e.mu.Unlock()
	if err == nil && len(reported) == 0 {
		if flushErr != nil {
			e.log.Debug("fflush(NULL) failed", "err", flushErr)
		}
		return nil
	}
	return errors.Join(append([]error{err}, reported...)...)
}

// Close shuts the executor down without serving (or ends a Serve in
// progress as a local disconnect) and waits for the shutdown.
func (e *Executor) Close() {
	e.s.Close()
	e.runner.Close()
}

// names maps bootstrap addresses to names, for logs.
func (e *Executor) names() map[uint64]string {
	m := map[uint64]string{}
	for name, a := range e.syms.All() {
		m[uint64(a)] = name
	}
	return m
}
