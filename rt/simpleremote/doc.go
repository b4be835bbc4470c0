// Package simpleremote is the executor side of LLVM's SimpleRemoteEPC wire
// protocol (docs/protocol.md §1, §4, §8): message framing ([Reader],
// [Writer]), the rt.ControllerAccess that connects an rt.Session to a
// controller ([New]), the transports of the executor's command line
// ([AdoptFDs], [ListenTCP], [ListenUnix]) and its parser ([ParseArgs],
// [ParseSpec], [UsageError]). Package wiretest is the controller
// side, for tests, benchmarks and fuzzing. Pure Go. RATIONALE.md
// ("rt/simpleremote") lists the deliberate deviations from the stock
// executor and explains the read pool.
//
// A typical executor main:
//
//	args, err := simpleremote.ParseArgs(os.Args[1:])   // *UsageError: print it and a usage text, exit 1
//	conn, err := args.Spec.Open(ctx)                     // *UsageError for a bad descriptor
//	ca := simpleremote.New(conn, nil)
//	err = session.Attach(ca, bootstrapInfo)
//	if err := ca.Wait(); err != nil {                    // the terminal error
//		fmt.Fprintf(os.Stderr, "%s: %s\n", os.Args[0], err); exit 1
//	}
//
// # Threading model
//
// One reader goroutine per connection, started by Connect, never runs a
// call: each CallWrapper goes to the Session's dispatcher, which must not
// be bounded (use rt.GoRunner; docs/protocol.md §7.3), and each Result to
// the pending executor->controller call with its sequence number, in any
// order; over a [KernelReader] it copies a large single-buffer write to
// its address itself (docs/protocol.md §5.3), then dispatches the answer.
// Sends from any goroutine are serialized by the Writer. Calls to the
// controller complete exactly once: by their Result, by the disconnect
// drain ("disconnected"), or inline when the connection is ending.
//
// The session ends once: orderly (end of input, a Hangup, or a local
// Disconnect, which sends Hangup and never blocks) or fatally; the
// connection closes, pending controller calls fail, and NotifyDisconnected
// gets nil or the terminal error (Done, Wait, Err). Options.Wire: main's.
//
// # Errors
//
// Terminal errors ([ProtocolError], [NoCallError], [IOError]) print as the
// stock executor's; every other error is prefixed "simpleremote: ".
// Controller-call results handed to the Session are fresh slices. Wrapper
// arguments are lent with rt.SessionHandle.HandleWrapperCallReleasing:
// once a borrowing target is done the Reader reuses the buffer for a later
// payload; an owning target keeps it. Bytes passed to the CA are only read
// while being sent. The Reader never sizes an allocation from an untrusted
// length, and MsgSize is bounded by Options.MaxMessageSize.
//
// # Polling
//
// With [Options.ReadSpin] (orcrt-executor uses [ExecutorReadSpin]), on
// Linux with more than one CPU, this package's Conns read their input
// again for that long before the reader sleeps, while the controller's
// recent answers came that fast: an unpinned small call then takes about
// a third of the time it takes when each message wakes an idle CPU.
// Between attempts it yields to other goroutines and threads, but
// goroutines waiting for other descriptors wake only once it stops, so
// it is off by default (RATIONALE.md, "Polling before parking").
package simpleremote
