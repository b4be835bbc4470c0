//go:build !cgo

package simpleremote

import (
	"context"
	"net"
	"net/netip"
)

// lookupTCP resolves host:port with Go's resolver (no libc here).
func lookupTCP(ctx context.Context, host, port string) ([]netip.AddrPort, error) {
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil, err
	}
	p, err := net.DefaultResolver.LookupPort(ctx, "tcp", port)
	if err != nil {
		return nil, err
	}
	addrs := make([]netip.AddrPort, len(ips))
	for i, ip := range ips {
		addrs[i] = netip.AddrPortFrom(ip, uint16(p))
	}
	return addrs, nil
}
