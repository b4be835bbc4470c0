//go:build !linux

package simpleremote

import (
	"context"
	"net"
)

func listenTCP(_ context.Context, host, port string) (net.Listener, error) {
	return net.Listen("tcp", net.JoinHostPort(host, port))
}

func dialTCP(ctx context.Context, host, port string) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", net.JoinHostPort(host, port))
}
