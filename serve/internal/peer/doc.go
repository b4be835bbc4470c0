// Package peer identifies the controller at the other end of a
// connection serve accepted and applies the peer policy to it: a Unix
// peer by SO_PEERCRED and SO_PEERGROUPS ([UnixFD]), a loopback TCP peer
// by the owner of its socket, a TCP peer on another host refused unless
// allowed ([Policy.Check]). Every refusal wraps [ErrRefused]; [Kind]
// names the status count it goes to. The server and the workers both
// check peers: the worker a connection it accepted, the server one it
// accepted itself.
//
// It needs Linux and cgo, as serve does.
package peer
