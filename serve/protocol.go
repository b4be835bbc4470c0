//go:build cgo && linux

package serve

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// A serve worker's command line is WorkerArg and its flags (limits.go);
// the server re-executes Config.WorkerPath with it, the control socket
// as descriptor ctlFD, the session counter as idsFD and its listening
// sockets from listenFD on.
const (
	ctlFD    = 3
	idsFD    = 4
	listenFD = 5
)

// Control messages on the worker's SOCK_SEQPACKET socketpair, one per
// packet, fields separated by NUL. Worker to server: "ready"; "started"
// once Setup is out (peer pid, dialect, evidence, session id, accept
// time, and for a connection the worker accepted itself the peer's
// network, address, uid and gid); "refused" (kind, network, address,
// uid, pid, why) for a peer the policy turned away; "end" (reason).
// Server to worker: "accept" (wait on the listening sockets too),
// "session" (id) with a connection the server accepted, as SCM_RIGHTS;
// the end of the stream lets the worker go. A worker opens its session's
// output files (-output) itself.
const (
	msgReady   = "ready"
	msgAccept  = "accept"
	msgSession = "session"
	msgStarted = "started"
	msgRefused = "refused"
	msgEnd     = "end"
)

// ctlSock is a worker's end of its control socket.
type ctlSock int

// send sends one control message to the server.
func (c ctlSock) send(fields ...string) error {
	b := []byte(fields[0])
	for _, f := range fields[1:] {
		b = append(append(b, 0), f...)
	}
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

// recv reads one message from the server without blocking (EAGAIN if
// none), with the descriptors it carries; "" and none at the end of the
// stream.
func (c ctlSock) recv() (msg string, fds []int, err error) {
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

// cutField splits a control message at its first NUL.
func cutField(s string) (head, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}
