//go:build cgo

package native

import (
	"errors"
	"net/netip"

	"github.com/orcgo/orcrt/internal/resolve"
)

// LookupTCP resolves host:port with libc's getaddrinfo.
//
// Deprecated: a DNS lookup is not a native call; orcrt's own packages use
// internal/resolve. LookupTCP stays for hosts written against 0.1.0 and
// will be removed in a later minor release.
func LookupTCP(host, port string) ([]netip.AddrPort, error) {
	addrs, err := resolve.TCP(host, port)
	if err != nil {
		return nil, errors.New("native: " + err.Error())
	}
	return addrs, nil
}
