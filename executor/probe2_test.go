//go:build cgo

package executor_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

// TestProbe2 replays stock-executor Probe 2 (each case a fresh
// executor; how it ends): against orcrt-executor processes and in-process
// executors, and, when installed, against the stock executor, whose exit
// status and stderr ours must equal.
func TestProbe2(t *testing.T) {
	type probe struct {
		name string
		send func(s *session) // then the controller closes its output
		msg  string           // fatal message, "" for an orderly end
	}
	var pr []probe
	for _, p := range []struct {
		name    string
		payload []byte
	}{
		{"hangup-empty", nil},
		{"hangup-success", []byte{0}},
		{"hangup-failure", sps.Marshal(sps.String, "\x01") /* 01 + junk: 22 does not decode it */},
	} {
		pr = append(pr, probe{name: p.name, send: func(s *session) { _ = s.Hangup(p.payload) }})
	}
	// One call before the Hangup, so the end is not only at startup.
	pr = append(pr,
		probe{name: "clean-eof", send: func(*session) {}},
		probe{name: "opcode-4", send: func(s *session) { _ = s.SendRaw(wiretest.RawHeader(32, 4, 0, 0)) }, msg: "Unexpected opcode"},
		probe{name: "setup-from-controller", send: func(s *session) { _ = s.SendRaw(wiretest.SetupFrame(s.Setup())) }, msg: "Unexpected Setup opcode"},
		probe{name: "msgsize-16", send: func(s *session) { _ = s.SendRaw(wiretest.RawHeader(16, 3, 0, 0)) }, msg: "Message size too small"},
		probe{name: "eof-in-header", send: func(s *session) { _ = s.SendRaw(wiretest.RawHeader(40, 3, 0, 0)[:10]) }, msg: "Unexpected end-of-file"},
		probe{name: "eof-in-payload", send: func(s *session) {
			_ = s.SendRaw(append(wiretest.RawHeader(48, 3, 0, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper")), 1, 2, 3))
		}, msg: "Unexpected end-of-file"},
		probe{name: "result-unknown-seq", send: func(s *session) { _ = s.SendResult(7, []byte{1}) }, msg: "No call for sequence number 7"},
	)
	for _, p := range pr {
		t.Run(p.name, func(t *testing.T) {
			t.Run("inprocess", func(t *testing.T) {
				s := startInProcess(t, executorOptions())
				p.send(s)
				out := s.end(t)
				if p.msg == "" {
					assert.NoError(t, out.err)
				} else {
					assert.EqualError(t, out.err, p.msg)
				}
				assert.NoError(t, s.Err(), "the executor ended its output cleanly")
			})
			t.Run("process", func(t *testing.T) {
				s := startProcess(t, orcrtBin, nil)
				p.send(s)
				out := s.end(t)
				want := 0
				wantErr := ""
				if p.msg != "" {
					want, wantErr = 1, fatalText(orcrtBin, p.msg)
				}
				assert.Equal(t, want, out.status.Code, out.stderr)
				assert.Equal(t, wantErr, out.stderr)
				assert.NoError(t, s.Err())
			})
			t.Run("stock", func(t *testing.T) {
				requireStock(t)
				s := startProcess(t, stockBin, nil)
				p.send(s)
				out := s.end(t)
				ours := startProcess(t, orcrtBin, nil)
				p.send(ours)
				oout := ours.end(t)
				assert.Equal(t, out.status, oout.status)
				assert.Equal(t, strings.ReplaceAll(out.stderr, stockBin, "<executor>"), strings.ReplaceAll(oout.stderr, orcrtBin, "<executor>"))
			})
		})
	}
}
