// Package codemap answers one question before every native call into code
// the controller named — a JIT'd wrapper function, a run_as_* target, an
// allocation action: is this address executable code in this process? A
// CallWrapper or action aimed at a heap object, a data page or nothing at
// all then ends with an error naming the address instead of a SIGSEGV
// that kills the executor (and, in an embedding host, the host).
//
// # What counts as code
//
//  1. JIT'd memory: pages of a live slab (package slab, which the memory
//     manager's arenas and Go hosts' packers use) that are executable
//     right now. For an address inside a slab arena the slab's lock-free
//     bitmap is authoritative: a page that is read-write, released or
//     never handed out is refused at once, however the kernel maps it.
//  2. The text of loaded objects: the executable PT_LOAD segments of the
//     executable, libc, libraries the dylib manager opened and any other
//     object the dynamic loader knows (dl_iterate_phdr).
//  3. Any other mapping with execute permission in /proc/self/maps:
//     executable memory the JIT'd program created itself (its own mmap,
//     a JIT inside the JIT'd program), the shared-memory mapper's
//     segments, libraries loaded behind the loader's back.
//
// Policy for the third kind: it is accepted. A false refusal of real code
// breaks a correct program, which is worse than the crash the map
// prevents, and the controller is trusted to run code anyway (README,
// "Trust boundary"). The map does not try to decide whether an address
// inside code is a sensible entry point: a call into the middle of libc's
// text is accepted and may crash, as in the stock executor. What it stops
// is the common accident — a stale, truncated or mixed-up address that
// points at data or at nothing.
//
// # Cost
//
// The hit path makes no system call and takes no lock: a range check
// against the user address space, one atomic load of the slab registry and
// a page-bitmap test, or one atomic load of the snapshot of (2) and (3) and
// a binary search. Nothing is allocated. Addresses outside the user
// address space (the null page, non-canonical and kernel addresses) are
// refused without looking further.
//
// A miss rebuilds the snapshot once — dl_iterate_phdr plus one read of
// /proc/self/maps — and looks again. Rebuilds are rate-limited (at most
// one per [SetMinRefreshInterval], 2 ms by default) and shared: concurrent
// misses wait for one rebuild that started after they missed, so a
// controller calling garbage in a loop costs at most one rebuild per
// interval, while a real code address that appeared a moment ago is never
// refused — its miss waits (at most one interval) for a fresh snapshot
// rather than being answered from a stale one. The dylib manager calls
// [Refresh] after every dlopen, so calls into a library it just loaded hit
// at once.
//
// # Staleness
//
// Answers are snapshots. An object unloaded with dlclose or a mapping the
// JIT'd program munmaps stays "code" until the next rebuild; a call then
// faults as it would have without the map. JIT'd memory has no such
// window: the slab bitmap is cleared before a page stops being executable.
// The caller must keep the code alive for the duration of its call by
// other means (the executor holds a keepalive token).
//
// # Concurrency and platforms
//
// Every function is safe for concurrent use. Linux; the object text comes
// from dl_iterate_phdr with cgo, and from /proc/self/maps alone without
// it.
package codemap
