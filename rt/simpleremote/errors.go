package simpleremote

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// Stock error texts that end a session (docs/protocol.md §8.2); printed
// as "<argv0>: <text>", so they carry no package prefix.
const (
	MsgUnexpectedEOF    = "Unexpected end-of-file"
	MsgSizeTooSmall     = "Message size too small"
	MsgUnexpectedOpcode = "Unexpected opcode"
	MsgUnexpectedSetup  = "Unexpected Setup opcode"
)

// ProtocolError is a terminal protocol violation by the peer; Error() is
// exactly Msg, the stock text.
type ProtocolError struct {
	Msg string
}

func (e *ProtocolError) Error() string { return e.Msg }

// Terminal protocol errors. Each Error() is exactly the stock text.
var (
	// ErrUnexpectedEOF: end of input inside a header or a payload.
	ErrUnexpectedEOF error = &ProtocolError{MsgUnexpectedEOF}
	// ErrMessageTooSmall: a header whose MsgSize is below HeaderSize.
	ErrMessageTooSmall error = &ProtocolError{MsgSizeTooSmall}
	// ErrUnexpectedOpcode: an opcode other than 0..3.
	ErrUnexpectedOpcode error = &ProtocolError{MsgUnexpectedOpcode}
	// ErrUnexpectedSetup: the controller sent a Setup message.
	ErrUnexpectedSetup error = &ProtocolError{MsgUnexpectedSetup}
	// ErrMessageTooLarge is matched (errors.Is) by *MessageTooLargeError.
	ErrMessageTooLarge error = &ProtocolError{"Message size exceeds the limit"}
	// ErrNoCall is matched (errors.Is) by *NoCallError.
	ErrNoCall error = &ProtocolError{"No call for sequence number"}

	// Under dialect.WireProtocol.HangupReasons (LLVM main), in the texts
	// of main's SimpleRemoteEPC.cpp and orc-rt's SimpleRemoteCA.cpp:
	// ErrNoHangup is an end of input without a Hangup,
	ErrNoHangup error = &ProtocolError{"Connection closed without hangup"}
	// ErrMalformedHangup a Hangup with a sequence number or a tag, or
	// whose payload is not an SPSError.
	ErrMalformedHangup error = &ProtocolError{"Malformed hang-up message: could not deserialize reason"}
)

// HangupError is a Hangup carrying an error: the reason the controller
// went away (dialect.WireProtocol.HangupReasons). Error() is its text.
type HangupError struct{ Msg string }

func (e *HangupError) Error() string { return e.Msg }

// ResultKindError is a Result whose tag names no result kind
// (dialect.WireProtocol.ResultKinds).
type ResultKindError struct{ Kind uint64 }

func (e *ResultKindError) Error() string {
	return "Malformed result message: invalid kind " + strconv.FormatUint(e.Kind, 10)
}

// NoCallError is a Result whose sequence number names no pending call:
// "No call for sequence number N".
type NoCallError struct {
	SeqNo uint64
}

func (e *NoCallError) Error() string {
	return "No call for sequence number " + strconv.FormatUint(e.SeqNo, 10)
}

// Is reports whether target is ErrNoCall.
func (e *NoCallError) Is(target error) bool { return target == ErrNoCall }

// MessageTooLargeError is a header whose MsgSize exceeds the reader's
// limit (orcrt only).
type MessageTooLargeError struct {
	Size, Limit uint64
}

func (e *MessageTooLargeError) Error() string {
	return fmt.Sprintf("Message size %d exceeds the limit of %d bytes", e.Size, e.Limit)
}

// Is reports whether target is ErrMessageTooLarge.
func (e *MessageTooLargeError) Is(target error) bool { return target == ErrMessageTooLarge }

// IOError is a read or write failure of the transport. Error() is glibc's
// strerror text of the errno ("Broken pipe"), or the cause's text without
// one; Unwrap gives the cause.
type IOError struct {
	Op  string // "read" or "write"
	Err error
}

func (e *IOError) Error() string {
	var errno syscall.Errno
	if errors.As(e.Err, &errno) {
		return Strerror(errno)
	}
	return e.Err.Error()
}

func (e *IOError) Unwrap() error { return e.Err }

// Strerror returns glibc's strerror text for errno (Go's with the first
// letter upper-cased; "Unknown error N" where Go has none).
func Strerror(errno syscall.Errno) string {
	if errno == 133 && strings.HasPrefix(errno.Error(), "errno ") {
		return "Memory page has hardware error" // EHWPOISON, absent from Go's table
	}
	s := errno.Error()
	if strings.HasPrefix(s, "errno ") {
		return "Unknown error " + strconv.FormatUint(uint64(errno), 10)
	}
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError || !unicode.IsLower(r) {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// UsageError is a command-line error of the executor: Msg is the stock
// text (docs/protocol.md §1.1), which an executor binary prints as
// "error: <Msg>\n\n" and its usage text, and exits 1.
type UsageError struct {
	Msg string
	// Hint, if set, is orcrt's help that Error() adds in parentheses:
	// an executor binary prints Msg and a usage text, a library host
	// only Error().
	Hint string
}

func (e *UsageError) Error() string {
	if e.Hint == "" {
		return e.Msg
	}
	return e.Msg + " (" + e.Hint + ")"
}
