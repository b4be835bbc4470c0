//go:build cgo && (amd64 || arm64)

package native

import (
	"bytes"
	"fmt"
	"github.com/orcgo/orcrt/internal/cmem"
	"github.com/orcgo/orcrt/sps"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCallWrapperResultPaths drives every result state through both call
// paths — the frame fast path (at least 32 bytes of spare capacity in
// dst; results of up to spare-8 bytes land in dst) and the
// struct-returning one (less) — across their boundaries, with a prefix
// already in dst that must survive. The message is 57 bytes, the large
// result 128.
func TestCallWrapperResultPaths(t *testing.T) {
	echo := place(t, mc.echo)
	large := bytes.Repeat([]byte("0123456789abcdef"), 8) // 128 bytes
	const msg = "Could not deserialize arguments for wrapper function call"
	type want struct {
		data []byte
		oob  string
		isOO bool
	}
	cases := []struct {
		name string
		args func(t *testing.T) []byte
		want want
	}{
		{"empty", func(*testing.T) []byte { return words(0, 0) }, want{}},
		{"large", func(t *testing.T) []byte {
			p, err := cmem.MallocCopy(large)
			require.NoError(t, err)
			return words(uint64(p), uint64(len(large)))
		}, want{data: large}},
		{"oob", func(t *testing.T) []byte {
			p, err := cmem.MallocCopy([]byte(msg + "\x00"))
			require.NoError(t, err)
			return words(uint64(p), 0)
		}, want{oob: msg, isOO: true}},
		{"oob-empty-message", func(t *testing.T) []byte {
			p, err := cmem.MallocCopy([]byte{0})
			require.NoError(t, err)
			return words(uint64(p), 0)
		}, want{isOO: true}},
	}
	for k := 1; k <= 8; k++ {
		cases = append(cases, struct {
			name string
			args func(t *testing.T) []byte
			want want
		}{fmt.Sprintf("inline%d", k), func(*testing.T) []byte { return words(0x0807060504030201, uint64(k)) },
			want{data: []byte{1, 2, 3, 4, 5, 6, 7, 8}[:k]}})
	}
	for _, spare := range []int{0, 3, 8, 31, 32, 33, 64, 72, 127, 128, 135, 136, 137, 1000} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("spare=%d/%s", spare, tc.name), func(t *testing.T) {
				dst := append(make([]byte, 0, 3+spare), "pre"...)
				got, err := CallWrapper(echo, tc.args(t), dst)
				if tc.want.isOO {
					var oob *sps.OutOfBandError
					require.ErrorAs(t, err, &oob)
					assert.Equal(t, tc.want.oob, oob.Msg)
					assert.Equal(t, "pre", string(got))
					return
				}
				require.NoError(t, err)
				assert.Equal(t, append([]byte("pre"), tc.want.data...), got)
			})
		}
	}
}
