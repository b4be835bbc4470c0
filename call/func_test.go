//go:build cgo

package call_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/rt/keepalive"
)

// Why a call is denied comes from the guards alone: a closed pin is a
// release, unless the Session's group is closing too.
func TestDenied(t *testing.T) {
	const addr = 0x1000 // never called: every guard below is closed
	pin, session := keepalive.New(), keepalive.New()
	pin.Close()
	f := call.NewFunc(addr, pin, session)
	_, err := f.Call(1)
	assert.ErrorIs(t, err, call.ErrReleased)
	_, err = call.Typed1[int64, int64](f).Call(1)
	assert.ErrorIs(t, err, call.ErrReleased)
	assert.ErrorIs(t, f.Batch(func() { t.Error("Batch ran on released code") }), call.ErrReleased)
	session.Close()
	_, err = f.Call(1)
	assert.ErrorIs(t, err, call.ErrShutDown)

	host := keepalive.New() // code outside JIT'd memory: the Session's group guards it
	h := call.NewFunc(addr, host, host)
	host.Close()
	_, err = call.Typed0[call.Void](h).Call()
	assert.ErrorIs(t, err, call.ErrShutDown)
	assert.Equal(t, uintptr(addr), h.Addr())
}

func TestRawLimits(t *testing.T) {
	_, err := call.Raw(call.Func{}, call.IntArgRegs+1, 0, false)
	assert.Error(t, err)
	_, err = call.Raw(call.Func{}, call.IntArgRegs, call.FloatArgRegs, true)
	assert.NoError(t, err)
	_, err = call.Func{}.Call(1)
	assert.ErrorContains(t, err, "call of the zero Func")
}
