package simpleremote

import (
	"fmt"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// adoptFDs is AdoptFDs, naming the descriptors inText and outText in
// usage errors.
func adoptFDs(in, out int, inText, outText string) (*FileConn, error) {
	if err := checkFD(in); err != nil {
		return nil, &UsageError{Msg: inText + " is not a valid file descriptor"}
	}
	if err := checkFD(out); err != nil {
		return nil, &UsageError{Msg: outText + " is not a valid file descriptor"}
	}
	for _, fd := range []int{in, out} {
		syscall.CloseOnExec(fd)
		if err := syscall.SetNonblock(fd, true); err != nil {
			return nil, fmt.Errorf("simpleremote: adopting file descriptor %d: set non-blocking: %w", fd, err)
		}
	}
	growPipe(in)
	inF := os.NewFile(uintptr(in), "simpleremote-in")
	outF := inF
	if out != in {
		outF = os.NewFile(uintptr(out), "simpleremote-out")
	}
	return NewFileConn(inF, outF), nil
}

// inputPipeSize is the capacity AdoptFDs gives an input pipe: a 1 MiB
// message (an initialize request carrying a large graph's content, a
// mem_write_buffers) then crosses in one or two reads instead of sixteen
// 64 KiB ones, each a wake-up of both processes. It is Linux's default
// /proc/sys/fs/pipe-max-size, so it needs no privilege; the kernel
// allocates the pages only as data is queued.
const inputPipeSize = 1 << 20

// growPipe enlarges fd's pipe buffer to inputPipeSize, if fd is a pipe.
// Best effort: F_SETPIPE_SZ fails on anything else, or beyond the
// caller's pipe-buffer quota, and the pipe then keeps its size.
func growPipe(fd int) {
	const fSetPipeSz = 1031 // F_SETPIPE_SZ (F_LINUX_SPECIFIC_BASE + 7)
	_, _, _ = syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), fSetPipeSz, inputPipeSize)
}

// checkFD reports whether fd is an open descriptor.
func checkFD(fd int) error {
	if fd < 0 {
		return syscall.EBADF
	}
	_, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	if e != 0 {
		return e
	}
	return nil
}

// How shutdownFile shuts a socket down.
const (
	shutRD   = syscall.SHUT_RD
	shutWR   = syscall.SHUT_WR
	shutRDWR = syscall.SHUT_RDWR
)

// shutdownFile calls shutdown(2) if f is a socket (ENOTSOCK otherwise,
// ignored).
func shutdownFile(f syscall.Conn, how int) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) { _ = syscall.Shutdown(int(fd), how) })
}

// quickAcker re-arms TCP_QUICKACK on a TCP socket. Linux leaves quick-ACK
// mode again on its own (the option is not sticky), and once the
// executor answers each message it counts the connection as interactive
// and delays ACKs; setting the option after a read sends the ACK the
// kernel was holding at once, so a controller whose Nagle algorithm
// holds the rest of a message back waits one round trip, not the
// delayed-ACK timer. A zero quickAcker does nothing.
type quickAcker struct {
	rc syscall.RawConn
}

// init arms quick ACKs on sc's socket and keeps its raw connection.
func (q *quickAcker) init(sc syscall.Conn) error {
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	q.rc = rc
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1) }); err != nil {
		return err
	}
	return serr
}

// rearm sets TCP_QUICKACK again; best effort (a closed socket fails,
// and the read that follows reports it).
func (q *quickAcker) rearm() {
	if q.rc == nil {
		return
	}
	_ = q.rc.Control(func(fd uintptr) { _ = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1) })
}
