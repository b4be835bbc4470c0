// Package wire is the protocol between serve's server and its worker
// processes, both sides of it: the worker's command line ([Args], after
// [WorkerArg]), the descriptors a worker inherits ([CtlFD], [IDsFD],
// [ListenFD]), the messages on the control socket ([Ctl], [Started],
// [Refused]) and the session counter they share ([MapCounter]).
//
// The control socket is a SOCK_SEQPACKET socketpair: one message per
// packet, its fields separated by NUL, the first field its kind.
//
// Worker to server:
//   - [MsgReady]: initialised, waiting for a connection;
//   - [MsgStarted] ([Started]): a session's Setup is out;
//   - [MsgRefused] ([Refused]): a peer the policy turned away;
//   - [MsgEnd] (reason): why the session is about to end.
//
// Server to worker:
//   - [MsgAccept]: accept on the listening sockets too;
//   - [MsgSession] (id) with a connection the server accepted, as
//     SCM_RIGHTS;
//   - the end of the stream lets the worker go.
//
// All but WorkerArg needs Linux and cgo, as serve does.
package wire
