package memconn

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/sps"
)

// CheckOutput verifies an executor's output stream as any controller may
// rely on it: a well-formed Setup (in layout setup) first, then only Results (with a zero
// TagAddr), CallWrappers and at most one Hangup (payload 0x00, only if
// hangupOK: the executor disconnected locally), nothing after the Hangup.
// visit sees each Result and CallWrapper in order and may refuse it. A
// stream cut inside a message written as header then payload (over 64
// KiB, which teardown may interrupt) ends without error.
func CheckOutput(out []byte, setup sps.Codec[sps.SetupInfo], hangupOK bool, visit func(h simpleremote.Header) error) error {
	return CheckOutputWire(out, setup, hangupOK, dialect.WireProtocol{}, visit)
}

// CheckOutputWire is CheckOutput for the wire rules of a dialect: under
// ResultKinds a Result's tag may also be 1, an out-of-band error whose
// payload is an SPSString; under HangupReasons a Hangup carrying an error
// (the reason the executor ended the session) is allowed without a local
// disconnect.
func CheckOutputWire(out []byte, setup sps.Codec[sps.SetupInfo], hangupOK bool, wire dialect.WireProtocol, visit func(h simpleremote.Header) error) error {
	r := simpleremote.NewReader(bytes.NewReader(out), math.MaxUint64, 4096)
	h, p, err := r.ReadMsg()
	if err != nil || h.Op != simpleremote.OpSetup || h.SeqNo != 0 || h.Tag != 0 {
		return fmt.Errorf("memconn: first output message: %v, %v", h, err)
	}
	if _, err := sps.Unmarshal(setup, p); err != nil {
		return fmt.Errorf("memconn: Setup payload: %w", err)
	}
	hungUp := false
	for {
		h, p, err := r.ReadMsg()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if errors.Is(err, simpleremote.ErrUnexpectedEOF) && h.Size > 64<<10 {
				return nil
			}
			return fmt.Errorf("memconn: output stream: %w (after %v)", err, h)
		}
		if hungUp {
			return fmt.Errorf("memconn: %v after Hangup", h)
		}
		switch h.Op {
		case simpleremote.OpResult:
			switch {
			case h.Tag == 0:
			case h.Tag == 1 && wire.ResultKinds:
				if _, err := sps.Unmarshal(sps.String, p); err != nil {
					return fmt.Errorf("memconn: out-of-band error Result: %w", err)
				}
			default:
				return fmt.Errorf("memconn: Result with TagAddr %#x", uint64(h.Tag))
			}
		case simpleremote.OpCallWrapper:
		case simpleremote.OpHangup:
			reason, err := sps.Unmarshal(sps.ErrorCodec, p)
			switch {
			case wire.HangupReasons && err == nil && reason != nil:
				// The executor's own reason for ending the session.
			case !hangupOK:
				return errors.New("memconn: Hangup without a local disconnect")
			case !bytes.Equal(p, []byte{0}):
				return fmt.Errorf("memconn: Hangup payload %x", p)
			}
			hungUp = true
			continue
		default:
			return fmt.Errorf("memconn: executor sent %v", h)
		}
		if err := visit(h); err != nil {
			return err
		}
	}
}

// IsWireError reports whether err is one of the wire layer's terminal
// errors: the stock executor's protocol messages, a Result for no call,
// orcrt's message-size limit, or LLVM main's Hangup reason and result
// kind.
func IsWireError(err error) bool {
	var pe *simpleremote.ProtocolError
	var nc *simpleremote.NoCallError
	var tl *simpleremote.MessageTooLargeError
	var he *simpleremote.HangupError
	var rk *simpleremote.ResultKindError
	return errors.As(err, &pe) || errors.As(err, &nc) || errors.As(err, &tl) || errors.As(err, &he) || errors.As(err, &rk)
}
