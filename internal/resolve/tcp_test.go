//go:build cgo && linux

package resolve

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTCP(t *testing.T) {
	addrs, err := TCP("127.0.0.1", "7000")
	require.NoError(t, err)
	assert.Equal(t, []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:7000")}, addrs)
	addrs, err = TCP("::1", "http")
	require.NoError(t, err)
	assert.Equal(t, []netip.AddrPort{netip.MustParseAddrPort("[::1]:80")}, addrs)
	_, err = TCP("no-such-host.invalid", "1")
	assert.ErrorContains(t, err, "getaddrinfo: ")
}
