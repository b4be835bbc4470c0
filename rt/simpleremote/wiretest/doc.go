// Package wiretest is the controller side of LLVM 22's SimpleRemoteEPC
// protocol, for tests, benchmarks and fuzzing of executors at the wire
// level: the rt/simpleremote CA in the same process, an orcrt executor
// process, or the stock llvm-jitlink-executor. It is a normal package so
// that any package's tests can import it.
//
// # Pieces
//
//   - Controller (New): speaks over any connection. New waits for the
//     executor's Setup and decodes it (Setup, SetupPayload, Symbol,
//     MustSymbol by name). Call / CallName / Start call executor functions
//     by address with raw bytes, Call0..Call3 with typed sps.FuncN
//     signatures; calls may be pipelined and results arrive in any order.
//     Handle / HandleFunc / Handle1 / Handle2 / Queue answer
//     executor->controller calls (JIT dispatch) by tag, now or later, in
//     any order. SendRaw, SendFrame, SendResult and Hangup misbehave on
//     purpose. CloseWrite / Finish end the session as llvm-jitlink 22 does
//     (close, no Hangup); Done, Err and HangupPayload report how the
//     executor ended it.
//   - StartExecutor: starts an executor binary exactly as
//     `llvm-jitlink -oop-executor=PATH` does — two pipes whose child ends
//     are descriptors 3 and 6, argv [PATH, "filedescs=3,6"], environment,
//     directory and standard streams inherited (output captured) — and
//     connects a Controller. Executor.Wait reports the exit status.
//   - Connect / Attach: in-process connections over real OS pipes, Unix
//     and TCP sockets, or net.Pipe (Transport), and attaching an
//     rt.Session through a simpleremote CA in one call.
//   - Frame, CallFrame, ResultFrame, HangupFrame, SetupFrame, RawHeader:
//     bytes for scripted streams and fuzz seeds.
//
// # Behaviour (as LLVM 22's controller)
//
// The first message must be Setup with SeqNo 0 and TagAddr 0 and a
// decodable payload without duplicate names ("Setup packet SeqNo not
// zero", "Setup packet TagAddr not zero", "Could not deserialize setup
// message"). Calls are numbered from 0. A Result with a non-zero TagAddr
// ("Unexpected TagAddr in result message"), for an unknown sequence number
// ("No call for sequence number N") or a second Setup ends the session
// with a *ViolationError. Executor calls to tags without a handler are
// answered with an empty payload (22's wire form of "No function
// registered for tag"). End-of-file or Hangup from the executor is an
// orderly end; calls still pending fail with ErrDisconnected.
//
// # Concurrency and ownership
//
// Every method is safe for concurrent use. One goroutine reads; each
// incoming call runs its handler on a goroutine of its own, so handlers
// may block and may call the executor themselves (the nested pattern of
// capture d). Sends are whole messages under one mutex (a
// simpleremote.Writer). Result payloads and incoming arguments are fresh
// slices owned by the receiver; argument and reply slices passed in are
// only read while being sent.
package wiretest
