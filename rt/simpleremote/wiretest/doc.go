// Package wiretest is the controller side of LLVM 22's SimpleRemoteEPC
// protocol, for tests, benchmarks and fuzzing of executors at the wire
// level: the rt/simpleremote CA in the same process, an orcrt executor
// process, or the stock llvm-jitlink-executor.
//
//   - [New] returns a Controller speaking over any connection once it has
//     decoded the executor's Setup. Call, CallName and Start call executor
//     functions with raw bytes, Call0..Call3 with sps.FuncN signatures;
//     calls may be pipelined. Handle, HandleFunc, Handle1, Handle2 and
//     Queue answer executor->controller calls by tag, in any order.
//     SendRaw, SendFrame, SendResult and Hangup misbehave on purpose.
//     CloseWrite and Finish end the session as llvm-jitlink 22 does.
//     Options.Wire makes it LLVM main's controller (result kinds in the
//     tag, Hangups carrying an SPSError, Finish hanging up first), and
//     ExecOptions.SocketAdopt launches as main's -oop-launch does.
//   - [StartExecutor] starts an executor binary exactly as `llvm-jitlink
//     -oop-executor=PATH` does (descriptors 3 and 6, argv [PATH,
//     "filedescs=3,6"]) and connects a Controller.
//   - Connect and Attach make in-process connections (pipes, sockets,
//     net.Pipe) and attach an rt.Session through a simpleremote CA.
//   - Frame, CallFrame, ResultFrame, HangupFrame, SetupFrame and RawHeader
//     build bytes for scripted streams and fuzz seeds.
//
// The Controller checks what LLVM 22's controller checks
// (docs/protocol.md §1.3, §1.4, §3.1) and ends the session with a
// *ViolationError otherwise. Executor calls to tags without a handler are
// answered with an empty payload; calls pending at the end fail with
// ErrDisconnected.
//
// Every method is safe for concurrent use. Each incoming call runs its
// handler on a goroutine of its own, so handlers may block and call the
// executor themselves. Result payloads and incoming arguments are fresh
// slices owned by the receiver; slices passed in are only read while
// being sent.
package wiretest
