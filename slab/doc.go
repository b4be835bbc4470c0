// Package slab allocates the memory JIT'd code and data live in, under
// W^X: no page is ever writable and executable at once, on any
// architecture (RATIONALE.md, "slab", explains the design).
//
// A [Slab] reserves one arena of address space at [New] (nothing is
// committed) and carves page-granular regions out of it:
//
//   - Regions ([Slab.Reserve], [Slab.Write], [Slab.Protect],
//     [Slab.Release], [Slab.Lookup]) for callers that decide the layout
//     themselves, such as the memory-manager service: reserve a span
//     (mapped read-write), write each segment with zero-fill of the rest,
//     set each segment's final protection, release.
//   - Blocks ([Packer], [Slab.FreeBlock]) for Go JIT hosts that emit many
//     small functions: blocks with one final protection are packed into
//     shared pages and finalized together.
//
// Protect makes exactly one system call per call (none if nothing
// changes), never one per page; Stats counts them. Whenever a range
// becomes executable its instruction cache is flushed (arch.FlushICache).
// Execute-only and writable-executable protections are refused. Released
// regions are read-write or inaccessible, never executable, and are kept
// committed in a bounded cache (Config.MaxCached) for reuse. Config.DualMap
// maps the arena twice (a writable and an executable view of one memfd);
// Config.SyncCores adds a membarrier on every executable transition, for
// hosts whose own threads jump into new code; Config.Near caps the arena
// at [MaxNearSize], keeping any two addresses within rel32 reach.
//
// # Concurrency
//
// All Slab methods are safe for concurrent use. [Slab.IsExecutable] takes
// no lock and makes no system call. A Write in flight pins its region:
// Protect, Release and Close of that region fail with [ErrBusy] rather
// than fault the copy. A Packer is for one goroutine at a time.
//
// # Ownership
//
// The caller owns regions and blocks until it releases or frees them, and
// must not use their addresses afterwards; handles carry a generation, so
// a stale one is detected. Close unmaps everything at once. Slices passed
// to Write are only read during the call.
//
// Linux only (internal/sysmem, no cgo). Executable protections need
// arch.Supported (amd64, arm64); elsewhere they fail with
// [ErrNotSupported]. When the arena is exhausted, Reserve fails with
// [ErrNoSpace].
package slab
