//go:build cgo && linux

package main

import (
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/serve"
)

func TestParseServe(t *testing.T) {
	cfg, verbose, err := parseServe([]string{"-pool=3", "-max-sessions=9", "-allow-uid=0,12", "-allow-gid=root", "-rlimit-as=1G",
		"-rlimit-cpu=90s", "-idle-timeout=1m", "-v", "unix=/x", "listen=:0"}, io.Discard)
	require.NoError(t, err)
	assert.True(t, verbose)
	assert.Equal(t, serve.Config{Addrs: []string{"unix=/x", "listen=:0"}, Pool: 3, MaxSessions: 9, AllowUIDs: []int{0, 12}, AllowGIDs: []int{0},
		RlimitAS: 1 << 30, RlimitCPU: 90 * time.Second, IdleTimeout: time.Minute, DrainTimeout: 30 * time.Second}, cfg)

	t.Setenv("LISTEN_FDS", "")
	_, _, err = parseServe(nil, io.Discard)
	assert.ErrorContains(t, err, "no address")
	_, _, err = parseServe([]string{"-pool=-1", "unix=/x"}, io.Discard)
	assert.Error(t, err)
	_, _, err = parseServe([]string{"-allow-uid=no-such-user-orcrt", "unix=/x"}, io.Discard)
	assert.ErrorContains(t, err, "-allow-uid")
}
