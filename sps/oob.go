package sps

import "errors"

// The out-of-band messages of the two transport failures. They travel to
// and from LLVM verbatim, so they are not package-prefixed.
const (
	// MsgNoController completes a controller call made while no
	// controller is attached (before attach or after detach).
	MsgNoController = "no controller attached"
	// MsgDisconnected completes a controller call failed by a disconnect.
	MsgDisconnected = "disconnected"
)

// Sentinel errors for the two transport failures, for errors.Is. Their
// text keeps the "rt: " prefix of the Session package, which re-exports
// them (rt.ErrDisconnected, rt.ErrNoController): it is the text callers
// have always seen.
var (
	// ErrDisconnected matches an [OutOfBandError] whose message is
	// [MsgDisconnected].
	ErrDisconnected = errors.New("rt: " + MsgDisconnected)
	// ErrNoController matches an [OutOfBandError] whose message is
	// [MsgNoController].
	ErrNoController = errors.New("rt: " + MsgNoController)
)

// OutOfBandError is a wrapper-function call that completed with an
// out-of-band error: the third state of a CWrapperFunctionResult beside
// result bytes and empty, a message that is not result payload
// (docs/protocol.md §4.1). Error returns the message exactly as upstream
// spells it (for example "disconnected"), without a package prefix,
// because it may have come from the other side. Native wrapper calls
// (package native) and the Session (package rt, which names it
// rt.OutOfBandError) both return it.
//
// errors.Is(err, ErrDisconnected) and errors.Is(err, ErrNoController)
// recognise the two transport failures.
type OutOfBandError struct {
	Msg string
}

func (e *OutOfBandError) Error() string { return e.Msg }

// Is reports whether e is the out-of-band form of target.
func (e *OutOfBandError) Is(target error) bool {
	switch target {
	case ErrDisconnected:
		return e.Msg == MsgDisconnected
	case ErrNoController:
		return e.Msg == MsgNoController
	}
	return false
}
