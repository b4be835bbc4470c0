// Package alloc is the executor's memory for JIT'd code as LLVM's
// controllers drive it: the SimpleExecutorMemoryManager service
// ([MemoryManager]), the allocation-action runner ([Runner]) and the
// ExecutorSharedMemoryMapperService ([SharedMemoryMapper]) of
// llvm-jitlink -use-memmgr=shared, over package slab. Semantics, ordering
// and error strings are LLVM 22's (docs/protocol.md §5.1, §5.6, §6), and
// LLVM 14-19's finalize and deallocate where the Session's dialect has
// them (§9);
// RATIONALE.md ("alloc") lists the deliberate deviations and explains the
// arenas.
//
// [Register] creates a MemoryManager on an rt.Session, registers its
// instance and four wrapper functions, adds their bootstrap symbols to a
// symbol table all-or-nothing, and adds the manager to the Session as a
// Service; [RegisterSharedMemoryMapper] does the same for the mapper. The
// same operations are Go methods for hosts that embed a Session. Errors
// of orcrt's own are prefixed "alloc: "; LLVM's errors keep their exact
// text. At shutdown every remaining reservation is released, highest
// address first, running its dealloc actions.
//
// Actions run synchronously on the calling goroutine, locked to its OS
// thread for the whole request, under a keepalive token of the Session.
// An address registered as a Go wrapper function runs in Go; any other is
// called natively through native once native/codemap has confirmed that it
// is executable code. A result that is not an SPSError fails the action
// with [MsgDeserializeActionResult]. Memory is unmapped only after every
// action that might need it has returned.
//
// # Concurrency
//
// MemoryManager, SharedMemoryMapper and Runner are safe for concurrent use
// (the controller pipelines calls). No bookkeeping lock is held while
// actions run or content is copied; concurrent initializes of one
// reservation are serialized, different reservations proceed in parallel.
//
// # Ownership
//
// Requests passed to the Go methods are only read during the call
// (content and dealloc actions are copied), so callers may reuse their
// buffers. Wrapper results are fresh buffers owned by the receiver.
// Reserved memory belongs to the controller until released; whatever is
// left is released at shutdown. Go wrapper actions receive a view of the
// action's argument bytes that they may keep but must not modify.
//
// Linux on amd64 and arm64. Without cgo only Go wrapper actions run
// (native ones fail with ErrNoNativeCalls).
package alloc
