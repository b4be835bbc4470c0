//go:build cgo && linux

package wire

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The kinds of control message (the package documentation lists who
// sends which, with what).
const (
	MsgReady   = "ready"
	MsgAccept  = "accept"
	MsgSession = "session"
	MsgStarted = "started"
	MsgRefused = "refused"
	MsgEnd     = "end"
)

// Encode is one control message: its fields joined by NUL.
func Encode(fields ...string) []byte {
	b := []byte(fields[0])
	for _, f := range fields[1:] {
		b = append(append(b, 0), f...)
	}
	return b
}

// Fields splits a control message into its fields.
func Fields(msg []byte) []string { return strings.Split(string(msg), "\x00") }

// CutField splits a control message at its first NUL.
func CutField(s string) (head, rest string, ok bool) {
	return strings.Cut(s, "\x00")
}

// Started is a worker's report that its session's Setup is out. For a
// connection the worker accepted itself it carries the peer (Network
// not empty); for one the server handed over, the server knows it.
type Started struct {
	PID          int // the controller's process (-1, 0: unknown)
	Dialect, How string
	ID           uint64
	Accepted     time.Time
	Network      string // "unix" or "tcp"; "" for a hand-over
	Addr         string
	UID, GID     int
}

// Encode is s as a MsgStarted message.
func (s Started) Encode() []byte {
	return Encode(MsgStarted, strconv.Itoa(s.PID), s.Dialect, s.How,
		strconv.FormatUint(s.ID, 10), strconv.FormatInt(s.Accepted.UnixNano(), 10),
		s.Network, s.Addr, strconv.Itoa(s.UID), strconv.Itoa(s.GID))
}

// ParseStarted reads a MsgStarted message's fields (f[0] is its kind);
// false if malformed. A PID that does not parse is -1.
func ParseStarted(f []string) (Started, bool) {
	if len(f) != 10 || f[0] != MsgStarted {
		return Started{}, false
	}
	s := Started{Dialect: f[2], How: f[3], Network: f[6], Addr: f[7]}
	var err error
	if s.PID, err = strconv.Atoi(f[1]); err != nil {
		s.PID = -1
	}
	id, err1 := strconv.ParseUint(f[4], 10, 64)
	ns, err2 := strconv.ParseInt(f[5], 10, 64)
	uid, err3 := strconv.Atoi(f[8])
	gid, err4 := strconv.Atoi(f[9])
	if errors.Join(err1, err2, err3, err4) != nil {
		return Started{}, false
	}
	s.ID, s.Accepted, s.UID, s.GID = id, time.Unix(0, ns), uid, gid
	return s, true
}

// Refused is a worker's report of a peer the policy turned away.
type Refused struct {
	Kind          string // the status's refusal count it goes to
	Network, Addr string
	UID, PID      int
	Why           string
}

// Encode is r as a MsgRefused message.
func (r Refused) Encode() []byte {
	return Encode(MsgRefused, r.Kind, r.Network, r.Addr, strconv.Itoa(r.UID), strconv.Itoa(r.PID), r.Why)
}

// ParseRefused reads a MsgRefused message's fields; false if malformed.
func ParseRefused(f []string) (Refused, bool) {
	if len(f) != 7 || f[0] != MsgRefused {
		return Refused{}, false
	}
	uid, _ := strconv.Atoi(f[4])
	pid, _ := strconv.Atoi(f[5])
	return Refused{Kind: f[1], Network: f[2], Addr: f[3], UID: uid, PID: pid, Why: f[6]}, true
}

// Ctl is a worker's end of its control socket.
type Ctl int

// Send sends one message of fields to the server.
func (c Ctl) Send(fields ...string) error { return c.SendMsg(Encode(fields...)) }

// SendMsg sends one encoded message to the server.
func (c Ctl) SendMsg(b []byte) error {
	for {
		_, err := unix.Write(int(c), b)
		if !errors.Is(err, unix.EINTR) {
			if err != nil {
				return fmt.Errorf("control socket: %w", err)
			}
			return nil
		}
	}
}

// Recv reads one message from the server without blocking (EAGAIN if
// none), with the descriptors it carries; "" and none at the end of the
// stream.
func (c Ctl) Recv() (msg string, fds []int, err error) {
	buf := make([]byte, 128)
	oob := make([]byte, unix.CmsgSpace(3*4))
	var n, oobn int
	for {
		n, oobn, _, _, err = unix.Recvmsg(int(c), buf, oob, unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		if errors.Is(err, unix.EAGAIN) {
			return "", nil, err
		}
		return "", nil, fmt.Errorf("control socket: %w", err)
	}
	scms, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return "", nil, fmt.Errorf("control socket: %w", err)
	}
	for _, scm := range scms {
		got, err := unix.ParseUnixRights(&scm)
		if err != nil {
			for _, fd := range fds {
				_ = unix.Close(fd)
			}
			return "", nil, fmt.Errorf("control socket: %w", err)
		}
		fds = append(fds, got...)
	}
	return string(buf[:n]), fds, nil
}
