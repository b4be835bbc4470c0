package gdbjit

/*
#cgo LDFLAGS: -rdynamic
#cgo noescape orcrt_gdbjit_snapshot
#cgo nocallback orcrt_gdbjit_snapshot
#cgo nocallback orcrt_gdbjit_register
#cgo nocallback orcrt_gdbjit_last_entry
#include "gdbjit.h"
*/
import "C"

import (
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/native/jitsyms"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/service/memaccess"
	"github.com/orcgo/orcrt/sps"
)

// RegisterActionName is the LLVM 22 bootstrap name of the action.
const RegisterActionName = "llvm_orc_registerJITLoaderGDBAllocAction"

// JITRegisterFn is jit_actions_t's JIT_REGISTER_FN.
const JITRegisterFn = 1

// Entry is one jit_code_entry.
type Entry struct {
	Addr        uintptr  // the entry itself (C memory)
	SymfileAddr sps.Addr // start of the debug object
	SymfileSize uint64
}

// Descriptor is a snapshot of __jit_debug_descriptor and its list.
type Descriptor struct {
	Version  uint32
	Action   uint32
	Relevant uintptr
	Entries  []Entry // head (newest) first
}

// Register adds the debug object r to the debugger's list
// (docs/protocol.md §5.5) and returns the new entry's address.
func Register(r sps.AddrRange, autoRegister bool) (uintptr, error) {
	if r.End < r.Start {
		return 0, fmt.Errorf("gdbjit: register: inverted range %v", r)
	}
	auto := C.int(0)
	if autoRegister {
		auto = 1
	}
	e := uintptr(C.orcrt_gdbjit_register(C.uintptr_t(r.Start), C.uint64_t(r.End-r.Start), auto))
	if e == 0 {
		return 0, errors.New("gdbjit: register: out of memory")
	}
	nameFunctions(r)
	return e, nil
}

// maxDebugObject bounds the debug objects read for their symbols.
const maxDebugObject = 1 << 30

// nameFunctions tells native/jitsyms the debug object's functions, for the
// executor's crash reports and profiles. A debug object that cannot be
// read or parsed names nothing; its registration stands, as debuggers
// read it themselves.
func nameFunctions(r sps.AddrRange) {
	size := uint64(r.End - r.Start)
	if size > maxDebugObject {
		return
	}
	img, err := memaccess.View(uintptr(r.Start), size)
	if err != nil || img == nil {
		return
	}
	syms, err := FuncSymbols(img)
	if err != nil {
		return
	}
	named := make([]jitsyms.Sym, len(syms))
	for i, s := range syms {
		named[i] = jitsyms.Sym{Start: s.Addr, End: s.Addr + s.Size, Name: s.Name}
	}
	jitsyms.AddAll(named)
}

// Snapshot returns the descriptor and its whole list, read under the
// lock.
func Snapshot() Descriptor {
	var ver, action C.uint32_t
	var rel C.uint64_t
	buf := make([]uint64, 3*64)
	for {
		n := uint64(C.orcrt_gdbjit_snapshot((*C.uint64_t)(&buf[0]), C.uint64_t(len(buf)/3), &ver, &action, &rel))
		if n <= uint64(len(buf)/3) {
			d := Descriptor{Version: uint32(ver), Action: uint32(action), Relevant: uintptr(rel)}
			for i := range n {
				d.Entries = append(d.Entries, Entry{Addr: uintptr(buf[3*i]), SymfileAddr: sps.Addr(buf[3*i+1]), SymfileSize: buf[3*i+2]})
			}
			return d
		}
		buf = make([]uint64, 3*(n+64))
	}
}

// LastEntry returns the address of the last (oldest) entry, or 0 for an
// empty list: the value llvm-jitlink-executor's test-jitloadergdb flag
// prints.
func LastEntry() uintptr { return uintptr(C.orcrt_gdbjit_last_entry()) }

// FormatLastEntry formats LastEntry exactly as the stock executor prints
// it for test-jitloadergdb (with the trailing newline).
func FormatLastEntry() string {
	return fmt.Sprintf("__jit_debug_descriptor.last_entry = 0x%016x\n", LastEntry())
}

// RegisterCodeCalls returns how often __jit_debug_register_code ran.
func RegisterCodeCalls() uint64 { return uint64(C.orcrt_gdbjit_register_code_calls()) }

// DescriptorAddr returns the address of __jit_debug_descriptor.
func DescriptorAddr() uintptr { return uintptr(C.orcrt_gdbjit_descriptor_addr()) }

// RegisterCodeAddr returns the address of __jit_debug_register_code.
func RegisterCodeAddr() uintptr { return uintptr(C.orcrt_gdbjit_register_code_addr()) }

// Action returns the allocation action as a wrapper function:
// SPSError(SPSExecutorAddrRange, bool).
func Action() rt.WrapperFunc {
	return rt.Handle2(sps.RegisterJITLoaderGDBAction, func(_ *rt.Session, r sps.AddrRange, auto bool) error {
		_, err := Register(r, auto)
		return err
	})
}

// LegacyWrapper returns llvm_orc_registerJITLoaderGDBWrapper, which the
// controllers of LLVM 14-19 call directly: SPSError(SPSExecutorAddrRange)
// in 14-16, with a trailing bool (notify the debugger) in 19; without it
// the debugger is notified.
func LegacyWrapper() rt.WrapperFunc {
	return func(s *rt.Session, args []byte, ret rt.ReturnFunc) {
		d := sps.NewDecoder(args)
		r := sps.AddrRangeCodec.Decode(&d)
		auto := true
		if len(d.Rest()) > 0 {
			auto = d.Bool()
		}
		if d.Failed() {
			ret(rt.OutOfBandResult(s.Dialect().DeserializeArgs))
			return
		}
		_, err := Register(r, auto)
		ret(rt.ResultBytes(sps.Marshal(sps.ErrorCodec, err)))
	}
}

// Install registers the action on s and publishes it in syms under the
// dialect's name, if the dialect has one.
func Install(s *rt.Session, syms *rt.SymbolTable) error {
	name := s.Dialect().GDBAllocAction
	if name == "" {
		return nil
	}
	action := Action()
	if s.Dialect().GDBActionRangeOnly {
		action = LegacyWrapper() // reads the range alone too
	}
	if err := syms.Add(name, s.RegisterWrapper(action)); err != nil {
		return fmt.Errorf("gdbjit: install: %w", err)
	}
	return nil
}
