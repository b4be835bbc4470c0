package simpleremote

import (
	"encoding/binary"
	"errors"
	"syscall"
	"unsafe"

	"github.com/orcgo/orcrt/internal/memfault"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// directMin is the smallest payload the reader copies straight to its
// destination: below it, the copy through the payload buffer costs less
// than the extra read.
const directMin = 64 << 10

// directPrefix is the start of a single buffer write's arguments: the
// count (1), the address and the length (docs/protocol.md §4.3).
const directPrefix = 24

// KernelReader is a Conn whose Read hands its buffer to the kernel
// (read(2), recvmsg), so that a buffer the process cannot write makes
// Read fail with EFAULT rather than fault. Over one whose KernelReads is
// true, the CA copies a large buffer write (mem_write_buffers, one buffer
// of 64 KiB or more) from the connection straight to its address instead
// of through a payload buffer. FileConn and the sockets of this package
// are; a Conn that wraps one passes KernelReads on.
type KernelReader interface {
	KernelReads() bool
}

// directSink starts direct writes (rt.SessionHandle.BeginDirectWrite).
type directSink func(target sps.Addr) (rt.DirectWrite, bool)

// readDirect takes a CallWrapper message of h's size whose payload
// is one buffer write of a target registered with
// rt.Session.RegisterDirectWriter: it copies the buffer to its address
// as it reads it, and answers through the DirectWrite. taken is false,
// and nothing is consumed, when the message is not one (the caller reads
// it as usual). A fault stops the copy; the rest of the buffer is read
// and discarded, and the answer names the first address not written.
func (r *Reader) readDirect(h Header) (taken bool, err error) {
	n := h.Size - HeaderSize
	if err := r.fill(directPrefix, false); err != nil {
		return false, err
	}
	b := r.buf[r.lo : r.lo+directPrefix]
	count := binary.LittleEndian.Uint64(b)
	addr := binary.LittleEndian.Uint64(b[8:])
	size := binary.LittleEndian.Uint64(b[16:])
	if count != 1 || size != n-directPrefix || addr+size < addr {
		return false, nil
	}
	d, ok := r.direct(h.Tag)
	if !ok {
		return false, nil
	}
	r.lo += directPrefix
	var done, read uint64 // bytes written to addr; bytes of the buffer consumed
	faulted := false
	if k := min(uint64(r.hi-r.lo), size); k > 0 {
		w := uint64(copyToAddr(uintptr(addr), r.buf[r.lo:r.lo+int(k)]))
		r.lo += int(k)
		done, read, faulted = w, k, w < k
	}
	for !faulted && read < size {
		dst := unsafe.Slice((*byte)(memfault.Ptr(uintptr(addr+read))), int(size-read))
		m, rerr := r.r.Read(dst)
		if uint(m) > uint(len(dst)) { // negative or past the room
			d.Drop()
			return true, errInvalidCount
		}
		read += uint64(m)
		done = read
		if rerr == nil {
			if m == 0 {
				break // an io.Reader may: the buffer's reads bound it
			}
			continue
		}
		if errors.Is(rerr, syscall.EFAULT) {
			// Nothing of the rest was consumed, and a socket counts only
			// whole packets: the copy through r.buf finds the fault's page.
			break
		}
		if read < size {
			d.Drop()
			return true, r.readErr(rerr, false)
		} // else the error shows on the next read
	}
	if read < size {
		var err error
		if done, err = r.copyRest(uintptr(addr), done, read, size, faulted); err != nil {
			d.Drop()
			return true, err
		}
	}
	if done == size {
		d.Finish(h.Tag, h.SeqNo, nil)
	} else {
		d.Finish(h.Tag, h.SeqNo, &rt.WriteFault{Addr: sps.Addr(addr + done)})
	}
	return true, nil
}

// copyRest reads the buffer's bytes from read to size through r.buf:
// copied to addr while they can be (not after a fault), else discarded.
// It returns how many bytes from the start are written: done, or more.
func (r *Reader) copyRest(addr uintptr, done, read, size uint64, faulted bool) (uint64, error) {
	for read < size {
		if r.lo == r.hi {
			if err := r.fill(1, false); err != nil {
				return done, err
			}
		}
		k := min(uint64(r.hi-r.lo), size-read)
		if !faulted {
			w := uint64(copyToAddr(addr+uintptr(read), r.buf[r.lo:r.lo+int(k)]))
			done += w
			faulted = w < k
		}
		r.lo += int(k)
		read += k
	}
	return done, nil
}

// copyToAddr copies src to the executor address addr and returns how
// many bytes it wrote: fewer than len(src) when it faulted (the fault's
// page, not the byte, is exact: memmove writes in blocks).
func copyToAddr(addr uintptr, src []byte) int {
	at, faulted := memfault.Run(func() {
		copy(unsafe.Slice((*byte)(memfault.Ptr(addr)), len(src)), src)
	})
	switch {
	case !faulted:
		return len(src)
	case at < addr: // the zero page, which reports no address
		return 0
	}
	return int(min(uintptr(len(src)), at-addr))
}
