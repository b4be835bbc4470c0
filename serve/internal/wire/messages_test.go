//go:build cgo && linux

package wire

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCutField(t *testing.T) {
	h, r, ok := CutField("session\x0012")
	assert.Equal(t, []any{"session", "12", true}, []any{h, r, ok})
	h, _, ok = CutField("ready")
	assert.Equal(t, "ready", h)
	assert.False(t, ok)
}

// TestMessages: what one side encodes the other parses back.
func TestMessages(t *testing.T) {
	s := Started{PID: 42, Dialect: "LLVM 22", How: "path", ID: 7, Accepted: time.Unix(0, 1234), Network: "unix", Addr: "@", UID: 1000, GID: 100}
	got, ok := ParseStarted(Fields(s.Encode()))
	require.True(t, ok)
	assert.Equal(t, s, got)
	_, ok = ParseStarted([]string{MsgStarted, "1"})
	assert.False(t, ok)

	r := Refused{Kind: "uid", Network: "tcp", Addr: "127.0.0.1:1", UID: 9, PID: -1, Why: "refused: x"}
	gotR, ok := ParseRefused(Fields(r.Encode()))
	require.True(t, ok)
	assert.Equal(t, r, gotR)
}

// TestArgs: the worker parses the command line the server writes.
func TestArgs(t *testing.T) {
	a := Args{RlimitAS: 4 << 30, RlimitCPU: time.Minute, IdleTimeout: time.Second, Listeners: 2, AllowUIDs: []int{0, 7},
		AllowGIDs: []int{50}, AllowRemote: true, OutputDir: "/tmp/out", DrainTimeout: -1, MaxMessageSize: 1 << 20, LLVM: "19"}
	cl := a.CommandLine()
	require.Equal(t, WorkerArg, cl[0])
	got, err := ParseArgs(cl[1:])
	require.NoError(t, err)
	assert.Equal(t, a, got)
	got, err = ParseArgs(Args{}.CommandLine()[1:])
	require.NoError(t, err)
	assert.Equal(t, Args{}, got)
	_, err = ParseArgs([]string{"-as=1", "-no-such=2"})
	assert.ErrorContains(t, err, "-no-such=2: unknown flag")
}
