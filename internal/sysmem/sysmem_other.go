//go:build !linux

package sysmem

import (
	"unsafe"

	"github.com/orcgo/orcrt/internal/unsupported"
)

// Distinct placeholder values so switch statements still compile.
const (
	ProtNone  = 0
	ProtRead  = 1
	ProtWrite = 2
	ProtExec  = 4

	MapPrivate        = 1 << 0
	MapShared         = 1 << 1
	MapAnonymous      = 1 << 2
	MapFixed          = 1 << 3
	MapNoreserve      = 1 << 4
	MapFixedNoreplace = 1 << 5

	MadvDontneed      = 1
	MadvRemove        = 2
	MadvPopulateWrite = 3

	MfdCloexec = 1

	MembarrierCmdQuery                            = 0
	MembarrierCmdPrivateExpeditedSyncCore         = 1 << 5
	MembarrierCmdRegisterPrivateExpeditedSyncCore = 1 << 6
)

// Supported reports whether this build has a real implementation.
const Supported = false

func errOS(op string) error { return unsupported.New("sysmem", op) }

// PageSize returns a conservative page size.
func PageSize() uintptr { return 4096 }

// Mmap is not supported on this system.
func Mmap(addr, length uintptr, prot, flags, fd int, off int64) (uintptr, error) {
	return 0, errOS("mmap")
}

// Munmap is not supported on this system.
func Munmap(addr, length uintptr) error { return errOS("munmap") }

// Mprotect is not supported on this system.
func Mprotect(addr, length uintptr, prot int) error { return errOS("mprotect") }

// Madvise is not supported on this system.
func Madvise(addr, length uintptr, advice int) error { return errOS("madvise") }

// MemfdCreate is not supported on this system.
func MemfdCreate(name string, flags int) (int, error) { return -1, errOS("memfd_create") }

// Ftruncate is not supported on this system.
func Ftruncate(fd int, size int64) error { return errOS("ftruncate") }

// Close is not supported on this system.
func Close(fd int) error { return errOS("close") }

// Membarrier is not supported on this system.
func Membarrier(cmd, flags int) (int, error) { return 0, errOS("membarrier") }

// View returns a []byte over n bytes of non-Go memory at addr.
func View(addr, n uintptr) []byte {
	if n == 0 {
		return nil
	}
	p := *(*unsafe.Pointer)(unsafe.Pointer(&addr))
	return unsafe.Slice((*byte)(p), n)
}
