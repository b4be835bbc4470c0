// Package slab allocates the memory JIT'd code and data live in, under
// W^X: no page is ever writable and executable at once, on any
// architecture.
//
// # Model
//
// A [Slab] reserves one arena of address space at [New] (mmap PROT_NONE,
// MAP_NORESERVE: nothing is committed) and carves page-granular regions
// out of it. Two layers serve two kinds of users:
//
//   - Regions ([Slab.Reserve], [Slab.Write], [Slab.Protect],
//     [Slab.Release], [Slab.Lookup]) for callers that decide the layout
//     themselves, such as the LLVM memory-manager service: reserve a span
//     (mapped RW), copy each segment's content into it with zero-fill of
//     the rest, set each segment's final protection, release.
//   - Blocks ([Packer], [Slab.FreeBlock]) for Go JIT hosts that emit many
//     small functions: blocks with one final protection are packed into
//     shared pages and finalized together.
//
// # Protections and system calls
//
// Protect makes exactly one system call per call (none if nothing
// changes), never one per page; callers protect whole segments. Stats
// counts every such call so tests can assert it. Whenever a range
// becomes executable the instruction cache is flushed for it
// (arch.FlushICache; a no-op on amd64), so a freed range reused for code
// is always flushed. Execute-only and W|X protections are refused.
//
// # Pre-faulting
//
// Filling fresh memory costs far more in page faults than in copying.
// Write therefore makes the target pages present first with one
// madvise(MADV_POPULATE_WRITE) (Linux >= 5.14; support is detected once
// per process and remembered), falling back to touching one byte per page.
// Pages are remembered as present until they are decommitted, so rewriting
// recycled memory costs no system call.
//
// # Reuse
//
// Released regions are reset to read-write (one mprotect, or none if they
// already were) and kept committed in a bounded cache (Config.MaxCached),
// so reserve/release cycles cost no mmap and no page faults. Reuse is safe
// because (1) a released page is never executable — a stale call into it
// faults instead of running old code — and its bit in the executable
// bitmap is cleared before anything else happens; (2) making the reused
// range executable again goes through Protect, which flushes the
// instruction cache; (3) handles carry a generation, so a stale Region or
// Block handle is detected rather than releasing the new owner's memory.
// When the cache is full, released memory is decommitted (MADV_DONTNEED
// or MADV_REMOVE, then PROT_NONE). When the arena is exhausted, cached
// spans are decommitted and coalesced before failing with [ErrNoSpace].
//
// # Dual mapping
//
// With Config.DualMap the arena is a memfd mapped twice: a writable view
// used only by Write/Packer.Write and an executable view whose addresses
// are handed out. The API is the same: content is written at the same
// offset through the writable view, protections apply to the executable
// view, and transitions that add execute map the file again at the same
// address (mmap MAP_FIXED of a shared file) instead of mprotect, for
// hosts whose policy forbids making written pages executable with
// mprotect. Packers in this mode keep packing into pages that are already
// executable, paying only an instruction-cache flush per Finalize.
// Because both views are MAP_SHARED, a process that fork()s without exec
// shares the code pages with its child (single-map arenas are copied on
// write, like the stock executor's).
//
// # Publishing to other threads
//
// The flush makes the new instructions visible to every core's
// instruction fetch; a core must still not run with instructions fetched
// before the flush. rt/native executes an ISB before every call into JIT'd
// code and after every jit-dispatch return (and any system call is
// context-synchronizing too), which covers all code entered through
// orcrt. Without Config.SyncCores the slab therefore does not issue
// membarrier: JIT'd code is first run after the controller has answered
// the finalize over the wire, by a thread that then enters it through
// rt/native. Hosts whose own threads jump into newly published code
// directly set Config.SyncCores (membarrier PRIVATE_EXPEDITED_SYNC_CORE on
// each executable transition).
//
// # Address window
//
// All regions come from the one arena, so any two addresses a slab hands
// out are at most Config.Size apart. Config.Near caps the arena at
// [MaxNearSize] (2 GiB − 64 KiB), which keeps small-code-model
// PC-relative (rel32) references between any two allocations in range.
// This is guaranteed by construction, unlike address hints, which the
// kernel may ignore.
//
// # Concurrency
//
// All Slab methods are safe for concurrent use (one mutex guards the
// bookkeeping; system calls that change protections are made under it, so
// the model and the kernel never disagree). [Slab.IsExecutable] takes no
// lock and makes no system call. A Write in flight pins its region:
// Protect, Release and Close of that region fail with [ErrBusy] rather
// than fault the copy. A Packer is for one goroutine at a time.
//
// # Ownership
//
// The caller owns regions and blocks until it releases or frees them, and
// must not use their addresses afterwards (released pages are read-write
// or inaccessible, never executable). Close unmaps everything at once.
// Slices passed to Write are only read during the call.
//
// # Platforms
//
// Linux only (mmap/mprotect/madvise/memfd via internal/sysmem, no cgo).
// Executable protections need arch.Supported (amd64, arm64); elsewhere
// they fail with [ErrNotSupported].
package slab
