package rt

import (
	"errors"
	"fmt"

	"github.com/orcgo/orcrt/sps"
)

// Upstream's out-of-band error and error messages. They travel to and
// from LLVM verbatim, so they are not "rt: "-prefixed.
const (
	// MsgSerializeResult is the out-of-band result of a typed wrapper
	// whose result could not be encoded.
	MsgSerializeResult = "Could not serialize wrapper function result data"
	// MsgSerializeArgs is the caller-side error when call arguments could
	// not be encoded.
	MsgSerializeArgs = "Could not serialize wrapper function call arguments"
	// MsgDeserializeResult is the caller-side error when result bytes do
	// not decode.
	MsgDeserializeResult = "Could not deserialize result"
	// MsgNoController completes a controller call made while no
	// ControllerAccess is attached (before attach or after detach).
	MsgNoController = sps.MsgNoController
	// MsgDisconnected completes a controller call failed by a disconnect.
	MsgDisconnected = sps.MsgDisconnected
	// MsgInvalidCallID is reported when a result names a call id that is
	// not pending.
	MsgInvalidCallID = "Invalid call id"
)

// Sentinel errors, for errors.Is.
var (
	// ErrKeepaliveDenied: the Session's keepalive group is closed (shutdown
	// has been requested and reached the keepalive stage), so no new
	// Session-managed work may start.
	ErrKeepaliveDenied = errors.New("rt: keepalive denied: session is shutting down")
	// ErrDisconnected matches an [OutOfBandError] whose message is
	// [MsgDisconnected] (it is [sps.ErrDisconnected]).
	ErrDisconnected = sps.ErrDisconnected
	// ErrNoController matches an [OutOfBandError] whose message is
	// [MsgNoController] (it is [sps.ErrNoController]).
	ErrNoController = sps.ErrNoController
)

// KeepaliveDeniedError is returned when a keepalive token is refused
// because shutdown has closed the Session's keepalive group.
// errors.Is(err, ErrKeepaliveDenied) matches it.
type KeepaliveDeniedError struct{}

func (*KeepaliveDeniedError) Error() string { return ErrKeepaliveDenied.Error() }

// Is reports whether target is ErrKeepaliveDenied.
func (*KeepaliveDeniedError) Is(target error) bool { return target == ErrKeepaliveDenied }

// OutOfBandError is a wrapper-function call that completed with an
// out-of-band error: a message that is not result payload. Error returns
// the message exactly as upstream spells it (for example "disconnected"),
// without a package prefix, because it may have come from the other side.
//
// errors.Is(err, ErrDisconnected) and errors.Is(err, ErrNoController)
// recognise the two transport failures. It is [sps.OutOfBandError], which
// package native returns too.
type OutOfBandError = sps.OutOfBandError

// DecodeResultError is the caller-side failure to decode result bytes.
// Error returns [MsgDeserializeResult] exactly; Unwrap gives the codec's
// *sps.DecodeError naming the offset.
type DecodeResultError struct {
	Err error
}

func (e *DecodeResultError) Error() string { return MsgDeserializeResult }
func (e *DecodeResultError) Unwrap() error { return e.Err }

// SerializeArgsError is the caller-side failure to encode call arguments.
// Error returns [MsgSerializeArgs] exactly; Unwrap gives the cause.
type SerializeArgsError struct {
	Err error
}

func (e *SerializeArgsError) Error() string { return MsgSerializeArgs }
func (e *SerializeArgsError) Unwrap() error { return e.Err }

// panicError turns a recovered panic value into an error.
func panicError(what string, v any) error {
	if err, ok := v.(error); ok {
		return fmt.Errorf("rt: %s panicked: %w", what, err)
	}
	return fmt.Errorf("rt: %s panicked: %v", what, v)
}
