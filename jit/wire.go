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
	numTags
)

var tagNames = [numTags]string{
	"orcrt_jit_add", "orcrt_jit_compile", "orcrt_jit_lookup", "orcrt_jit_remove", "orcrt_jit_library", "orcrt_jit_close",
}

// readySymbol is the wrapper the controller calls, with its LLVM version
// and controllerProtocol, once it answers requests.
const readySymbol = "orcrt_jit_ready"

// controllerProtocol is the version of the requests below; a controller
// built from other sources announces another and is refused.
const controllerProtocol = 2

// tagBytes gives each tag a distinct address of this process: the
// controller only maps addresses to handlers, it never reads them.
var tagBytes [numTags]byte

func tagAddr(tag int) sps.Addr { return sps.Addr(uintptr(unsafe.Pointer(&tagBytes[tag]))) }

// Module kinds of an add request.
const (
	kindObject uint8 = 0
	kindIR     uint8 = 1
)

var (
	addSig     = sps.Func3[string, uint8, []byte, sps.Expected[uint64]]{Arg1: sps.String, Arg2: sps.U8, Arg3: sps.BytesView, Ret: sps.ExpectedOf(sps.U64)}
	compileSig = sps.Func3[string, []string, string, sps.Expected[uint64]]{Arg1: sps.String, Arg2: sps.Seq(sps.String), Arg3: sps.String, Ret: sps.ExpectedOf(sps.U64)}
	lookupSig  = sps.Func2[uint64, []string, sps.Expected[[]sps.Addr]]{Arg1: sps.U64, Arg2: sps.Seq(sps.String), Ret: sps.ExpectedOf(sps.Seq(sps.AddrCodec))}
	removeSig  = sps.Func1[uint64, error]{Arg1: sps.U64, Ret: sps.ErrorCodec}
	librarySig = sps.Func1[string, error]{Arg1: sps.String, Ret: sps.ErrorCodec}
	closeSig   = sps.Func0[error]{Ret: sps.ErrorCodec}
	readySig   = sps.Func2[string, uint32, struct{}]{Arg1: sps.String, Arg2: sps.U32, Ret: sps.Empty}
)
