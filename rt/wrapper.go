package rt

import (
	"sync/atomic"
)

// WrapperResult is the result of a wrapper-function call, with upstream's
// three states:
//
//   - bytes: a non-empty payload ([ResultBytes]);
//   - empty: no bytes and no error (the zero value, [EmptyResult]);
//   - out-of-band error: a message that is NOT payload
//     ([OutOfBandResult]). On the LLVM 22 wire it travels as an empty
//     Result payload, never as bytes.
//
// An out-of-band error and an empty result both have Size 0; use
// [WrapperResult.IsOutOfBandError] to tell them apart. A WrapperResult is a
// small value; the bytes it carries are owned by whoever holds it (see
// [ResultBytes]).
type WrapperResult struct {
	data []byte
	msg  string
	oob  bool
}

// EmptyResult returns the empty result (the zero WrapperResult).
func EmptyResult() WrapperResult { return WrapperResult{} }

// ResultBytes returns a result holding b without copying it: ownership of
// b passes to the result, and whoever the result is handed to (the
// Session, a ControllerAccess, a result callback) may keep b indefinitely.
// The caller must not modify b afterwards. An empty b gives the empty
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

// ReturnFunc delivers a wrapper function's result. It must be called
// exactly once per call, possibly after the wrapper function has returned
// and from another goroutine; the Session panics on a second call.
// Ownership of the result's bytes passes to the ReturnFunc.
type ReturnFunc func(WrapperResult)

// WrapperFunc is the Go form of an orc_rt_WrapperFunction: a function the
// controller calls by address.
//
// args is the argument buffer. It belongs to the callee: nothing else
// reads or writes it after the call starts, and the callee may keep it (or
// views into it, as the typed handlers' decoded []byte arguments are) for
// as long as it likes — unless the function was registered with
// [BorrowArgs], in which case it must let go of args once it has
// returned and called ret. ret delivers the result exactly once, now or
// later.
//
// The Session runs a wrapper function inside a dispatched Task that holds
// a keepalive token only for the synchronous execution of the function: a
// function that defers ret does not delay shutdown, and must not assume
// the Session is still attached when it finally returns (results sent
// after detach are dropped).
type WrapperFunc func(s *Session, args []byte, ret ReturnFunc)

// Caller sends args to some wrapper function and arranges for onResult to
// be called exactly once with its result, possibly later and from another
// goroutine. Ownership of args passes to the Caller. Callers come from
// [Session.ControllerCaller] (calls into the controller by tag),
// [DirectCaller] (an in-process call of a WrapperFunc) and
// [LoopbackController.Caller] (the loopback controller calling executor
// wrappers by address).
type Caller func(args []byte, onResult func(WrapperResult))

// DirectCaller returns a Caller that invokes fn on the calling goroutine
// with s as its Session, without dispatch or keepalive: the Go form of
// upstream's test DirectCaller. A second return by fn panics.
func DirectCaller(s *Session, fn WrapperFunc) Caller {
	return func(args []byte, onResult func(WrapperResult)) {
		fn(s, args, onceReturn(onResult))
	}
}

// onceReturn wraps f so that a second call panics rather than delivering
// a result twice.
func onceReturn(f func(WrapperResult)) ReturnFunc {
	var done atomic.Bool
	return func(r WrapperResult) {
		if done.Swap(true) {
			panic("rt: wrapper function returned its result twice")
		}
		f(r)
	}
}
