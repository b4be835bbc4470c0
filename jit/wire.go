//go:build linux && cgo

package jit

import (
	"unsafe"

	"github.com/orcgo/orcrt/sps"
)

// The requests a Go host sends its controller, as executor-to-controller
// calls (jit-dispatch) whose tags it publishes in Setup under these names.
// jit/controller/controller.cpp declares the same signatures.
const (
	tagAdd = iota
	tagCompile
	tagLookup
	tagRemove
	tagLibrary
	tagClose
	tagPing
	tagCancel
	numTags
)

var tagNames = [numTags]string{
	"orcrt_jit_add", "orcrt_jit_compile", "orcrt_jit_lookup", "orcrt_jit_remove", "orcrt_jit_library", "orcrt_jit_close", "orcrt_jit_ping", "orcrt_jit_cancel",
}

// readySymbol is the wrapper the controller calls, with its LLVM version,
// controllerProtocol and the target it compiles for, once it answers
// requests.
const readySymbol = "orcrt_jit_ready"

// controllerProtocol is the version of the requests below; a controller
// built from other sources announces another and is refused.
const controllerProtocol = 4

// tagBytes gives each tag a distinct address of this process: the
// controller only maps addresses to handlers, it never reads them.
var tagBytes [numTags]byte

func tagAddr(tag int) sps.Addr { return sps.Addr(uintptr(unsafe.Pointer(&tagBytes[tag]))) }

// Module kinds of an add request.
const (
	kindObject uint8 = 0
	kindIR     uint8 = 1
)

// deferredCall is an executor call the controller held back from a link
// (the memory's initialize) for this side to run before the add returns;
// it must answer Expected<Addr> with key.
type deferredCall = sps.Triple[sps.Addr, []byte, sps.Addr]

// added is an add's answer: the module's id, every symbol it defines
// with its address and (functions only, else 0) its size, the calls held
// back, and the object compiled (when asked).
type added = sps.Pair[sps.Pair[uint64, []sps.Triple[string, sps.Addr, uint64]], sps.Pair[[]deferredCall, []byte]]

var addedCodec = sps.Tuple2(
	sps.Tuple2(sps.U64, sps.Seq(sps.Tuple3(sps.String, sps.AddrCodec, sps.U64))),
	sps.Tuple2(sps.Seq(sps.Tuple3(sps.AddrCodec, sps.BytesView, sps.AddrCodec)), sps.BytesView))

// addTail is the end of an add's and a compile's arguments: whether to
// answer the object compiled, the ticket a cancel names (0: none), and the
// ids of the modules it links against.
type addTail = sps.Triple[bool, uint64, []uint64]

var addTailCodec = sps.Tuple3(sps.Bool, sps.U64, sps.Seq(sps.U64))

// The last arguments of add and compile travel as nested tuples: SPS
// encodes a tuple as its elements in order, so (a, b, (c, (d, e, f))) is
// the controller's (a, b, c, d, e, f).
var (
	addSig     = sps.Func3[string, uint8, sps.Pair[[]byte, addTail], sps.Expected[added]]{Arg1: sps.String, Arg2: sps.U8, Arg3: sps.Tuple2(sps.BytesView, addTailCodec), Ret: sps.ExpectedOf(addedCodec)}
	compileSig = sps.Func3[string, []string, sps.Pair[string, addTail], sps.Expected[added]]{Arg1: sps.String, Arg2: sps.Seq(sps.String), Arg3: sps.Tuple2(sps.String, addTailCodec), Ret: sps.ExpectedOf(addedCodec)}
	cancelSig  = sps.Func1[uint64, struct{}]{Arg1: sps.U64, Ret: sps.Empty}
	lookupSig  = sps.Func2[uint64, []string, sps.Expected[[]sps.Addr]]{Arg1: sps.U64, Arg2: sps.Seq(sps.String), Ret: sps.ExpectedOf(sps.Seq(sps.AddrCodec))}
	removeSig  = sps.Func1[uint64, error]{Arg1: sps.U64, Ret: sps.ErrorCodec}
	librarySig = sps.Func1[string, error]{Arg1: sps.String, Ret: sps.ErrorCodec}
	closeSig   = sps.Func0[error]{Ret: sps.ErrorCodec}
	pingSig    = sps.Func0[struct{}]{Ret: sps.Empty}
	readySig   = sps.Func3[string, uint32, string, struct{}]{Arg1: sps.String, Arg2: sps.U32, Arg3: sps.String, Ret: sps.Empty}
	// initializeResult is what a deferred call answers.
	initializeResult = sps.ExpectedOf(sps.AddrCodec)
)
