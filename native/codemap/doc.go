// Package codemap answers one question before every native call into code
// the controller named — a JIT'd wrapper function, a run_as_* target, an
// allocation action: is this address executable code in this process? A
// call aimed at a heap object, a data page or nothing at all then ends
// with an error naming the address ([Check], [NotCodeError]) instead of
// a SIGSEGV.
//
// Code is: (1) pages of a live slab that are executable now — inside a
// slab arena the slab's bitmap is authoritative, so a read-write, released
// or never handed out page is refused; (2) the executable segments of
// loaded objects (dl_iterate_phdr); (3) any other executable mapping in
// /proc/self/maps, such as memory the JIT'd program made executable
// itself. Whether an address inside code is a sensible entry point is not
// judged. RATIONALE.md ("Code checks before native calls") gives the
// policy and its reasons.
//
// A hit makes no system call, takes no lock and allocates nothing.
// Addresses outside the user address space are refused at once. A miss
// rebuilds the snapshot of (2) and (3) and looks again; rebuilds are
// shared and rate-limited to one per 2 ms, and a miss never gets an answer from a snapshot older than
// itself. [Refresh] rebuilds at once (the dylib manager calls it after
// every dlopen).
//
// Answers are snapshots: an object unloaded or a mapping unmapped stays
// "code" until the next rebuild (JIT'd memory has no such window). The
// caller must keep the code alive for the duration of its call (the
// executor holds a keepalive token).
//
// Every function is safe for concurrent use. Linux; without cgo object
// text comes from /proc/self/maps alone.
package codemap
