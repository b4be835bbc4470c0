//go:build cgo

package simpleremote

import (
	"context"
	"net/netip"

	"github.com/orcgo/orcrt/internal/resolve"
)

// lookupTCP resolves host:port with libc's getaddrinfo, as the stock
// executor does (package net's cgo resolver would too, at the cost of
// linking all of net's resolver). ctx is not consulted: getaddrinfo
// cannot be interrupted.
func lookupTCP(_ context.Context, host, port string) ([]netip.AddrPort, error) {
	return resolve.TCP(host, port)
}
