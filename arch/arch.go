package arch

import (
	"errors"
	"fmt"
	"sync"
	"syscall"

	"github.com/orcgo/orcrt/internal/sysmem"
	"github.com/orcgo/orcrt/internal/unsupported"
)

var pageSize = sysmem.PageSize()

// PageSize returns the OS page size in bytes (a power of two; 4 KiB on
// x86-64, 4, 16 or 64 KiB on arm64 Linux). Protections and the slab's
// segments are granular to it.
func PageSize() uintptr { return pageSize }

// Caches describes the cache geometry the flush uses.
type Caches struct {
	// DataLine and InstLine are the smallest D- and I-cache line sizes in
	// bytes (the stride of the maintenance loops on arm64).
	DataLine uintptr
	InstLine uintptr
	// Coherent reports that instruction fetch is coherent with data stores
	// in hardware and FlushICache does no per-line work (amd64; arm64 with
	// CTR_EL0.IDC and .DIC both set, where only barriers remain).
	Coherent bool
	// CleanD and InvalidateI report which maintenance loops FlushICache
	// runs.
	CleanD      bool
	InvalidateI bool
	// Source says where the numbers came from, e.g. "cpuid" or
	// "CTR_EL0=0x8444c004 ...".
	Source string
}

// CacheInfo returns the cache geometry of the running machine.
func CacheInfo() Caches { return caches }

// ErrNotSupported is returned (wrapped) by operations the running kernel
// or architecture does not provide.
var ErrNotSupported = unsupported.New("arch", "instruction-cache maintenance")

var syncCores struct {
	once sync.Once
	err  error
}

// SyncCores makes every thread of the process core-serialize before it
// next runs user code (membarrier PRIVATE_EXPEDITED_SYNC_CORE, registered
// once). Call it after [FlushICache] for threads that jump into new code
// without native. Without kernel support it returns an error wrapping
// [ErrNotSupported].
func SyncCores() error {
	syncCores.once.Do(func() {
		_, err := sysmem.Membarrier(sysmem.MembarrierCmdRegisterPrivateExpeditedSyncCore, 0)
		if err != nil {
			if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSYS) || errors.Is(err, errors.ErrUnsupported) {
				err = fmt.Errorf("%w: membarrier sync-core: %w", ErrNotSupported, err)
			} else {
				err = fmt.Errorf("arch: registering membarrier sync-core: %w", err)
			}
		}
		syncCores.err = err
	})
	if syncCores.err != nil {
		return syncCores.err
	}
	if _, err := sysmem.Membarrier(sysmem.MembarrierCmdPrivateExpeditedSyncCore, 0); err != nil {
		return fmt.Errorf("arch: membarrier sync-core: %w", err)
	}
	return nil
}
