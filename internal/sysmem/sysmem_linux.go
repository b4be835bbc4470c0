//go:build linux

package sysmem

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Protection bits, identical to the kernel's PROT_* values.
const (
	ProtNone  = unix.PROT_NONE
	ProtRead  = unix.PROT_READ
	ProtWrite = unix.PROT_WRITE
	ProtExec  = unix.PROT_EXEC
)

// Mapping flags used by orcrt.
const (
	MapPrivate        = unix.MAP_PRIVATE
	MapShared         = unix.MAP_SHARED
	MapAnonymous      = unix.MAP_ANONYMOUS
	MapFixed          = unix.MAP_FIXED
	MapNoreserve      = unix.MAP_NORESERVE
	MapFixedNoreplace = unix.MAP_FIXED_NOREPLACE
)

// madvise advice values used by orcrt.
const (
	MadvDontneed      = unix.MADV_DONTNEED
	MadvRemove        = unix.MADV_REMOVE
	MadvPopulateWrite = unix.MADV_POPULATE_WRITE // Linux >= 5.14; EINVAL before
)

// MfdCloexec is memfd_create's close-on-exec flag.
const MfdCloexec = unix.MFD_CLOEXEC

// membarrier commands (Linux uapi <linux/membarrier.h>; x/sys has the
// syscall number but not the constants).
const (
	MembarrierCmdQuery                            = 0
	MembarrierCmdPrivateExpeditedSyncCore         = 1 << 5
	MembarrierCmdRegisterPrivateExpeditedSyncCore = 1 << 6
)

// Supported reports whether this build has a real implementation.
const Supported = true

// PageSize returns the kernel page size (from the auxiliary vector, via
// the Go runtime).
func PageSize() uintptr { return uintptr(os.Getpagesize()) }

// Mmap maps length bytes and returns the address. addr is a hint unless
// flags contain MapFixed or MapFixedNoreplace.
func Mmap(addr, length uintptr, prot, flags, fd int, off int64) (uintptr, error) {
	r, _, e := unix.Syscall6(unix.SYS_MMAP, addr, length, uintptr(prot), uintptr(flags), uintptr(fd), uintptr(off))
	if e != 0 {
		return 0, fmt.Errorf("mmap(%#x, %#x, prot=%#x, flags=%#x): %w", addr, length, prot, flags, e)
	}
	return r, nil
}

// Munmap unmaps [addr, addr+length).
func Munmap(addr, length uintptr) error {
	if _, _, e := unix.Syscall(unix.SYS_MUNMAP, addr, length, 0); e != 0 {
		return fmt.Errorf("munmap(%#x, %#x): %w", addr, length, e)
	}
	return nil
}

// Mprotect sets the protection of the pages in [addr, addr+length).
func Mprotect(addr, length uintptr, prot int) error {
	if _, _, e := unix.Syscall(unix.SYS_MPROTECT, addr, length, uintptr(prot)); e != 0 {
		return fmt.Errorf("mprotect(%#x, %#x, prot=%#x): %w", addr, length, prot, e)
	}
	return nil
}

// Madvise gives advice about [addr, addr+length).
func Madvise(addr, length uintptr, advice int) error {
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, addr, length, uintptr(advice)); e != 0 {
		return fmt.Errorf("madvise(%#x, %#x, %d): %w", addr, length, advice, e)
	}
	return nil
}

// MemfdCreate creates an anonymous memory-backed file.
func MemfdCreate(name string, flags int) (int, error) {
	fd, err := unix.MemfdCreate(name, flags)
	if err != nil {
		return -1, fmt.Errorf("memfd_create(%q): %w", name, err)
	}
	return fd, nil
}

// Ftruncate sets the size of the file fd.
func Ftruncate(fd int, size int64) error {
	if err := unix.Ftruncate(fd, size); err != nil {
		return fmt.Errorf("ftruncate(%d, %#x): %w", fd, size, err)
	}
	return nil
}

// Close closes fd.
func Close(fd int) error {
	if err := unix.Close(fd); err != nil {
		return fmt.Errorf("close(%d): %w", fd, err)
	}
	return nil
}

// Membarrier issues membarrier(cmd, flags, 0) and returns its result.
func Membarrier(cmd, flags int) (int, error) {
	r, _, e := unix.Syscall(unix.SYS_MEMBARRIER, uintptr(cmd), uintptr(flags), 0)
	if e != 0 {
		return 0, fmt.Errorf("membarrier(%#x): %w", cmd, e)
	}
	return int(r), nil
}

// View returns a []byte over n bytes of non-Go memory at addr (a mapping
// from [Mmap]), valid only while the memory stays mapped with the needed
// protection.
func View(addr, n uintptr) []byte {
	if n == 0 {
		return nil
	}
	p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	return unsafe.Slice((*byte)(p), n)
}
