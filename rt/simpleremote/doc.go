// Package simpleremote is the executor side of LLVM 22's SimpleRemoteEPC
// wire protocol (protocol.md §1, §4, §7.3, §8): message framing, the
// rt.ControllerAccess that connects an rt.Session to llvm-jitlink, the
// transports of the executor's command line, and its parser. Pure Go.
//
// # Pieces
//
//   - Framing: the 32-byte little-endian header {MsgSize (header
//     included), OpCode (u64), SeqNo, TagAddr}; Reader reads and checks
//     messages, Writer sends them whole.
//   - CA (New): the rt.ControllerAccess. Connect sends Setup (SeqNo 0,
//     TagAddr 0, payload SPSSimpleRemoteEPCExecutorInfo of
//     BootstrapInfo.SetupInfo) as the first message and starts the
//     connection's reader.
//   - Transports: AdoptFDs / FileConn (`filedescs=IN,OUT`, the pipes of
//     `llvm-jitlink -oop-executor=PATH`), ListenTCP (`listen=HOST:PORT`,
//     `-oop-executor-connect`), ListenUnix (`unix=PATH`, orcrt only).
//   - ParseArgs / ParseSpec: the stock command line
//     `[test-...]... SPEC [args...]` with the stock usage texts; Usage and
//     FormatUsageError give the exact stderr text.
//   - Package wiretest (rt/simpleremote/wiretest) is the controller side
//     for tests, benchmarks and fuzzing.
//
// A typical executor main:
//
//	args, err := simpleremote.ParseArgs(os.Args[1:])   // *UsageError: print FormatUsageError, exit 1
//	conn, err := args.Spec.Open(ctx)                     // *UsageError for a bad descriptor
//	ca := simpleremote.New(conn, nil)
//	err = session.Attach(ca, bootstrapInfo)
//	if err := ca.Wait(); err != nil {                    // the terminal error
//		fmt.Fprintf(os.Stderr, "%s: %s\n", os.Args[0], err); exit 1
//	}
//
// # Threading model
//
// One reader goroutine per connection, started by Connect. It never runs a
// call: each CallWrapper goes to SessionHandle.HandleWrapperCall, which
// takes a keepalive token and hands the call to the Session's dispatcher
// (use rt.GoRunner: a goroutine per call, so calls that block on the
// controller — JIT'd code waiting in dispatch_fn — never starve the calls
// that would unblock them; protocol.md §7.3). Each Result goes, by
// sequence number, to the pending executor->controller call, in any
// order, through SessionHandle.HandleControllerCallResult (dispatched
// too).
//
// Sends come from any goroutine (wrapper results, controller calls, the
// Hangup) and are serialised by the Writer's mutex: one whole message at a
// time, in one writev(2) where the transport has a raw descriptor, or one
// Write of a pooled contiguous copy (messages up to 64 KiB) otherwise.
// Partial writes and EINTR are retried; EAGAIN parks the goroutine in the
// runtime poller, not an OS thread. Adopted descriptors are switched to
// non-blocking mode for that reason, and so that closing the connection
// wakes the reader.
//
// Executor->controller calls take sequence numbers from 0 (the stock's
// NextSeqNo++), are registered before they are sent, and complete exactly
// once: by their Result, by the disconnect drain
// (SessionHandle.FailPendingControllerCall, "disconnected"), or inline
// when the connection is already ending (FailControllerCallInline). A
// Result for a sequence number that is not pending — never issued or
// already answered — is fatal.
//
// The session ends in one of three ways, each exactly once:
//
//   - orderly from the controller: end-of-file at a message boundary, or a
//     Hangup with any payload (not decoded, as in 22);
//   - orderly from the executor: Disconnect (Session.Detach/Shutdown)
//     sends Hangup (SPSError success, "00") and closes — on a goroutine,
//     giving up after Options.HangupTimeout if the controller is not
//     reading; Disconnect itself never blocks and is idempotent, racing a
//     remote end harmlessly;
//   - fatal: malformed input, an unexpected Setup, an unknown Result, or a
//     read or write failure.
//
// In every case the reader stops, the connection is closed — shut down
// first for sockets — so the controller sees end-of-file (llvm-jitlink
// waits for it), every pending controller call is failed, and then
// SessionHandle.NotifyDisconnected is called with nil (orderly) or the
// terminal error. Results produced after that are dropped. Done, Wait and
// Err expose the end to the executor's main.
//
// # Errors
//
// The terminal errors print exactly as the stock executor's, because the
// executor prints them as "<argv0>: <text>" and exits 1: "Unexpected
// end-of-file", "Message size too small", "Unexpected opcode", "Unexpected
// Setup opcode", "No call for sequence number N" (ProtocolError sentinels,
// NoCallError), and read/write failures as glibc's strerror text ("Broken
// pipe", "Bad file descriptor"; IOError, which unwraps to the errno). Go's
// errno strings are glibc's with a lower-case first letter; Strerror
// restores them. These texts carry no package prefix; every other error
// of the package is prefixed "simpleremote: ".
//
// # Ownership
//
// A payload handed to the Session as a controller-call result is a fresh
// slice that the CA never touches again. Wrapper-call arguments are lent
// with rt.SessionHandle.HandleWrapperCallReleasing: when the target only
// borrows them (rt.BorrowArgs: the bootstrap wrappers, JIT'd wrapper
// calls) the Session gives the buffer back once the call is over, and the
// CA's Reader reuses it for a later payload of a similar size (size
// classes of at most 25% slack, 16 MiB per connection at most, buffers up
// to 8 MiB; see pool.go) — which is what makes a 1 MiB
// mem_write_buffers cost a copy, not a fresh 1 MiB allocation and its
// garbage collection. An owning target keeps its buffer, as before.
// Result bytes and controller-call arguments passed to the CA are only
// read while being sent (SendWrapperResult returns after the write). The
// pool only ever holds buffers allocated for payloads that fully
// arrived; a payload never gets a pooled buffer larger than its class.
// The Reader
// never sizes an allocation from an untrusted length: a payload's buffer
// starts at most 64 KiB beyond the bytes already received and grows only
// when every allocated byte has arrived, to at most max(4 × received,
// received + 1 MiB) — 25% more when a CA's Reader rounds the final buffer
// up to its pool size class. A header claiming 900 MiB followed by
// end-of-file costs 64 KiB. MsgSize is also bounded (Options.MaxMessageSize, 1 GiB by
// default).
//
// # LLVM 22 compatibility rules
//
//   - Result TagAddr is always 0; an out-of-band error result becomes an
//     EMPTY payload (22's controller rejects non-zero Result tags,
//     protocol.md §4.2, §11). Incoming Result TagAddr is ignored, as by
//     the stock executor.
//   - Hangup from the controller ends the session normally whatever its
//     payload; end-of-file without Hangup is a normal end.
//   - The payload is read before the opcode is checked, as the stock does:
//     an unknown opcode with a truncated payload is "Unexpected
//     end-of-file".
//
// # Deliberate deviations from the stock executor
//
//   - listen= with an empty host binds 127.0.0.1, never every interface;
//     the stock ignores the host and binds INADDR_ANY. Any given host is
//     honoured (the stock ignores it); "0.0.0.0" binds all IPv4
//     interfaces when asked for explicitly.
//   - listen= ports outside 0..65535 are the usage error "port number 'X'
//     is out of range" (the stock passes them to getaddrinfo, which
//     truncates or rejects them). The listen backlog is the system's, not
//     1; the listener is closed right after the one accept, so a second
//     connection is refused rather than queued.
//   - A filedescs= descriptor that is negative or not open is the usage
//     error "X is not a valid file descriptor" (the stock accepts any
//     integer and then fails with "Invalid input file descriptor -1", or
//     crashes).
//   - Descriptors are marked close-on-exec and non-blocking when adopted;
//     at the end sockets are shut down (SHUT_RDWR) before close (22 only
//     closes, which hangs TCP sessions, protocol.md §8).
//   - Every message is one write system call (22 writes header and payload
//     separately) and TCP_NODELAY is set: no Nagle stalls.
//   - An adopted input pipe (filedescs=) is enlarged to 1 MiB
//     (F_SETPIPE_SZ, best effort; the default maximum for unprivileged
//     processes), so large messages cross in a few system calls rather
//     than one per 64 KiB; the stock leaves the pipe at 64 KiB.
//   - MsgSize is bounded (default 1 GiB, "Message size N exceeds the limit
//     of M bytes"); the stock allocates whatever the header claims.
//   - Opcodes are compared as 64-bit values: 0x103 is "Unexpected opcode"
//     (the stock truncates the field to 8 bits and would treat it as a
//     CallWrapper).
//   - A local disconnect sends Hangup(success) first; 22 never sends
//     Hangup.
//   - unix=PATH (Unix-domain socket, mode 0600, removed once the
//     connection is accepted) does not exist in the stock.
package simpleremote
