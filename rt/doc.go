// Package rt is the runtime core of orcrt, the executor side of LLVM's ORC
// JIT: the Go form of upstream orc-rt's "Bedrock" Session (Generation 3).
// A Go JIT host embeds a [Session]; orcrt-executor is a thin main over one.
// Everything here is pure Go.
//
// # Pieces
//
//   - [Session]: the root object. It owns its [Service]s, at most one
//     [ControllerAccess], a keepalive group (package keepalive) gating
//     shutdown, a table of wrapper functions and instances addressable by
//     the controller, and a [Dispatcher] that runs its [Task]s.
//   - [ControllerAccess]: the transport to the controller, implemented
//     outside this package (the SimpleRemote wire CA) or by [Loopback] (a
//     controller in the same process). It reaches the Session only through
//     the [SessionHandle] it gets in Connect.
//   - Wrapper functions ([WrapperFunc]): what the controller calls by
//     address. [Session.RegisterWrapper] gives each a unique executor
//     address; [Session.RegisterInstance] does the same for objects that
//     method-style handlers receive. Typed SPS handlers and callers:
//     [Handle2], [HandleExpected1], [HandleAsync1], [HandleMethodAsync1],
//     [Call2], [CallExpected1], ... over sps.Func0..Func3 signatures. Results are
//     [WrapperResult]s with upstream's three states (bytes, empty,
//     out-of-band error).
//   - Dispatchers: [GoRunner] (goroutine per task, idle workers reused,
//     unbounded), [InlineRunner], [QueueingRunner] (caller-drained FIFO or
//     LIFO, for deterministic tests and thread-less hosts).
//   - [BootstrapInfo], [SymbolTable], [ProcessInfo]: what the controller
//     learns at connect time.
//
// # Lifecycle
//
// A Session moves forward only: Start -> Attached -> Detached -> Shutdown.
// Attach (from Start only) connects a ControllerAccess synchronously on
// the caller's goroutine. Detach and Shutdown may be requested at any time
// and from any goroutine, including from inside the callbacks they run;
// a request made while a transition is in progress only raises the target
// state, and whoever runs the transition acts on it. The order of events
// is always:
//
//  1. the ControllerAccess disconnects (if attached): it fails every
//     pending controller call with "disconnected", then notifies the
//     Session;
//  2. the OnDisconnect handler runs exactly once (nil for orderly or never
//     attached), or a non-nil error goes to the error reporter;
//  3. every Service's OnDetach runs, in reverse registration order, each
//     started when the previous one calls done; then the AddOnDetach
//     callbacks, last registered first. The Session is Detached; Detach
//     alone stops here;
//  4. on Shutdown, the keepalive group closes: from then on every token
//     acquisition fails (so incoming wrapper calls are dropped and
//     CallWithKeepalive refuses), and the Session waits — without blocking
//     anyone — for the last token to be released;
//  5. on the goroutine that releases the last token, every Service's
//     OnShutdown runs in reverse registration order, chained the same way;
//     then the AddOnShutdown callbacks (including Shutdown's own), last
//     registered first;
//  6. Wait and Close return.
//
// After shutdown: CallWithKeepalive reports false, KeepaliveSource gives
// no tokens, CallController completes at once with "no controller
// attached", incoming calls are dropped, AddOnShutdown / Shutdown(cb) /
// Detach(cb) / AddOnDetach run their callback at once, AddService runs
// both hooks at once, and Attach returns an error wrapping ErrAttach.
//
// # Concurrency
//
// Every exported method of Session, SessionHandle, Loopback,
// LoopbackController, SymbolTable, GoRunner and QueueingRunner is safe for
// concurrent use. The Session never holds its mutex while running user
// callbacks, service hooks, or a ControllerAccess's Connect or Disconnect.
// Completion callbacks run on whatever goroutine completes the
// transition: the one that called Detach/Shutdown, the CA goroutine that
// noticed the disconnect, a service's goroutine calling done, or the
// goroutine releasing the last keepalive token (often a dispatcher
// worker). The error reporter may be called concurrently.
//
// Keepalive tokens guard spans of execution on one goroutine: a
// dispatched Task holds one while it runs, CallWithKeepalive holds one for
// the synchronous call. Blocking on shutdown (Wait, Close) while holding a
// token deadlocks.
//
// # Memory ownership
//
//   - Wrapper arguments: by default the args slice given to a WrapperFunc
//     belongs to the callee from the moment the call starts; nothing else
//     reads or writes it, and the callee may keep it (and views into it,
//     such as decoded sps.BytesView values) forever. A ControllerAccess
//     therefore hands the Session a buffer it will not reuse.
//   - Borrowed wrapper arguments (the opt-in): a function registered with
//     [BorrowArgs] (RegisterWrapper, or SetUnknownTargetHandler) only
//     borrows args: once it has both returned and called ret, neither it
//     nor anything it started may read or keep args or any view into it,
//     and its result must not alias args. A ControllerAccess that passes
//     the call with [SessionHandle.HandleWrapperCallReleasing] gets the
//     buffer back through its [ReleaseFunc] exactly then (after its own
//     SendWrapperResult for the call has returned), or at once for a call
//     that is never run, and may reuse it; for an owning target the
//     buffer is never given back. Only [SessionHandle.HandleWrapperCall]
//     callers and owning targets see the default rule. A borrowing
//     function must call ret exactly once: its call record is recycled
//     too, so a second call of ret is no longer reliably caught.
//     Code that itself calls registered wrappers with views into a
//     buffer it reuses gives owning ones a copy ([Session.WrapperBorrowsArgs]).
//   - Wrapper results: bytes in a WrapperResult passed to a ReturnFunc,
//     to SendWrapperResult or to a result callback belong to the receiver,
//     which may keep them; the sender must not modify them afterwards.
//     ResultBytes does not copy; CopyResult does.
//   - Controller call arguments passed to CallController or a Caller
//     belong to the ControllerAccess from then on.
//   - Slices returned by SymbolTable.Symbols and BootstrapInfo.SetupInfo
//     are fresh; SetupInfo's value slices alias BootstrapInfo.Values.
//
// # Addresses
//
// Executor addresses of registered wrapper functions and instances are the
// addresses of small Go heap objects that the Session's tables keep alive.
// Go's heap does not move objects, so an address is unique and stable for
// the Session's lifetime and can never equal memory mapped for JIT'd code.
// Addresses are only ever looked up in the tables, never converted back
// into pointers, so a bogus address from the controller yields an error,
// not a crash.
package rt
