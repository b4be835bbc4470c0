package native

/*
#include "native.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// DispatchFunc handles one jit-dispatch call from JIT'd code on the
// calling native thread: tag is the FnTag, args the argument bytes (C
// memory, valid during the call only). It returns the result bytes, which
// stay its own, or a non-empty oobErr.
type DispatchFunc func(tag uint64, args []byte) (result []byte, oobErr string)

// ErrNoDispatchSlot is returned when every dispatch context is in use.
var ErrNoDispatchSlot = errors.New("native: no free jit-dispatch context (too many sessions)")

// UnavailableMsg is the out-of-band error JIT'd code receives for a
// context that is not (or no longer) registered, as the stock executor
// reports it.
const UnavailableMsg = "jit_dispatch not available (EPC server shut down)"

type dispatchEntry struct{ h DispatchFunc }

var (
	ctxBase  = uintptr(C.orcrt_dispatch_ctx_base())
	ctxSlots = uintptr(C.orcrt_dispatch_ctx_slots())
	dispatch struct {
		mu   sync.Mutex
		next uintptr
		tab  [4096]atomic.Pointer[dispatchEntry]
	}
)

// DispatchFnAddr returns the address of the exported C function
//
//	CWrapperFunctionBuffer __llvm_orc_SimpleRemoteEPC_dispatch_fn(
//	    void *ctx, const void *tag, const char *data, size_t size)
//
// to advertise as the bootstrap symbol of that name. It is also in the
// executable's dynamic symbol table (the package links with -rdynamic).
func DispatchFnAddr() uintptr { return uintptr(C.orcrt_dispatch_fn_addr()) }

// RegisterDispatch registers h and returns the context value to advertise
// as __llvm_orc_SimpleRemoteEPC_dispatch_ctx (a unique, non-zero address
// of this package's, from 4096 slots handed out round-robin); calls with
// it run h until [UnregisterDispatch]. Safe for concurrent use.
func RegisterDispatch(h DispatchFunc) (ctx uintptr, err error) {
	if h == nil {
		return 0, errors.New("native: RegisterDispatch with nil handler")
	}
	if ctxSlots != uintptr(len(dispatch.tab)) {
		panic("native: BUG: C and Go dispatch slot counts differ")
	}
	dispatch.mu.Lock()
	defer dispatch.mu.Unlock()
	e := &dispatchEntry{h: h}
	for i := range ctxSlots {
		j := (dispatch.next + i) % ctxSlots
		if dispatch.tab[j].CompareAndSwap(nil, e) {
			dispatch.next = j + 1
			return ctxBase + j, nil
		}
	}
	return 0, ErrNoDispatchSlot
}

// UnregisterDispatch removes the handler for ctx; later calls with ctx get
// the out-of-band error [UnavailableMsg]. Calls already running keep
// running. It reports whether ctx was registered.
func UnregisterDispatch(ctx uintptr) bool {
	if ctx < ctxBase || ctx-ctxBase >= ctxSlots {
		return false
	}
	return dispatch.tab[ctx-ctxBase].Swap(nil) != nil
}

func lookupDispatch(ctx uintptr) DispatchFunc {
	if ctx < ctxBase || ctx-ctxBase >= ctxSlots {
		return nil
	}
	if e := dispatch.tab[ctx-ctxBase].Load(); e != nil {
		return e.h
	}
	return nil
}

// runDispatch calls the handler, turning panics into out-of-band errors
// (a panic must not unwind through the C frames of JIT'd code).
func runDispatch(h DispatchFunc, tag uint64, args []byte) (res []byte, oob string) {
	defer func() {
		if r := recover(); r != nil {
			res, oob = nil, fmt.Sprintf("jit_dispatch: handler panicked: %v", r)
		}
	}()
	return h(tag, args)
}

//export orcrtGoDispatch
func orcrtGoDispatch(ctx, tag C.uintptr_t, data *C.char, size C.size_t, out *C.orcrt_CWrapperFunctionBuffer) {
	var res []byte
	var oob string
	switch h := lookupDispatch(uintptr(ctx)); {
	case h == nil:
		oob = UnavailableMsg
	case data == nil && size != 0:
		oob = "jit_dispatch: NULL argument buffer with non-zero size"
	case uint64(size) > 1<<46:
		oob = fmt.Sprintf("jit_dispatch: implausible argument size %d", uint64(size))
	default:
		var args []byte
		if size > 0 {
			args = unsafe.Slice((*byte)(unsafe.Pointer(data)), int(size))
		}
		res, oob = runDispatch(h, uint64(tag), args)
	}
	// C pointers go into the C struct as integers: no write barrier ever
	// looks at C memory.
	slot := (*uintptr)(unsafe.Pointer(&out.Data))
	switch {
	case oob != "":
		*slot = uintptr(unsafe.Pointer(C.CString(oob)))
		out.Size = 0
	case len(res) == 0:
		*slot = 0
		out.Size = 0
	case len(res) <= InlineMax:
		out.Data = [InlineMax]byte{}
		copy(out.Data[:], res)
		out.Size = C.size_t(len(res))
	default:
		p := C.malloc(C.size_t(len(res)))
		copy(unsafe.Slice((*byte)(p), len(res)), res)
		*slot = uintptr(p)
		out.Size = C.size_t(len(res))
	}
}
