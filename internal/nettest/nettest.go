// Package nettest holds network helpers for tests: [LoopbackPair], both
// ends of a connection made through a listener. Its functions fail the
// test on error and close what they make when it ends.
package nettest

import (
	"net"
	"testing"
)

// LoopbackPair returns both ends of a connection over network ("tcp",
// "unix", ...) to a listener on addr, closed when t ends.
func LoopbackPair(t testing.TB, network, addr string) (client, server net.Conn) {
	t.Helper()
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if client, err = net.Dial(network, l.Addr().String()); err != nil {
		t.Fatal(err)
	}
	if server, err = l.Accept(); err != nil {
		client.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}
