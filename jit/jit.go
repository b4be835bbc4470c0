//go:build linux && cgo

package jit

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/jit/internal/objcache"
)

// Options configure a JIT. The zero value finds every part by itself.
type Options struct {
	// Controller is the path of orcrt-jit-controller ("": the
	// ORCRT_JIT_CONTROLLER environment variable, then PATH).
	Controller string
	// ORCRuntime is LLVM 22's ORC runtime archive, which C++ static
	// constructors, exceptions and thread_local need ("": ORCRT_ORC_RUNTIME,
	// then the one libclang-rt-22-dev installs).
	ORCRuntime string
	// NoORCRuntime starts the controller without the ORC runtime: no
	// initializer runs (C++ static constructors, C
	// __attribute__((constructor))), which plain C does not need, and an
	// add is one round trip instead of several (measured: an object 3.5x
	// and IR 1.9x faster to add).
	NoORCRuntime bool
	// HostSymbols are Go-host functions JIT'd code may call by name.
	HostSymbols []executor.HostSymbol
	// Libraries are shared libraries loaded into this process whose
	// symbols JIT'd code may use (as with -l).
	Libraries []string
	// AutoRestart starts a new controller when a request finds the last
	// one gone, instead of failing with ErrControllerGone.
	AutoRestart bool
	// Stderr receives the controller's standard error (nil: kept only for
	// a ControllerExitError).
	Stderr io.Writer
	// Logger receives the executor sessions' errors (nil: none).
	Logger executor.Logger
	// TraceWire logs every message between this process and the
	// controller at debug level through Logger.
	TraceWire bool
	// CacheDir keeps the objects compiled from C, C++ and IR, so that
	// adding the same input again links the object without compiling
	// ("": the orcrt/jit directory under os.UserCacheDir). Entries are
	// keyed by the input, its flags and module name, the target CPU and
	// the LLVM and controller versions; a damaged entry is compiled anew.
	// Processes may share one directory.
	CacheDir string
	// CacheMaxBytes bounds the cache; the least recently used objects go
	// first (0: 256 MiB).
	CacheMaxBytes int64
	// NoCache compiles every add anew and keeps nothing on disk.
	NoCache bool
	// NoCrashReport leaves this process's signal handlers as they are.
	// Otherwise Start installs, once per process, the report a fault or
	// abort() in JIT'd code prints before the Go runtime's crash (see
	// "Faults" in the package documentation).
	NoCrashReport bool
}

// CacheStats counts what the compile cache did since Start.
type CacheStats struct {
	Hits, Misses int64
	Corrupt      int64 // damaged entries found (and compiled anew)
	Evictions    int64
}

// JIT is a controller process, LLVM 22's ORC, compiling and linking code
// into this process. All methods are safe for concurrent use.
type JIT struct {
	opts        Options
	path, orcrt string // the controller and ORC runtime programs found

	cache *objcache.Cache // nil: none

	mu     sync.Mutex
	cur    *controller   // the last started
	old    []*controller // exited controllers whose code may still run
	closed bool
}

// Start starts a controller and waits until it is ready to take
// requests; ctx bounds the start only (the controller runs until Close).
// It fails, naming what to install, when the controller program cannot be
// found, and asks for a rebuild when the controller was built from other
// sources than this package. Without Options.ORCRuntime and with no ORC
// runtime installed, the controller starts without it. A CacheDir that
// cannot be made fails Start; without one, a default directory that
// cannot be made leaves the JIT without a cache.
func Start(ctx context.Context, opts Options) (*JIT, error) {
	if err := installCrashReport(&opts); err != nil {
		return nil, err
	}
	j := &JIT{opts: opts}
	j.opts.Libraries = slices.Clone(opts.Libraries)
	var err error
	if !opts.NoCache {
		if j.cache, err = openCache(opts.CacheDir, opts.CacheMaxBytes); err != nil {
			return nil, err
		}
	}
	if j.path, err = findController(opts.Controller); err != nil {
		return nil, err
	}
	if !opts.NoORCRuntime {
		if j.orcrt, err = findORCRuntime(opts.ORCRuntime); err != nil {
			return nil, err
		}
	}
	if j.cur, err = j.start(ctx); err != nil {
		return nil, err
	}
	return j, nil
}

// start starts a controller and loads the libraries into it.
func (j *JIT) start(ctx context.Context) (*controller, error) {
	c, err := startController(ctx, startArgs{path: j.path, runtime: j.orcrt, opts: &j.opts})
	if err != nil {
		return nil, err
	}
	for _, lib := range j.opts.Libraries {
		if err := addLibrary(ctx, c, lib); err != nil {
			_ = c.close()
			return nil, err
		}
	}
	return c, nil
}

// openCache opens dir, or the default directory (nil, nil when it cannot
// be made: the cache is only a shortcut).
func openCache(dir string, maxBytes int64) (*objcache.Cache, error) {
	explicit := dir != ""
	if !explicit {
		d, err := objcache.DefaultDir()
		if err != nil {
			return nil, nil
		}
		dir = d
	}
	c, err := objcache.Open(dir, maxBytes)
	if err != nil {
		if explicit {
			return nil, fmt.Errorf("jit: compile cache: %w", err)
		}
		return nil, nil
	}
	return c, nil
}

// CacheStats returns the compile cache's counts (zero without a cache).
func (j *JIT) CacheStats() CacheStats {
	if j.cache == nil {
		return CacheStats{}
	}
	st := j.cache.Stats()
	return CacheStats{Hits: st.Hits, Misses: st.Misses, Corrupt: st.Corrupt, Evictions: st.Evictions}
}

// Ping makes an empty request: it returns once the controller has
// answered, and costs one round trip to it.
func (j *JIT) Ping(ctx context.Context) error {
	c, err := j.controller(ctx, false)
	if err != nil {
		return err
	}
	_, err = c.call(ctx, tagPing, pingSig.AppendArgs(nil))
	return err
}

// LLVMVersion returns the LLVM version of the running controller.
func (j *JIT) LLVMVersion() string {
	c, err := j.controller(context.Background(), false)
	if err != nil {
		return ""
	}
	return c.version
}

// ControllerPID returns the process id of the current controller, or 0
// once it has exited or the JIT is closed.
func (j *JIT) ControllerPID() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed || !j.cur.alive() {
		return 0
	}
	return j.cur.cmd.Process.Pid
}

// Done returns a channel that is closed when the current controller
// exits: crashed, killed, or stopped by Close. After a Restart, Done
// returns the new controller's channel.
func (j *JIT) Done() <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cur.exited
}

// Err returns nil while the current controller runs; once it has exited,
// a *ControllerExitError saying how, or ErrClosed after Close.
func (j *JIT) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	switch {
	case j.closed:
		return ErrClosed
	case j.cur.alive():
		return nil
	}
	return j.cur.exitErr
}

// controller returns the running controller, starting a new one if the
// last has exited and restart (or Options.AutoRestart) says so.
func (j *JIT) controller(ctx context.Context, restart bool) (*controller, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil, ErrClosed
	}
	if j.cur.alive() {
		return j.cur, nil
	}
	if !restart && !j.opts.AutoRestart {
		return nil, j.cur.gone()
	}
	c, err := j.start(ctx)
	if err != nil {
		return nil, err
	}
	j.old = append(j.old, j.cur)
	j.cur = c
	return c, nil
}

// Restart starts a new controller if the current one has exited; modules
// added before keep running (their Funcs stay callable, and Lookup still
// finds what they define), but can no longer be removed. A running
// controller is kept.
func (j *JIT) Restart(ctx context.Context) error {
	_, err := j.controller(ctx, true)
	return err
}

// Close removes every module (waiting for calls in flight into their
// code), stops the controller and releases what exited controllers left
// loaded. Calls of this JIT's Funcs fail afterwards, with
// call.ErrReleased (or call.ErrShutDown). Close is idempotent.
func (j *JIT) Close() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return nil
	}
	j.closed = true
	cur, old := j.cur, j.old
	j.old = nil
	j.mu.Unlock()
	err := cur.close()
	for _, c := range old {
		c.kill()
	}
	return err
}

// AddObject links a relocatable object file (ELF, as clang -c -fPIC
// writes it) as a new module. Here and in the other Add methods, name
// names the module in diagnostics and errors; it need not be unique.
func (j *JIT) AddObject(ctx context.Context, name string, obj []byte) (*Module, error) {
	return j.LinkedTo().AddObject(ctx, name, obj)
}

// AddIR compiles and links LLVM IR, as text (.ll) or bitcode (.bc), as a
// new module. IR that does not parse gives a *CompileError.
func (j *JIT) AddIR(ctx context.Context, name string, ir []byte) (*Module, error) {
	return j.LinkedTo().AddIR(ctx, name, ir)
}

// AddC compiles C source with clang, as clang -c -fPIC -O2 followed by
// flags would, and links it as a new module named name. The controller
// runs clang's libraries itself (no clang process is started). A compile
// error is a *CompileError with clang's diagnostics, their file being
// name.
func (j *JIT) AddC(ctx context.Context, name, src string, flags ...string) (*Module, error) {
	return j.LinkedTo().AddSource(ctx, C, name, src, flags...)
}

// AddCXX is AddC for C++. Static constructors run before it returns, with
// the ORC runtime (see Options.ORCRuntime).
func (j *JIT) AddCXX(ctx context.Context, name, src string, flags ...string) (*Module, error) {
	return j.LinkedTo().AddSource(ctx, CXX, name, src, flags...)
}

// AddSource compiles src in lang and links it as a new module.
func (j *JIT) AddSource(ctx context.Context, lang Language, name, src string, flags ...string) (*Module, error) {
	return j.LinkedTo().AddSource(ctx, lang, name, src, flags...)
}

// AddLibrary loads a shared library into this process and lets modules
// added from now on use its symbols.
func (j *JIT) AddLibrary(ctx context.Context, path string) error {
	c, err := j.controller(ctx, false)
	if err != nil {
		return err
	}
	if err := addLibrary(ctx, c, path); err != nil {
		return err
	}
	j.mu.Lock()
	j.opts.Libraries = append(j.opts.Libraries, path)
	j.mu.Unlock()
	return nil
}

func addLibrary(ctx context.Context, c *controller, path string) error {
	res, err := c.call(ctx, tagLibrary, librarySig.AppendArgs(nil, path))
	if err != nil {
		return err
	}
	if e, err := librarySig.DecodeResult(res); err != nil || e != nil {
		return fmt.Errorf("jit: loading %s: %w", path, errors.Join(err, e))
	}
	return nil
}
