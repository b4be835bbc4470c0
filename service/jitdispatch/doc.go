// Package jitdispatch connects JIT'd code to the controller: LLVM's
// "jit-dispatch" (protocol.md §4.3). JIT'd ORC-runtime code calls the
// native C function __llvm_orc_SimpleRemoteEPC_dispatch_fn(ctx, tag,
// data, size) (package native) on whatever thread it runs, including
// threads the JIT'd program created; this package's handler sends the
// bytes to the controller handler named by tag (Session.CallController,
// an executor->controller CallWrapper on the wire) and blocks that thread
// until the controller's result arrives, which it returns to JIT'd code.
//
// [Install] registers the handler for one Session and publishes the two
// bootstrap symbols the controller requires:
// __llvm_orc_SimpleRemoteEPC_dispatch_ctx (the context value the handler
// is registered under) and __llvm_orc_SimpleRemoteEPC_dispatch_fn (the
// address of the C function). The registration is removed when the
// Session shuts down.
//
// # Failures
//
// The call runs under one of the Session's keepalive tokens, so the
// Session does not shut down while a dispatch waits. JIT'd code gets an
// out-of-band error (a CWrapperFunctionBuffer with Size 0 and a message)
// with the stock executor's texts: [native.UnavailableMsg] ("jit_dispatch
// not available (EPC server shut down)") when the Session is shutting down
// or has no controller, and [MsgDisconnecting] ("disconnecting") when the
// connection ends while the call waits. The controller's own out-of-band
// errors arrive on the LLVM 22 wire as empty results, and are returned as
// such.
//
// # Process-global state
//
// Dispatch contexts are process-wide slots of package native; one is used
// per installed Session. Every function is safe for concurrent use.
package jitdispatch
