package rt

import (
	"sync/atomic"
)

// WrapperResult is the result of a wrapper-function call in one of
// upstream's three states: bytes ([ResultBytes]), empty (the zero value),
// or an out-of-band error ([OutOfBandResult]; an empty payload on the
// LLVM 22 wire, docs/protocol.md §4.2). Both of the latter have Size 0.
// The bytes are owned by whoever holds the result.
type WrapperResult struct {
	data []byte
	msg  string
	oob  bool
}

// EmptyResult returns the empty result (the zero WrapperResult).
func EmptyResult() WrapperResult { return WrapperResult{} }

// ResultBytes returns a result holding b without copying it; ownership of
// b passes to whoever receives the result. An empty b gives the empty
// result.
func ResultBytes(b []byte) WrapperResult {
	if len(b) == 0 {
		return WrapperResult{}
	}
	return WrapperResult{data: b}
}

// CopyResult returns a result holding a copy of b (upstream's
// copyFrom(ptr, n)); an empty b gives the empty result.
func CopyResult(b []byte) WrapperResult {
	if len(b) == 0 {
		return WrapperResult{}
	}
	return WrapperResult{data: append([]byte(nil), b...)}
}

// CStringResult returns a result holding s and a terminating NUL
// (upstream's copyFrom(const char*)), so its size is len(s)+1.
func CStringResult(s string) WrapperResult {
	b := make([]byte, len(s)+1)
	copy(b, s)
	return WrapperResult{data: b}
}

// OutOfBandResult returns an out-of-band error result carrying msg.
func OutOfBandResult(msg string) WrapperResult {
	return WrapperResult{msg: msg, oob: true}
}

// Bytes returns the payload (nil for empty and out-of-band results). The
// slice is the result's storage, not a copy.
func (r WrapperResult) Bytes() []byte { return r.data }

// Size returns the payload length (0 for empty and out-of-band results).
func (r WrapperResult) Size() int { return len(r.data) }

// Empty reports whether r has no payload and no out-of-band error.
func (r WrapperResult) Empty() bool { return len(r.data) == 0 && !r.oob }

// IsOutOfBandError reports whether r is an out-of-band error.
func (r WrapperResult) IsOutOfBandError() bool { return r.oob }

// OutOfBandError returns the out-of-band error message and true, or ""
// and false for a bytes or empty result.
func (r WrapperResult) OutOfBandError() (string, bool) { return r.msg, r.oob }

// Err returns the out-of-band error as an *[OutOfBandError], or nil.
func (r WrapperResult) Err() error {
	if !r.oob {
		return nil
	}
	return &OutOfBandError{Msg: r.msg}
}

// ReturnFunc delivers a wrapper function's result exactly once (a second
// call panics), possibly later and from another goroutine.
type ReturnFunc func(WrapperResult)

// WrapperFunc is the Go form of an orc_rt_WrapperFunction: a function the
// controller calls by address. args belongs to the callee, which may keep
// it, unless it was registered with [BorrowArgs]. ret delivers the result
// exactly once, now or later. The keepalive token of the call covers only
// the function's synchronous execution; results sent after detach are
// dropped.
type WrapperFunc func(s *Session, args []byte, ret ReturnFunc)

// Caller sends args (ownership passes) to some wrapper function and calls
// onResult exactly once with its result, possibly later and elsewhere:
// [Session.ControllerCaller], [DirectCaller], [LoopbackController.Caller].
type Caller func(args []byte, onResult func(WrapperResult))

// DirectCaller returns a Caller that invokes fn on the calling goroutine,
// without dispatch or keepalive. A second return by fn panics.
func DirectCaller(s *Session, fn WrapperFunc) Caller {
	return func(args []byte, onResult func(WrapperResult)) {
		fn(s, args, onceReturn(onResult))
	}
}

// onceReturn wraps f so that a second call panics.
func onceReturn(f func(WrapperResult)) ReturnFunc {
	var done atomic.Bool
	return func(r WrapperResult) {
		if done.Swap(true) {
			panic("rt: wrapper function returned its result twice")
		}
		f(r)
	}
}
