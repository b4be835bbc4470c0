//go:build cgo

package entry

import (
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/native/codemap"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// LLVM 22 bootstrap symbol names (docs/protocol.md §3.2).
const (
	RunAsMainName         = "__llvm_orc_bootstrap_run_as_main_wrapper"
	RunAsVoidFunctionName = "__llvm_orc_bootstrap_run_as_void_function_wrapper"
	RunAsIntFunctionName  = "__llvm_orc_bootstrap_run_as_int_function_wrapper"
	// CallMainName is orc-rt's int64_t(SPSExecutorAddr,
	// SPSSequence<SPSString>), by which LLVM main's controller runs main
	// (rt::sps_ci::CallMain, llvm-project PR #213265).
	CallMainName = "orc_rt_ci_sps_call_main"
)

// resultCap is the spare capacity given to native wrapper calls, so that
// results up to this size take a single Go->C transition.
const resultCap = 256

// oob turns a native call error into an out-of-band result.
func oob(what string, err error) rt.WrapperResult {
	var e *rt.OutOfBandError
	if errors.As(err, &e) {
		return rt.OutOfBandResult(e.Msg) // the callee's own message, verbatim
	}
	return rt.OutOfBandResult(fmt.Sprintf("entry: %s: %v", what, err))
}

// RunAsMain is the run_as_main wrapper function.
func RunAsMain(s *rt.Session, args []byte, ret rt.ReturnFunc) {
	fn, argv, err := sps.RunAsMain.DecodeArgs(args)
	if err != nil {
		ret(rt.OutOfBandResult(s.Dialect().DeserializeArgs))
		return
	}
	if r, ok := guard("run_as_main", fn); !ok {
		ret(r)
		return
	}
	r, err := native.CallMain(uintptr(fn), argv)
	native.FlushStdout() // output appears per call, before its result
	if err != nil {
		ret(oob("run_as_main", err))
		return
	}
	ret(rt.ResultBytes(sps.RunAsMain.AppendResult(make([]byte, 0, 8), int64(r))))
}

// RunAsVoidFunction is the run_as_void_function wrapper function.
func RunAsVoidFunction(s *rt.Session, args []byte, ret rt.ReturnFunc) {
	fn, err := sps.RunAsVoidFunction.DecodeArgs(args)
	if err != nil {
		ret(rt.OutOfBandResult(s.Dialect().DeserializeArgs))
		return
	}
	if r, ok := guard("run_as_void_function", fn); !ok {
		ret(r)
		return
	}
	r, err := native.CallIntVoid(uintptr(fn))
	native.FlushStdout() // output appears per call, before its result
	if err != nil {
		ret(oob("run_as_void_function", err))
		return
	}
	ret(rt.ResultBytes(sps.RunAsVoidFunction.AppendResult(make([]byte, 0, 4), r)))
}

// RunAsIntFunction is the run_as_int_function wrapper function.
func RunAsIntFunction(s *rt.Session, args []byte, ret rt.ReturnFunc) {
	fn, arg, err := sps.RunAsIntFunction.DecodeArgs(args)
	if err != nil {
		ret(rt.OutOfBandResult(s.Dialect().DeserializeArgs))
		return
	}
	if r, ok := guard("run_as_int_function", fn); !ok {
		ret(r)
		return
	}
	r, err := native.CallIntInt(uintptr(fn), arg)
	native.FlushStdout() // output appears per call, before its result
	if err != nil {
		ret(oob("run_as_int_function", err))
		return
	}
	ret(rt.ResultBytes(sps.RunAsIntFunction.AppendResult(make([]byte, 0, 4), r)))
}

// CallJITWrapper calls the JIT'd wrapper function at target natively with
// args and returns its result: bytes, empty, or its out-of-band error
// message verbatim. It is an rt.UnknownTargetFunc.
func CallJITWrapper(_ *rt.Session, target sps.Addr, args []byte, ret rt.ReturnFunc) {
	res, err := codemap.CallWrapper(uintptr(target), args, make([]byte, 0, resultCap))
	native.FlushStdout() // output appears per call, before its result
	if err != nil {
		what := fmt.Sprintf("call of JIT'd wrapper %#x", uint64(target))
		if nc := (*codemap.NotCodeError)(nil); errors.As(err, &nc) {
			what = "call of JIT'd wrapper" // the refusal names the address
		}
		ret(oob(what, err))
		return
	}
	ret(rt.ResultBytes(res))
}

// Install registers the three run wrappers on s and publishes them in
// syms under their LLVM 22 bootstrap names. It does not install
// CallJITWrapper; do that with s.SetUnknownTargetHandler.
func Install(s *rt.Session, syms *rt.SymbolTable) error {
	main := s.RegisterWrapper(RunAsMain, rt.BorrowArgs)
	symbols := []rt.Symbol{
		{Name: RunAsMainName, Addr: main},
		{Name: RunAsVoidFunctionName, Addr: s.RegisterWrapper(RunAsVoidFunction, rt.BorrowArgs)},
		{Name: RunAsIntFunctionName, Addr: s.RegisterWrapper(RunAsIntFunction, rt.BorrowArgs)},
	}
	if s.Dialect().OrcRTNames {
		// orc-rt's call_main has run_as_main's signature (CallSPSCI.cpp).
		symbols = append(symbols, rt.Symbol{Name: CallMainName, Addr: main})
	}
	if err := syms.AddUnique(symbols...); err != nil {
		return fmt.Errorf("entry: install: %w", err)
	}
	return nil
}
