package dylib

/*
#cgo CFLAGS: -I${SRCDIR}/../../native
#cgo LDFLAGS: -ldl
#cgo noescape orcrt_dylib_open
#cgo nocallback orcrt_dylib_open
#cgo noescape orcrt_dylib_resolve
#cgo nocallback orcrt_dylib_resolve
#include <dlfcn.h>
#include <stdlib.h>
#include "dylib.h"
*/
import "C"

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"sync"
	"unsafe"

	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/native/codemap"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/sps"
)

// LLVM 22 bootstrap symbol names (docs/protocol.md §3.2).
const (
	InstanceName       = "__llvm_orc_SimpleExecutorDylibManager_Instance"
	OpenWrapperName    = "__llvm_orc_SimpleExecutorDylibManager_open_wrapper"
	ResolveWrapperName = "__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper"
	// LookupWrapperName is LLVM 14-19's lookup (dialect.LookupAddrs,
	// dialect.LookupSymbolDefs).
	LookupWrapperName = "__llvm_orc_SimpleExecutorDylibManager_lookup_wrapper"
)

// orc-rt's NativeDylibManager names (NativeDylibManagerSPSCI.cpp), which
// LLVM 23's executor publishes beside the ones above (llvm-project PR
// #201744) and main's controller uses alone (#215441).
const (
	NativeInstanceName = "orc_rt_ci_NativeDylibManager_Instance"
	NativeLoadName     = "orc_rt_ci_sps_NativeDylibManager_load"
	NativeLookupName   = "orc_rt_ci_sps_NativeDylibManager_lookup"
)

// Error texts the stock executor sends; they travel to the controller
// verbatim, so they carry no package prefix.
const (
	MsgModeNotSupported = "open: non-zero mode bits not yet supported"
	MsgEmptyRequired    = `Required address for empty symbol ""`
)

// StockError is an error whose text is the stock executor's, sent to the
// controller verbatim (capitalized, unprefixed).
type StockError string

func (e StockError) Error() string { return string(e) }

// ExportedFlags is the SymbolFlags every resolved symbol carries, as the
// stock executor reports them (JITSymbolFlags::Exported, no target flags).
var ExportedFlags = sps.SymbolFlags{Flags: sps.FlagExported}

// ErrShutDown is returned by Open and Resolve after OnShutdown.
var ErrShutDown = errors.New("dylib: manager is shut down")

// UnknownHandleError is the resolve error for a handle that no open
// returned.
type UnknownHandleError struct{ Handle sps.Addr }

func (e *UnknownHandleError) Error() string {
	return fmt.Sprintf("dylib: resolve: unknown handle %#x (not returned by open)", uint64(e.Handle))
}

// handle is one open's result. Its address is the handle the controller
// sees; it must not be zero-sized (zero-sized objects share an address).
type handle struct {
	dl   uintptr // dlopen handle
	path string
}

// Manager is the dylib manager service. The zero value is not usable; use
// [New].
type Manager struct {
	inst    sps.Addr // the published Instance; no handle equals it
	mu      sync.Mutex
	handles map[sps.Addr]*handle // nil after shutdown
	process map[string]sps.Addr  // see AddProcessSymbol; never mutated
}

// New returns a Manager with no open handles.
func New() *Manager {
	return &Manager{handles: make(map[sps.Addr]*handle)}
}

// Install registers m on s: its instance, the open wrapper and the
// lookup wrapper of the Session's dialect, published in syms under the
// dialect's bootstrap names, and m as a Service of s (so it is shut down
// with s).
func (m *Manager) Install(s *rt.Session, syms *rt.SymbolTable) error {
	inst := s.RegisterInstance(m)
	m.mu.Lock()
	m.inst = inst
	m.mu.Unlock()
	open := s.RegisterWrapper(rt.HandleMethodExpected2(sps.DylibManagerOpen,
		func(_ *rt.Session, m *Manager, path string, mode uint64) (sps.Addr, error) {
			return m.Open(path, mode)
		}), rt.BorrowArgs) // the path is decoded as a copy
	// Names are copied into C memory for the lookup, so every lookup
	// borrows its arguments.
	var lookupName string
	var lookup rt.WrapperFunc
	switch s.Dialect().Lookup {
	case dialect.LookupAddrs:
		lookupName = LookupWrapperName
		lookup = rt.HandleMethodExpected2(sps.DylibManagerLookupAddrs,
			func(_ *rt.Session, m *Manager, h sps.Addr, set []sps.LookupElement) ([]sps.Addr, error) {
				defs, err := m.lookup(h, set)
				if err != nil {
					return nil, err
				}
				addrs := make([]sps.Addr, len(defs))
				for i, d := range defs {
					addrs[i] = d.Addr
				}
				return addrs, nil
			})
	case dialect.LookupSymbolDefs:
		lookupName = LookupWrapperName
		lookup = rt.HandleMethodExpected2(sps.DylibManagerLookupDefs,
			func(_ *rt.Session, m *Manager, h sps.Addr, set []sps.LookupElement) ([]sps.SymbolDef, error) {
				return m.lookup(h, set)
			})
	case dialect.ResolveEitherForm:
		lookupName = ResolveWrapperName
		lookup = resolveEitherForm(inst, resolve22(m), resolveAddrs)
	default:
		lookupName = ResolveWrapperName
		lookup = resolve22(m)
	}
	symbols := []rt.Symbol{
		{Name: InstanceName, Addr: inst},
		{Name: OpenWrapperName, Addr: open},
		{Name: lookupName, Addr: s.RegisterWrapper(lookup, rt.BorrowArgs)},
	}
	if s.Dialect().NativeDylibManager {
		load := rt.HandleMethodExpected1(sps.NativeDylibManagerLoad,
			func(_ *rt.Session, m *Manager, path string) (sps.Addr, error) { return m.Open(path, 0) })
		symbols = append(symbols,
			rt.Symbol{Name: NativeInstanceName, Addr: inst},
			rt.Symbol{Name: NativeLoadName, Addr: s.RegisterWrapper(load, rt.BorrowArgs)},
			rt.Symbol{Name: NativeLookupName, Addr: s.RegisterWrapper(resolveAddrs, rt.BorrowArgs)})
	}
	if err := syms.AddUnique(symbols...); err != nil {
		return fmt.Errorf("dylib: install: %w", err)
	}
	s.AddService(m)
	return nil
}

// resolve22 is LLVM 22's resolve: (Handle, LookupSet) ->
// Expected<Sequence<Optional<ExecutorSymbolDef>>>.
func resolve22(m *Manager) rt.WrapperFunc {
	return rt.HandleExpected2(sps.DylibManagerResolve,
		func(_ *rt.Session, h sps.Addr, set []sps.LookupElement) ([]sps.Option[sps.SymbolDef], error) {
			return m.Resolve(h, set)
		})
}

// resolveAddrs is LLVM 23's resolve and orc-rt's NativeDylibManager
// lookup: (Instance, Handle, LookupSet) ->
// Expected<Sequence<Optional<ExecutorAddr>>>, with LLVM 22's rules for
// missing symbols (a required one is None, a weak one address 0).
var resolveAddrs = rt.HandleMethodExpected2(sps.DylibManagerResolveAddrs,
	func(_ *rt.Session, m *Manager, h sps.Addr, set []sps.LookupElement) ([]sps.Option[sps.Addr], error) {
		defs, err := m.Resolve(h, set)
		if err != nil {
			return nil, err
		}
		addrs := make([]sps.Option[sps.Addr], len(defs))
		for i, d := range defs {
			addrs[i] = sps.Option[sps.Addr]{Value: d.Value.Addr, OK: d.OK}
		}
		return addrs, nil
	})

// resolveEitherForm answers a resolve call in the form its caller used:
// one whose first argument is the published instance is LLVM 23's (its
// first argument is the Instance), any other LLVM 22's (its first argument
// is a handle, and Open never returns the instance's value).
func resolveEitherForm(inst sps.Addr, form22, form23 rt.WrapperFunc) rt.WrapperFunc {
	return func(s *rt.Session, args []byte, ret rt.ReturnFunc) {
		if len(args) >= 8 && sps.Addr(binary.LittleEndian.Uint64(args)) == inst {
			form23(s, args, ret)
			return
		}
		form22(s, args, ret)
	}
}

// lookup is LLVM 14-19's lookup: every symbol has a definition, and a
// missing required one fails the whole lookup.
func (m *Manager) lookup(h sps.Addr, set []sps.LookupElement) ([]sps.SymbolDef, error) {
	opts, err := m.Resolve(h, set)
	if err != nil {
		return nil, err
	}
	defs := make([]sps.SymbolDef, len(opts))
	for i, o := range opts {
		d, ok := o.Value, o.OK
		if !ok && set[i].Required {
			return nil, StockError("Missing definition for " + string(set[i].Name))
		}
		if !ok {
			d.Flags = ExportedFlags
		}
		defs[i] = d
	}
	return defs, nil
}

// AddProcessSymbol makes lookups in the process (the handle of an open of
// "") answer name with addr before dlsym is asked: orcrt's own functions
// under the names a controller expects, or a Go host's functions.
func (m *Manager) AddProcessSymbol(name string, addr sps.Addr) error {
	if name == "" || addr == 0 {
		return fmt.Errorf("dylib: process symbol %q at %#x: name and address must be set", name, uint64(addr))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, dup := m.process[name]; dup {
		return fmt.Errorf("dylib: process symbol %q added twice", name)
	}
	next := maps.Clone(m.process)
	if next == nil {
		next = map[string]sps.Addr{}
	}
	next[name] = addr
	m.process = next // copied on write: Resolve reads it without the lock
	return nil
}

// ProcessSymbols returns a copy of the names AddProcessSymbol added.
func (m *Manager) ProcessSymbols() map[string]sps.Addr {
	m.mu.Lock()
	defer m.mu.Unlock()
	return maps.Clone(m.process)
}

// Open opens path ("" = the executor process) with dlopen(RTLD_LAZY |
// RTLD_GLOBAL) and returns a new handle for it. The library is never
// closed. Errors are the stock texts: [MsgModeNotSupported] or dlerror()'s.
func (m *Manager) Open(path string, mode uint64) (sps.Addr, error) {
	if mode != 0 {
		return 0, StockError(MsgModeNotSupported)
	}
	var cpath *C.char
	if path != "" {
		cpath = C.CString(path)
		defer C.free(unsafe.Pointer(cpath))
	}
	var errbuf [512]byte
	dl := uintptr(C.orcrt_dylib_open(cpath, C.RTLD_LAZY|C.RTLD_GLOBAL, (*C.char)(unsafe.Pointer(&errbuf[0])), C.size_t(len(errbuf))))
	if dl == 0 {
		return 0, StockError(native.GoString(errbuf[:]))
	}
	if path != "" {
		codemap.Refresh() // its text is code from now on (calls into it hit at once)
	}
	h := &handle{dl: dl, path: path}
	addr := sps.Addr(uintptr(unsafe.Pointer(h)))
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.handles == nil {
		// The library stays loaded (dlopen'd code is never unloaded).
		return 0, ErrShutDown
	}
	if addr == m.inst {
		// Cannot happen: the instance is another live object's address.
		// resolve tells its two forms apart by it, so never hand it out.
		return 0, fmt.Errorf("dylib: open: handle %#x would equal the instance", uint64(addr))
	}
	m.handles[addr] = h
	return addr, nil
}

// Resolve looks every symbol of set up in the library behind h and
// returns one entry per symbol, following the stock rules
// (docs/protocol.md §5.2). The names may alias any buffer; they are not
// retained.
func (m *Manager) Resolve(h sps.Addr, set []sps.LookupElement) ([]sps.Option[sps.SymbolDef], error) {
	m.mu.Lock()
	if m.handles == nil {
		m.mu.Unlock()
		return nil, ErrShutDown
	}
	lib, ok := m.handles[h]
	process := m.process
	m.mu.Unlock()
	if !ok {
		return nil, &UnknownHandleError{Handle: h}
	}
	if lib.path != "" {
		process = nil // host and orcrt symbols live in the process only
	}
	out := make([]sps.Option[sps.SymbolDef], len(set))
	// Answer process symbols, and pack the other non-empty names,
	// NUL-terminated, for one C call.
	dlsym := func(e sps.LookupElement) bool {
		if len(e.Name) == 0 {
			return false
		}
		_, own := process[string(e.Name)]
		return !own
	}
	size, n := 0, 0
	for i, e := range set {
		switch {
		case len(e.Name) == 0:
			if e.Required {
				return nil, StockError(MsgEmptyRequired)
			}
		case !dlsym(e):
			out[i] = sps.Some(sps.SymbolDef{Addr: process[string(e.Name)], Flags: ExportedFlags})
		default:
			size += len(e.Name) + 1
			n++
		}
	}
	if n == 0 {
		return out, nil
	}
	names := make([]byte, 0, size)
	offs := make([]uint64, 0, n)
	for _, e := range set {
		if dlsym(e) {
			offs = append(offs, uint64(len(names)))
			names = append(names, e.Name...)
			names = append(names, 0)
		}
	}
	addrs := make([]uint64, n)
	C.orcrt_dylib_resolve(C.uintptr_t(lib.dl), (*C.char)(unsafe.Pointer(&names[0])),
		(*C.uint64_t)(unsafe.Pointer(&offs[0])), C.size_t(n), (*C.uint64_t)(unsafe.Pointer(&addrs[0])))
	j := 0
	for i, e := range set {
		if !dlsym(e) {
			continue // None, or answered above
		}
		switch a := addrs[j]; {
		case a != 0:
			out[i] = sps.Some(sps.SymbolDef{Addr: sps.Addr(a), Flags: ExportedFlags})
		case !e.Required:
			// Stock quirk: a missing weak reference is present with address 0.
			out[i] = sps.Some(sps.SymbolDef{Flags: ExportedFlags})
		}
		j++
	}
	return out, nil
}

// Handles returns the number of open handles.
func (m *Manager) Handles() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.handles)
}

// OnDetach implements rt.Service: handles stay usable by JIT'd code that
// is still running.
func (m *Manager) OnDetach(done func(), _ bool) { done() }

// OnShutdown implements rt.Service: it forgets every handle. The
// libraries stay loaded: code from them may still be referenced by
// JIT'd code or atexit handlers.
func (m *Manager) OnShutdown(done func()) {
	m.mu.Lock()
	m.handles = nil
	m.mu.Unlock()
	done()
}
