package memconn

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

func TestCheckOutput(t *testing.T) {
	setup := wiretest.SetupFrame(sps.SetupInfo{Triple: "x86_64-unknown-linux-gnu", PageSize: 4096})
	cat := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	result := wiretest.ResultFrame(1, []byte{1})
	call := wiretest.CallFrame(0, 0x1000, nil)
	hangup := wiretest.HangupFrame([]byte{0})
	big := wiretest.ResultFrame(2, make([]byte, 100<<10))
	refuse := errors.New("refused")
	for _, tc := range []struct {
		name     string
		out      []byte
		hangupOK bool
		visit    func(simpleremote.Header) error
		wantErr  string
		visited  int
	}{
		{name: "setup-only", out: setup},
		{name: "results-and-calls", out: cat(setup, result, call, result), visited: 3},
		{name: "hangup-after-local-disconnect", out: cat(setup, result, hangup), hangupOK: true, visited: 1},
		{name: "empty", out: nil, wantErr: "first output message"},
		{name: "result-first", out: result, wantErr: "first output message"},
		{name: "bad-setup-payload", out: wiretest.Frame(simpleremote.OpSetup, 0, 0, []byte{1}), wantErr: "Setup payload"},
		{name: "hangup-not-asked", out: cat(setup, hangup), wantErr: "Hangup without a local disconnect"},
		{name: "hangup-payload", out: cat(setup, wiretest.HangupFrame([]byte{1})), hangupOK: true, wantErr: "Hangup payload 01"},
		{name: "after-hangup", out: cat(setup, hangup, result), hangupOK: true, wantErr: "after Hangup"},
		{name: "result-tag", out: cat(setup, wiretest.Frame(simpleremote.OpResult, 1, 8, nil)), wantErr: "TagAddr 0x8"},
		{name: "setup-again", out: cat(setup, setup), wantErr: "executor sent"},
		{name: "truncated-small", out: cat(setup, result[:len(result)-1]), wantErr: "output stream"},
		{name: "truncated-large-cut-by-teardown", out: cat(setup, big[:len(big)-1])},
		{name: "visit-refuses", out: cat(setup, call), visit: func(simpleremote.Header) error { return refuse }, wantErr: "refused", visited: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			err := CheckOutput(tc.out, sps.SetupInfoCodec, tc.hangupOK, func(h simpleremote.Header) error {
				n++
				if tc.visit != nil {
					return tc.visit(h)
				}
				return nil
			})
			if tc.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, tc.wantErr)
			}
			assert.Equal(t, tc.visited, n)
		})
	}
}

func TestIsWireError(t *testing.T) {
	assert.False(t, IsWireError(nil))
	assert.False(t, IsWireError(errors.New("other")))
	assert.True(t, IsWireError(fmt.Errorf("wrapped: %w", &simpleremote.MessageTooLargeError{})))
}
