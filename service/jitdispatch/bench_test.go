//go:build cgo

package jitdispatch_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/service/entry"
	"github.com/orcgo/orcrt/sps"
)

// BenchmarkDispatch: JIT'd code (a C wrapper function) jit-dispatches to
// an in-process (loopback) controller and returns its answer, against the
// same JIT'd call without the dispatch.
func BenchmarkDispatch(b *testing.B) {
	h := svctest.New(b, install)
	lib := svctest.JITLib(b)
	const tag = 0x5a5a9000
	h.Ctl.RegisterFunc(tag, func(args []byte) rt.WrapperResult { return rt.ResultBytes(args) })
	payload := make([]byte, 64)
	args := dispatchArgs(h, tag, nil, payload)
	var res rt.WrapperResult
	ret := func(r rt.WrapperResult) { res = r }
	dispatch := sps.Addr(lib("orcrt_test_dispatch"))
	b.Run("impl=jit-dispatch/size=64", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			entry.CallJITWrapper(h.S, dispatch, args, ret)
		}
		require.Equal(b, 64, res.Size())
	})
	echo := sps.Addr(lib("orcrt_test_echo"))
	b.Run("impl=jit-call-without-dispatch-reference/size=64", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			entry.CallJITWrapper(h.S, echo, payload, ret)
		}
	})
}
