//go:build linux

package simpleremote

import (
	"io"
	"sync/atomic"
	"syscall"
	"unsafe"
)

const writevSupported = true

// writesWaiting counts Writers of this process parked until their
// descriptor is writable: a polling reader stops polling so that the
// scheduler looks at the poller again (readSpinner).
var writesWaiting atomic.Int32

// vecState is the Writer's writev scratch space, guarded by its mutex;
// fn is bound once so that a message costs no allocation.
type vecState struct {
	bufs   [2][]byte
	iov    [2]syscall.Iovec
	err    error
	fn     func(fd uintptr) bool
	parked bool // counted in writesWaiting
}

// writev writes a then b with writev(2); EAGAIN parks the goroutine in
// the runtime poller, EINTR retries.
func (w *Writer) writev(a, b []byte) error {
	v := &w.vec
	if v.fn == nil {
		v.fn = v.write
	}
	v.bufs[0], v.bufs[1], v.err = a, b, nil
	err := w.rc.Write(v.fn)
	if v.parked {
		v.parked = false
		writesWaiting.Add(-1)
	}
	werr := v.err
	// Do not keep the payload reachable from the Writer.
	v.bufs, v.iov, v.err = [2][]byte{}, [2]syscall.Iovec{}, nil
	if werr != nil {
		return werr
	}
	return err
}

// write is the RawConn.Write callback: false means "wait until writable".
func (v *vecState) write(fd uintptr) bool {
	for {
		n := 0
		for _, p := range v.bufs {
			if len(p) > 0 {
				v.iov[n].Base = &p[0]
				v.iov[n].SetLen(len(p))
				n++
			}
		}
		if n == 0 {
			return true
		}
		r, _, e := syscall.Syscall(syscall.SYS_WRITEV, fd, uintptr(unsafe.Pointer(&v.iov[0])), uintptr(n))
		switch e {
		case 0:
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			if !v.parked {
				v.parked = true
				writesWaiting.Add(1)
			}
			return false
		default:
			v.err = e
			return true
		}
		if r == 0 {
			v.err = io.ErrShortWrite
			return true
		}
		// Advance past the r bytes written.
		done := int(r)
		for i := range v.bufs {
			k := min(done, len(v.bufs[i]))
			v.bufs[i] = v.bufs[i][k:]
			done -= k
		}
	}
}
