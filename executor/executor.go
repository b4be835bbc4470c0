//go:build cgo

package executor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/orcgo/orcrt/alloc"
	"github.com/orcgo/orcrt/executor/internal/lookup"
	"github.com/orcgo/orcrt/executor/internal/prepare"
	"github.com/orcgo/orcrt/executor/internal/wiretrace"
	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/keepalive"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/service/dylib"
	"github.com/orcgo/orcrt/service/ehframe"
	"github.com/orcgo/orcrt/service/entry"
	"github.com/orcgo/orcrt/service/gdbjit"
	"github.com/orcgo/orcrt/service/jitdispatch"
	"github.com/orcgo/orcrt/service/memaccess"
	"github.com/orcgo/orcrt/service/perfjit"
	"github.com/orcgo/orcrt/sps"
)

// Options configure an Executor. The zero value is what
// llvm-jitlink-executor does, except for DrainTimeout.
type Options struct {
	// Logger receives the errors the Session reports and, with
	// TraceWire, the protocol traffic. nil logs nothing.
	Logger Logger
	// TraceWire logs every message crossing the connection at debug
	// level through Logger: direction, opcode, sequence number, tag (with
	// its bootstrap name when it has one), size and first payload bytes.
	// For debugging: the trace hides the connection's descriptor, so
	// writes are no longer coalesced.
	TraceWire bool
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
	// DrainTimeout bounds how long Serve waits, once the connection has
	// ended or ctx is done, for calls still running in JIT'd code before
	// it returns a *DrainTimeoutError (0: DefaultDrainTimeout, 10 s, as
	// orcrt-executor; negative: for ever, as the stock executor does).
	DrainTimeout time.Duration
	// OnListen, if set, is called by Open with the listening address of
	// a listen= or unix= command line before it waits for the
	// controller: with listen=HOST:0 it is the only way to learn the
	// port.
	OnListen func(addr net.Addr)
	// MaxProcs, if positive, is the GOMAXPROCS Serve sets while it serves
	// (restored afterwards) unless the GOMAXPROCS environment variable is
	// set; 0 leaves it alone, as a library in a host should. An executor
	// process wants 1 (RATIONALE.md, "One P").
	MaxProcs int
	// Dialect is the LLVM release's wire contract to speak (nil:
	// dialect.Latest). It must be known before Setup (dialect.Choose).
	Dialect *dialect.Dialect
	// Release, where Dialect is nil, picks the dialect of that LLVM
	// major release (dialect.ForRelease); 0 does not.
	Release int
	// ControllerCalls are names of controller functions the host calls
	// ([Executor.ControllerFunc]): each is published in Setup with an
	// address of its own, under which the controller registers its
	// handler (a jit-dispatch tag).
	ControllerCalls []string
	// Wrappers are Go functions published in Setup under their names,
	// for the controller to call.
	Wrappers []Wrapper
	// HostSymbols are the host's functions JIT'd code may call by name.
	HostSymbols []HostSymbol
	// EndOfInput says what the end of the controller's connection does
	// (default EndShutdown, as the stock executor).
	EndOfInput EndOfInput
	// LearnLookupRoute watches the controller's calls for the ORC
	// runtime's symbol lookup, so that [Executor.Lookup] can ask the
	// controller for names never exported (llvm-jitlink -orc-runtime).
	// Off, Lookup finds exports only and the route's checks cost nothing.
	LearnLookupRoute bool
	// Dispatcher runs the controller's calls (nil: each on its own
	// goroutine, as the stock's thread pool). rt.InlineRunner runs them
	// one at a time on the connection's reader, in order: deterministic,
	// but a call waiting for the controller deadlocks under it.
	Dispatcher rt.Dispatcher
}

// Executor is one executor session: a Session with the services of its
// LLVM dialect.
type Executor struct {
	opts   Options
	log    Logger
	runner *rt.GoRunner
	s      *rt.Session
	syms   *rt.SymbolTable
	bi     *rt.BootstrapInfo
	mm     *alloc.MemoryManager
	shm    *alloc.SharedMemoryMapper // nil with NoSharedMemory
	dylibs *dylib.Manager

	mu       sync.Mutex
	served   bool
	ca       *simpleremote.CA
	why      dialect.Evidence // how NewFor chose the dialect
	reported []error          // errors the Session reported

	find *lookup.Finder // Lookup: exports, and the controller route

	ctlTags  map[string]sps.Addr // Options.ControllerCalls' tags
	tagBytes []byte              // what the tags point to, kept alive
}

// ProcessLibraries are loaded RTLD_NOW|RTLD_GLOBAL by PrepareProcess.
var ProcessLibraries = []string{"libstdc++.so.6", "libgcc_s.so.1", "libm.so.6"}

// PrepareProcess makes the C++ runtime, the unwinder and libm globally
// visible in the process (docs/protocol.md §7.1): the ORC runtime and JIT'd
// C++ resolve libstdc++, libgcc_s (__register_frame, _Unwind_*) and libm
// symbols through the process handle, as they would in the stock
// executor, which links them. It runs once per process. An Executor
// starts it on a background thread once Setup has been sent (Serve), or
// at its first incoming call, and does not wait for it: loading libstdc++
// costs several milliseconds (its relocations and static constructors),
// which then overlap with the controller's own work after Setup instead
// of delaying the session's start. (Started any earlier, it would hold
// the dynamic linker's locks while the Go runtime creates threads for the
// start-up, which then wait.) No incoming call runs before it has
// finished (see prepare.Gate); a failure is reported to the Session then,
// and so ends up in Serve's error.
func PrepareProcess() error { return prepare.Process(ProcessLibraries) }

// startPrepare runs PrepareProcess once, in the background.
func startPrepare() { prepare.Start(PrepareProcess) }

// New builds an executor: a Session and all services, and the bootstrap
// symbols. The process preparation (PrepareProcess) starts when Serve has
// sent Setup. Nothing is connected yet.
func New(opts Options) (*Executor, error) {
	d, err := dialectOf(opts)
	if err != nil {
		return nil, err
	}
	opts.Dialect = d
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
		e.log = discardLogger{}
	}
	var reportOnce sync.Once
	var next rt.Dispatcher = e.runner
	if opts.Dispatcher != nil {
		next = opts.Dispatcher
	}
	gate := &prepare.Gate{Next: next, Start: startPrepare, Report: func(err error) {
		reportOnce.Do(func() { e.report(e.s, err) })
	}}
	e.s = rt.NewSession(pi, gate, e.report)
	e.find = lookup.New(lookup.Env{
		Session: e.s,
		Pin:     func(a sps.Addr) (*keepalive.Group, error) { return e.mm.Pin(a) },
		Shared:  func(a sps.Addr) bool { return e.shm != nil && e.shm.Holds(a) },
		Guard:   e.guardOf,
		Log:     e.log,
	}, opts.LearnLookupRoute)
	if opts.Dialect != nil {
		e.s.SetDialect(opts.Dialect)
	}
	if err := e.install(); err != nil {
		e.s.Close()
		e.runner.Close()
		return nil, err
	}
	// The stock Setup has an empty bootstrap map.
	e.bi = rt.NewBootstrapInfo(e.s, e.syms, map[string][]byte{})
	e.s.AddOnShutdown(e.find.Start())
	return e, nil
}

func (e *Executor) install() error {
	s, syms := e.s, e.syms
	// JIT'd wrapper functions see their argument bytes only for the
	// duration of the native call. With LearnLookupRoute, the finder's
	// CallJITWrapper and ObserveDispatch learn how to ask the controller for
	// symbols (Lookup).
	var observe jitdispatch.Observer
	if e.opts.LearnLookupRoute {
		s.SetUnknownTargetHandler(e.find.CallJITWrapper, rt.BorrowArgs)
		observe = e.find.ObserveDispatch
	} else {
		s.SetUnknownTargetHandler(entry.CallJITWrapper, rt.BorrowArgs)
	}
	e.dylibs = dylib.New()
	steps := []func(*rt.Session, *rt.SymbolTable) error{
		func(s *rt.Session, syms *rt.SymbolTable) error {
			return jitdispatch.InstallObserved(s, syms, observe)
		},
		e.dylibs.Install,
		func(s *rt.Session, _ *rt.SymbolTable) error { return perfjit.Install(s, e.dylibs) },
		memaccess.Install,
		entry.Install,
		e.installEHFrame,
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
		if e.shm, err = alloc.RegisterSharedMemoryMapper(s, syms); err != nil {
			return fmt.Errorf("executor: %w", err)
		}
		e.shm.SetPinWait(e.opts.Alloc.PinWait)
	}
	if err := e.installPort(); err != nil {
		return err
	}
	return e.addHostSymbols(e.opts.HostSymbols)
}

// installEHFrame is ehframe.Install without its ehframe.Init (loading
// libgcc_s), which PrepareProcess does in the background; the actions
// call Init themselves anyway. The dialect names the functions, and older
// dialects' controllers also find them, and JITLoaderGDB's, by a process
// lookup.
func (e *Executor) installEHFrame(s *rt.Session, syms *rt.SymbolTable) error {
	d := s.Dialect()
	reg, dereg := ehframe.Actions()
	regAddr, deregAddr := s.RegisterWrapper(reg, rt.BorrowArgs), s.RegisterWrapper(dereg, rt.BorrowArgs)
	if err := syms.AddUnique(
		rt.Symbol{Name: d.EHFrameRegister, Addr: regAddr},
		rt.Symbol{Name: d.EHFrameDeregister, Addr: deregAddr},
	); err != nil {
		return fmt.Errorf("executor: ehframe: %w", err)
	}
	for _, ps := range d.ProcessSymbols {
		var addr sps.Addr
		switch ps.Fn {
		case dialect.EHFrameRegisterWrapper:
			addr = regAddr
		case dialect.EHFrameDeregisterWrapper:
			addr = deregAddr
		case dialect.GDBRegisterWrapper:
			addr = s.RegisterWrapper(gdbjit.LegacyWrapper(), rt.BorrowArgs)
		default:
			return fmt.Errorf("executor: %s: process symbol %q names no function", d.Name, ps.Name)
		}
		if err := e.dylibs.AddProcessSymbol(ps.Name, addr); err != nil {
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

// DylibManager returns the dylib manager: a host publishes its own
// functions to JIT'd code with its AddProcessSymbol.
func (e *Executor) DylibManager() *dylib.Manager { return e.dylibs }

// Serve attaches the SimpleRemoteEPC protocol over conn (owned by the
// executor from now on), sends Setup and serves the controller until the
// session ends, then shuts the executor down (see the package
// documentation) and returns nil for an orderly end (end of input,
// Hangup) or the terminal error. Cancelling ctx ends the session as a
// local disconnect (a Hangup is sent); Serve then returns nil once the
// calls in flight have returned, or a *DrainTimeoutError after
// Options.DrainTimeout if JIT'd code is still blocked in one. A host that
// must end on SIGTERM and Ctrl-C passes
// signal.NotifyContext(ctx, syscall.SIGTERM, os.Interrupt). Serve may be
// called once.
//
// Over loopback TCP, Serve also ends the session as at end of input once
// the controller's process no longer holds its end of the connection
// (looked at soon after the connection falls quiet, then at least every
// PeerWatchInterval): llvm-jitlink
// -oop-executor-connect (LLVM 14 to 22) closes its socket at exit
// without shutting it down, and would otherwise wait for ever.
func (e *Executor) Serve(ctx context.Context, conn simpleremote.Conn) error {
	if err := e.claim(); err != nil {
		_ = conn.Close()
		return err
	}
	stopWatch := simpleremote.WatchPeerClose(conn, PeerWatchInterval, func() {
		e.log.Debug("the controller closed its end of the connection without shutting it down: shut down")
	})
	defer stopWatch()
	if e.opts.TraceWire && e.opts.Logger != nil {
		conn = wiretrace.Conn(conn, e.log, e.syms.All())
	}
	end := e.watchEnd()
	stop := context.AfterFunc(ctx, func() { e.s.Shutdown(nil) })
	defer stop()
	e.attach(conn)
	// After Setup: the first GOMAXPROCS stops the world while start-up's
	// threads are still being created (0.55 ms before Setup, measured);
	// now it overlaps the controller reading Setup.
	if n := e.opts.MaxProcs; n > 0 && os.Getenv("GOMAXPROCS") == "" {
		prev := runtime.GOMAXPROCS(n)
		defer runtime.GOMAXPROCS(prev)
	}
	startPrepare() // Setup is out: load the libraries meanwhile
	// A process may exit right after Serve: libc's exit must not sort the
	// loaded objects while dlopen adds one (glibc asserts in dl-sort-maps,
	// seen when the controller hung up at once). Calls wait for it anyway.
	defer prepare.Wait()
	var flushErr error
	if e.opts.EndOfInput == EndDetach {
		<-end.detached
		flushErr = native.FflushAll()
	} else {
		if err := e.drain(ctx, end.disconnected); err != nil {
			_ = native.FflushAll()
			return err // calls still run in JIT'd code; see Options.DrainTimeout
		}
		e.runner.Close()
		flushErr = native.FflushAll()
	}
	return e.result(end.err(), flushErr)
}

// claim marks the executor served: Serve may be called once, before Close.
func (e *Executor) claim() error {
	e.mu.Lock()
	if e.served {
		e.mu.Unlock()
		return errors.New("executor: Serve called twice")
	}
	e.served = true
	e.mu.Unlock()
	if e.s.State() != rt.StateStart {
		return errors.New("executor: Serve after Close")
	}
	return nil
}

// sessionEnd is how the connection ended, as Serve waits for it.
type sessionEnd struct {
	disconnected chan struct{} // closed when the connection has ended
	detached     chan struct{} // EndDetach: closed when every service has detached
	mu           sync.Mutex
	cause        error // the disconnect's error
}

func (s *sessionEnd) err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cause
}

// watchEnd makes the connection's end shut the Session down, or with
// EndDetach detach it.
func (e *Executor) watchEnd() *sessionEnd {
	end := &sessionEnd{disconnected: make(chan struct{}), detached: make(chan struct{})}
	if e.opts.EndOfInput == EndDetach {
		e.s.AddOnDetach(func() { close(end.detached) })
	}
	var once sync.Once
	e.s.SetOnDisconnect(func(err error) {
		end.mu.Lock()
		end.cause = err
		end.mu.Unlock()
		once.Do(func() { close(end.disconnected) })
		if e.opts.EndOfInput == EndDetach {
			e.s.Detach(nil)
			return
		}
		e.s.Shutdown(nil)
	})
	return end
}

// attach attaches the SimpleRemoteEPC protocol over conn and sends Setup;
// a failure is delivered to OnDisconnect too.
func (e *Executor) attach(conn simpleremote.Conn) {
	var wire simpleremote.Options
	if e.opts.Wire != nil {
		wire = *e.opts.Wire
	}
	wire.Wire = e.Dialect().Wire // what Results and Hangups mean
	ca := simpleremote.New(conn, &wire)
	e.mu.Lock()
	e.ca = ca
	e.mu.Unlock()
	_ = e.s.Attach(ca, e.bi)
}

// result is Serve's result: nil for an orderly end, else the disconnect's
// error joined with those the Session reported.
func (e *Executor) result(err, flushErr error) error {
	e.mu.Lock()
	reported := e.reported
	e.mu.Unlock()
	if err == nil && len(reported) == 0 {
		if flushErr != nil {
			e.log.Debug("fflush(NULL) failed", "err", flushErr)
		}
		return nil
	}
	return e.withRelease(errors.Join(append([]error{err}, reported...)...))
}

// PeerWatchInterval is the longest Serve waits between looks whether a
// loopback TCP controller still holds its end of the connection (it looks
// sooner after the connection falls quiet; see
// simpleremote.WatchPeerClose).
const PeerWatchInterval = 100 * time.Millisecond

// ControllerSpoke reports whether the controller sent any message on the
// connection Serve served. A controller that hangs up right after Setup
// usually could not use it: it is of another LLVM release than the
// dialect spoken.
func (e *Executor) ControllerSpoke() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.ca != nil && e.ca.Received() > 0
}

// Dialect returns the dialect the executor speaks.
func (e *Executor) Dialect() *dialect.Dialect { return e.s.Dialect() }

// Close shuts the executor down without serving (or ends a Serve in
// progress as a local disconnect) and waits for the shutdown.
func (e *Executor) Close() {
	e.s.Close()
	e.runner.Close()
}
