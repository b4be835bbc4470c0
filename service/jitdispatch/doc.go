// Package jitdispatch connects JIT'd code to the controller: LLVM's
// jit-dispatch (docs/protocol.md §4.3). JIT'd ORC-runtime code calls the
// native __llvm_orc_SimpleRemoteEPC_dispatch_fn(ctx, tag, data, size)
// (package native) on any thread; this package's handler sends the bytes
// to the controller handler named by tag (Session.CallController) and
// blocks that thread until the result arrives, which it returns to JIT'd
// code.
//
// [Install] registers the handler for one Session and publishes the
// bootstrap symbols __llvm_orc_SimpleRemoteEPC_dispatch_ctx and
// __llvm_orc_SimpleRemoteEPC_dispatch_fn; the registration is removed when
// the Session shuts down; [InstallObserved] adds an [Observer], which
// sees each call's tag, arguments and result (package executor learns from
// them how the ORC runtime asks the controller for symbols). A dispatch
// runs under a keepalive token of the Session. JIT'd code gets the stock out-of-band errors:
// [native.UnavailableMsg] when the Session is shutting down or has no
// controller, [MsgDisconnecting] when the connection ends while it waits.
//
// Dispatch contexts are process-wide slots of package native, one per
// installed Session. Every function is safe for concurrent use.
package jitdispatch
