// Package rt is the runtime core of orcrt: the Go form of upstream
// orc-rt's Session. A Go JIT host embeds a [Session]; orcrt-executor is a
// thin main over one. Pure Go.
//
// A [Session] owns its [Service]s, at most one [ControllerAccess] (the
// transport; it reaches the Session only through its [SessionHandle]), a
// keepalive group gating shutdown, the tables of wrapper functions
// ([Session.RegisterWrapper]; [Session.RegisterDirectWriter] for buffer
// writes a transport copies to memory itself, [SessionHandle.BeginDirectWrite])
// and instances the controller calls by address, and a [Dispatcher] ([GoRunner], [InlineRunner],
// [QueueingRunner]). Typed SPS handlers and callers ([Handle2],
// [HandleExpected1], [Call2], ...) build [WrapperFunc] values; results
// are [WrapperResult] values (bytes, empty, or out-of-band error). [BootstrapInfo]
// is what the controller learns at connect time.
//
// # Lifecycle
//
// A Session moves forward only: Start -> Attached -> Detached -> Shutdown;
// Detach and Shutdown may be requested any time, from any goroutine. In
// order: the ControllerAccess disconnects (pending controller calls fail
// with "disconnected"); OnDisconnect runs once; the Services' OnDetach run
// in reverse registration order, then the AddOnDetach callbacks, last
// first. On Shutdown the keepalive group closes (incoming calls are
// dropped) and whoever releases the last token runs the OnShutdown hooks
// the same way; then Wait and Close return. After shutdown, hooks run at
// once and Attach fails with ErrAttach.
//
// # Concurrency
//
// Every exported method of the package's types is safe for concurrent
// use. No Session lock is held while callbacks, hooks or a
// ControllerAccess's Connect or Disconnect run; completion callbacks run
// on whichever goroutine completes the transition. Blocking on shutdown
// (Wait, Close) while holding a keepalive token (a dispatched Task,
// CallWithKeepalive) deadlocks.
//
// # Memory ownership
//
//   - Wrapper arguments belong to the callee, which may keep them, unless
//     it is registered with [BorrowArgs]: then it stops using them once it
//     has returned and called ret (exactly once), and the ControllerAccess
//     gets the buffer back ([SessionHandle.HandleWrapperCallReleasing]).
//   - Bytes in a WrapperResult belong to the receiver; the sender must not
//     modify them afterwards. ResultBytes does not copy; CopyResult does.
//   - Controller call arguments belong to the ControllerAccess once passed.
//   - SymbolTable.Symbols and BootstrapInfo.SetupInfo return fresh slices;
//     SetupInfo's values alias BootstrapInfo.Values.
//
// Executor addresses of wrapper functions and instances are stable and
// unique for the Session's lifetime and are only ever looked up in its
// tables, so a bogus address from the controller is an error, not a crash
// (RATIONALE.md, "rt").
package rt
