// Package alloc is the executor's memory for JIT'd code as LLVM 22's
// controller (llvm-jitlink 22) drives it: the SimpleExecutorMemoryManager
// service ([MemoryManager]), the allocation-action runner ([Runner]) and
// the optional ExecutorSharedMemoryMapperService ([SharedMemoryMapper])
// for llvm-jitlink -use-memmgr=shared. It reproduces the stock
// llvm-jitlink-executor 22.1.8's semantics, ordering and error strings
// (protocol.md §5.1, §5.5, §5.6, §6) over package slab, except for the
// deliberate deviations listed below.
//
// # Wiring
//
// [Register] creates a MemoryManager on an rt.Session, registers its
// instance and its four wrapper functions, adds the five bootstrap
// symbols (__llvm_orc_SimpleExecutorMemoryManager_Instance,
// _reserve_wrapper, _initialize_wrapper, _deinitialize_wrapper,
// _release_wrapper) to a symbol table all-or-nothing, and adds the
// manager to the Session as a Service. [RegisterSharedMemoryMapper] does
// the same for the five __llvm_orc_ExecutorSharedMemoryMapperService_*
// names. The wrappers are method-style: their first argument is the
// instance address, resolved through the Session's instance table (a
// wrong address gives a clean error in the result, never a crash).
// Arguments that do not decode give the out-of-band error
// the dialect's DeserializeArgs (an empty Result payload on the LLVM 22 wire).
// The same operations are Go methods for hosts that embed a Session.
//
// # Memory manager semantics (LLVM 22)
//
//   - reserve(Size): Size rounded up to whole pages, mapped read-write;
//     the unrounded Size is what counts as reserved, as in the stock.
//     Reserve(0) returns address 0. A failure reads "Cannot allocate
//     memory" (mmap's strerror) — also for a size above physical memory
//     plus swap, refused before any bookkeeping is allocated for it (the
//     stock's mmap refuses such sizes under Linux's default overcommit).
//   - initialize(FR): errors for an empty request; every segment's content
//     copied and the rest zero-filled, every segment protected (pages
//     covering [Addr, Addr+Size), start rounded down and end up, as LLVM
//     does; the instruction cache is flushed for executable segments), then
//     the finalize actions run in order. If one fails, the dealloc actions
//     collected so far run in reverse, their failures are joined after
//     the finalize's ("\n"), protected segments are reset to read-write
//     and no region is recorded (the range can be initialized again). On
//     success the region and its dealloc actions are recorded and its key,
//     the lowest segment address, returned. Error strings: "Finalization
//     request is empty", "Finalization actions attached to empty
//     finalization request", "Segment 0x… content size (0x… bytes) exceeds
//     segment size (0x… bytes)", "In initialize, range 0x… -- 0x… is not
//     part of any reserved address range", "In initialize, region 0x… --
//     0x… overlaps previous|following region 0x… -- 0x…".
//   - deinitialize(Keys): keys from the last to the first; each region's
//     dealloc actions moved out and run in reverse; every key processed,
//     failures joined. The region record stays (as in the stock: a later
//     overlapping initialize fails; a second deinitialize runs nothing).
//   - release(Bases): bases from the last to the first; all regions'
//     dealloc actions collected in ascending region order and run in
//     reverse; the reservation forgotten and its memory given back;
//     failures joined; release of nothing succeeds.
//   - Session shutdown (OnShutdown): every remaining reservation released,
//     highest address first, running its dealloc actions; the arenas are
//     unmapped. OnDetach does nothing.
//
// # Allocation actions
//
// An action is a CWrapperFunctionBuffer fn(const char*, size_t) returning
// an SPSError (protocol.md §6.3). [Runner] runs them synchronously on the
// calling goroutine with runtime.LockOSThread held for the whole run (the
// memory manager holds it for the whole initialize, deinitialize or
// release), so one request's actions run on one OS thread, never deferred
// or dispatched. An address registered as a Go wrapper function on the
// Session (the executor registers the EH-frame and JITLoaderGDB actions
// that way) runs in Go, and a wrapper that returns its result later is
// waited for; every other address is called natively through rt/native in
// one Go→C transition — once package codemap has confirmed it is
// executable code in this process; an address that is not (data, nothing,
// a non-executable JIT'd page) fails the action with "alloc: action not
// run: codemap: 0x… is not executable code in this process (…)" instead
// of crashing the process. An out-of-band error fails the action with its
// message; the result must decode as an SPSError, otherwise (also when
// empty) the action fails with [MsgDeserializeActionResult]. A keepalive
// token of the Session guards every run: once shutdown has closed the
// keepalive group, nothing more runs and the error names the denial —
// except in OnShutdown, where nothing else can be running
// (Runner.NoKeepalive). Memory is unmapped only after every action that
// might need it has returned: a dealloc action may live in the memory
// being released.
//
// # Shared-memory mapper (-use-memmgr=shared)
//
// Facts from LLVM's ExecutorSharedMemoryMapperService.cpp (executor) and
// MemoryMapper.cpp (SharedMemoryMapper, the controller): reserve creates
// the POSIX shared-memory object "/jitlink_<pid>_<n>" (n counting from 1)
// with shm_open(O_RDWR|O_CREAT|O_EXCL, 0700) — on Linux the file
// /dev/shm/jitlink_<pid>_<n>, created here in pure Go —, ftruncate()s it
// to Size, maps it PROT_NONE MAP_SHARED, closes the descriptor and returns
// (address, name). The controller shm_open()s the name, shm_unlink()s it
// at once and maps its own read-write view, where it writes content and
// zero-fill. Initialize(Instance, Reservation, Segments, Actions)
// mprotect()s each segment exactly as given (no rounding; the Reservation
// argument only groups allocations for release), flushes the instruction
// cache of executable ones, runs the finalize actions and records the
// deallocs under the lowest segment address (~0 without segments).
// Deinitialize runs keys from the last to the first and ignores unknown
// ones; release processes bases in the given order, deinitializes each
// reservation's allocations (last first) and unmaps. Errors are strerror
// texts ("Invalid argument" for an unknown release base: the stock
// munmap()s 0 bytes). The executor view is never writable and executable.
// The finalize-lifetime bit is ignored here, as by the stock: the
// controller's view maps the same pages.
//
// # Arenas and the ±2 GiB window
//
// Reservations are carved from slab arenas of slab.MaxNearSize (2 GiB −
// 64 KiB) address space, created Near, on demand, up to
// Config.MaxArenas. One arena holds -use-memmgr=simple-remote's single
// 1 GiB reservation and, in the default mode (one reservation per link
// graph), keeps every reservation within rel32 reach of every other, by
// construction rather than by mmap hints: small-code-model relocations
// between JIT'd allocations (cxx.o and the ORC runtime) need it. Only when
// an arena is full does a second one start (the stock, whose slabs are
// separate mmaps, gives no such guarantee either). A reservation larger
// than an arena gets a dedicated arena, unmapped at its release. Arena
// memory is address space only (PROT_NONE, MAP_NORESERVE) until reserved.
// Released regions stay committed in slab's bounded cache, so the hot
// reserve / initialize / release cycle costs no mmap, munmap, madvise or
// page fault — exactly one mprotect per segment that is not read-write
// plus one to reset the region when it is released.
//
// # Deviations from the stock executor (all deliberate)
//
//   - Checks before writing. initialize verifies that every segment lies
//     inside one reservation and that the region overlaps no other
//     BEFORE writing, protecting or running anything (same error texts).
//     The stock writes first and checks afterwards, letting a hostile
//     controller scribble anywhere, and runs finalize actions before its
//     overlap check without ever undoing them. Segments whose address
//     wraps around are refused the same way.
//   - W^X. A writable and executable segment is refused (the stock maps
//     it RWX); an execute-only one is mapped read+execute.
//   - Finalize-lifetime segments (bit 0x08, which the stock ignores) are
//     released right after finalization: the pages lying wholly inside
//     them become PROT_NONE and their memory is returned to the kernel;
//     they are not part of the region (its record and key cover the
//     standard segments; with no standard segment, all of them), and a
//     later initialize of those pages makes them read-write again.
//   - Empty regions. A region with the same start as a recorded one is
//     refused as overlapping even when one is empty (the stock would
//     silently replace that record and lose its dealloc actions).
//   - Releases racing other operations. release erases the reservation at
//     once, but its memory is given back only when no initialize or
//     deinitialize still runs actions in it; such an initialize then fails
//     with the stock's "not part of any reserved address range" and runs
//     its collected deallocs (the stock would crash or leak). Within one
//     release call, memory is given back only after the actions of all
//     its bases have run.
//   - Locking. No bookkeeping lock is held while actions run (the stock's
//     shared-memory mapper runs dealloc actions under its mutex).
//   - Shared-memory mapper hardening: Initialize requires the Reservation
//     argument to be a reservation of this mapper and every segment to lie
//     inside it, and refuses an already initialized key (the stock creates
//     records for anything and overwrites an existing one, losing its
//     deallocs). Release and shutdown remove the /dev/shm object if the
//     controller never unlinked it, and a name collision with a stale
//     object is retried with the next number.
//   - Shared pages. Protections cover whole pages and the last one applied
//     to a page wins, as in the stock (regions of unaligned layouts may
//     share a page); content that would have to be written into a page a
//     neighbour already made non-writable fails with an error instead of
//     the stock's fault.
//   - Errors of our own (keepalive denial, W^X, hardening) are prefixed
//     "alloc: "; every stock error keeps LLVM's exact text.
//
// # Concurrency
//
// MemoryManager, SharedMemoryMapper and Runner are safe for concurrent use
// from many goroutines (the controller pipelines calls). One mutex per
// manager guards the bookkeeping; it is never held while actions run or
// content is copied. Content copies and protection changes of concurrent
// initializes of one reservation are serialized by a per-reservation
// mutex (slab refuses protection changes while a copy is in flight);
// different reservations proceed in parallel, and so do actions.
//
// # Ownership
//
// Requests passed to the Go methods are only read during the call:
// content is copied into the reservation and dealloc actions (with their
// argument bytes) are copied into the region record, so callers may reuse
// their buffers. Wrapper results are fresh buffers owned by the receiver.
// Reserved memory belongs to the controller's protocol until released;
// everything left is released at shutdown. Go wrapper actions receive a
// view of the action's argument bytes that they may keep but must not
// modify.
//
// # Platforms
//
// Linux on amd64 and arm64 (slab's platforms). Native actions need cgo;
// without it only Go wrapper actions run (others fail with
// ErrNoNativeCalls).
package alloc
