//go:build linux

package memaccess_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/service/memaccess"
)

// wireCall calls write_buffers with args over a fresh connection of kind
// tr and returns what the controller received, as text.
func wireCall(t *testing.T, tr wiretest.Transport, args []byte) string {
	t.Helper()
	pi, err := rt.DetectProcessInfo()
	require.NoError(t, err)
	runner := rt.NewGoRunner(2)
	defer runner.Close()
	s := rt.NewSession(pi, runner, func(_ *rt.Session, err error) { t.Errorf("session reported: %v", err) })
	defer s.Close()
	syms := rt.NewSymbolTable()
	require.NoError(t, memaccess.Install(s, syms))
	ctl, ca, err := wiretest.Attach(s, rt.NewBootstrapInfo(s, syms, nil), tr, nil, nil)
	require.NoError(t, err)
	defer func() {
		_ = ctl.Close()
		<-ca.Done()
	}()
	res, err := ctl.CallName(context.Background(), memaccess.WriteBuffersName, args)
	return fmt.Sprintf("%x %v", res, err)
}

// TestWriteBuffersDirect: over a pipe, where a large single buffer is
// copied straight from the connection (rt.Session.RegisterDirectWriter),
// write_buffers answers as over an in-memory connection, where the
// wrapper copies it: the same bytes land, and a fault gives the same
// message, at the fault's page.
func TestWriteBuffersDirect(t *testing.T) {
	const n = 1 << 20
	data := bytes.Repeat([]byte("orcrt-direct"), n/12+1)[:n]
	args := func(addr uintptr) []byte {
		b := binary.LittleEndian.AppendUint64(nil, 1)
		b = binary.LittleEndian.AppendUint64(b, uint64(addr))
		b = binary.LittleEndian.AppendUint64(b, n)
		return append(b, data...)
	}
	for _, tc := range []struct {
		name     string
		readOnly int // bytes at the end of the buffer's mapping made read-only
		addr     func(base uintptr) uintptr
	}{
		{"written", 0, func(b uintptr) uintptr { return b }},
		{"unaligned", 0, func(b uintptr) uintptr { return b + 100 }},
		{"fault", n / 2, func(b uintptr) uintptr { return b }},
		{"zero page", 0, func(uintptr) uintptr { return 16 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, tr := range []wiretest.Transport{wiretest.Pipe, wiretest.Mem} {
				base := mapping(t, 2*n, 4096)
				if tc.readOnly > 0 {
					require.NoError(t, syscall.Mprotect(mem(base+n-uintptr(tc.readOnly), tc.readOnly), syscall.PROT_READ))
				}
				got = append(got, wireCall(t, tr, args(tc.addr(base))))
				if tc.name == "written" || tc.name == "unaligned" {
					a := tc.addr(base)
					assert.True(t, bytes.Equal(data, mem(a, n)), "%s: memory differs", tr)
				}
				if tc.readOnly > 0 {
					if tr == wiretest.Pipe { // memmove may keep its head for the end
						assert.True(t, bytes.Equal(data[:n-tc.readOnly], mem(base, n-tc.readOnly)), "the bytes before the fault")
					}
					// The answers differ only in the address, which is
					// the mapping's: compare them with it taken out.
					got[len(got)-1] = string(bytes.ReplaceAll([]byte(got[len(got)-1]),
						[]byte(fmt.Sprintf("%x", []byte(fmt.Sprintf("%#x", base+n-uintptr(tc.readOnly))))), []byte("ADDR")))
				}
			}
			assert.Equal(t, got[1], got[0], "over a pipe (direct) and in memory (the wrapper)")
		})
	}
}
