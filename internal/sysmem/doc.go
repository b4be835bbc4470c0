// Package sysmem is the only importer of golang.org/x/sys/unix for memory
// system calls in orcrt: mmap, munmap, mprotect, madvise, memfd_create,
// ftruncate and membarrier.
//
// It is deliberately thin. Every function takes and returns raw addresses
// (uintptr) so callers never build Go slices over memory they do not own,
// and every call is exactly one system call (the protection-change counters
// in package slab rely on that). Errors wrap the kernel's errno, so callers
// test them with errors.Is(err, syscall.EINVAL) and never compare directly.
//
// Concurrency: every function is safe for concurrent use; the kernel
// serializes changes to the address space.
//
// Ownership: mappings returned by [Mmap] belong to the caller, who must
// [Munmap] them; file descriptors from [MemfdCreate] must be closed with
// [Close].
//
// Platforms: Linux (all GOARCHes x/sys supports). On other systems every
// function returns an error wrapping [errors.ErrUnsupported].
package sysmem
