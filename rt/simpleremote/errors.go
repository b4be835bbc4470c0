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

// Stock error texts of LLVM 22's FDSimpleRemoteEPCTransport and
// SimpleRemoteEPCServer (protocol.md §8). They end a session; the executor
// prints them as "<argv0>: <text>" and exits 1, so they carry no package
// prefix.
const (
	MsgUnexpectedEOF    = "Unexpected end-of-file"
	MsgSizeTooSmall     = "Message size too small"
	MsgUnexpectedOpcode = "Unexpected opcode"
	MsgUnexpectedSetup  = "Unexpected Setup opcode"
)

// ProtocolError is a terminal protocol violation by the peer. Error()
// is exactly Msg, the stock text (capitalised, unprefixed, because it is
// printed as the executor's last word).
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
)

// NoCallError is a Result whose sequence number names no pending
// executor->controller call: never issued, or already answered. Its text
// is the stock "No call for sequence number N".
type NoCallError struct {
	SeqNo uint64
}

func (e *NoCallError) Error() string {
	return "No call for sequence number " + strconv.FormatUint(e.SeqNo, 10)
}

// Is reports whether target is ErrNoCall.
func (e *NoCallError) Is(target error) bool { return target == ErrNoCall }

// MessageTooLargeError is a header whose MsgSize exceeds the reader's
// limit. The stock executor has no limit (it allocates whatever the
// header claims); this is orcrt's own, worded like the stock messages.
type MessageTooLargeError struct {
	Size, Limit uint64
}

func (e *MessageTooLargeError) Error() string {
	return fmt.Sprintf("Message size %d exceeds the limit of %d bytes", e.Size, e.Limit)
}

// Is reports whether target is ErrMessageTooLarge.
func (e *MessageTooLargeError) Is(target error) bool { return target == ErrMessageTooLarge }

// IOError is a read or write failure of the transport. Error() is what
// the stock executor prints: the C library's strerror text of the errno
// ("Broken pipe", "Bad file descriptor"), or the cause's own text when
// there is no errno. Unwrap gives the cause, so
// errors.Is(err, syscall.EPIPE) works.
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

// Strerror returns glibc's strerror text for errno. Go's syscall error
// strings are glibc's with the first letter lower-cased (mkerrors.sh does
// that), so this restores it; numbers Go has no text for read "Unknown
// error N", as in glibc.
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

// UsageError is a command-line error of the executor. Msg is the stock
// text (protocol.md §1.1), printed by the executor as
// "error: <Msg>\n\n" followed by [Usage], exit status 1.
type UsageError struct {
	Msg string
}

func (e *UsageError) Error() string { return e.Msg }

// Usage is the stock usage text printed after a UsageError, byte for
// byte (the stock prints it even for orcrt's unix= extension, which it
// does not list).
const Usage = "Usage:\n" +
	"  llvm-jitlink-executor [test-jitloadergdb] filedescs=<infd>,<outfd> [args...]\n" +
	"  llvm-jitlink-executor [test-jitloadergdb] listen=<host>:<port> [args...]\n"

// FormatUsageError returns the complete stock stderr text for a usage
// error: "error: <msg>\n\n" + Usage.
func FormatUsageError(msg string) string {
	return "error: " + msg + "\n\n" + Usage
}
