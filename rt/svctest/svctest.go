package svctest

import (
	"fmt"
	"testing"
	"time"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// Harness is a Session with installed services and a loopback controller.
type Harness struct {
	S    *rt.Session
	Syms *rt.SymbolTable
	Ctl  *rt.LoopbackController

	runner *rt.GoRunner
	errs   chan error
}

// New builds a Session, lets install register services and symbols, and
// attaches a loopback controller. Errors reported by the Session fail t.
func New(t testing.TB, install func(s *rt.Session, syms *rt.SymbolTable) error) *Harness {
	t.Helper()
	pi, err := rt.DetectProcessInfo()
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{runner: rt.NewGoRunner(4), Syms: rt.NewSymbolTable(), errs: make(chan error, 64)}
	h.S = rt.NewSession(pi, h.runner, func(_ *rt.Session, err error) {
		select {
		case h.errs <- err:
		default:
		}
	})
	if install != nil {
		if err := install(h.S, h.Syms); err != nil {
			h.S.Close()
			h.runner.Close()
			t.Fatal(err)
		}
	}
	lb := rt.NewLoopback(func(ctl *rt.LoopbackController, _ *rt.BootstrapInfo) error {
		h.Ctl = ctl
		return nil
	})
	if err := h.S.Attach(lb, rt.NewBootstrapInfo(h.S, h.Syms, nil)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		h.Close()
		select {
		case err := <-h.errs:
			t.Errorf("session reported: %v", err)
		default:
		}
	})
	return h
}

// Close shuts the Session down and waits for it, then stops the runner.
// It is idempotent.
func (h *Harness) Close() {
	h.S.Close()
	h.runner.Close()
}

// Addr returns the address bound to a bootstrap name, or panics.
func (h *Harness) Addr(name string) sps.Addr {
	a, ok := h.Syms.Lookup(name)
	if !ok {
		panic(fmt.Sprintf("svctest: no bootstrap symbol %q", name))
	}
	return a
}

// Call calls the wrapper function at addr with args and waits for its
// result (at most a minute).
func (h *Harness) Call(addr sps.Addr, args []byte) rt.WrapperResult {
	ch := make(chan rt.WrapperResult, 1)
	h.Ctl.CallWrapper(addr, args, func(r rt.WrapperResult) { ch <- r })
	select {
	case r := <-ch:
		return r
	case <-time.After(time.Minute):
		panic("svctest: wrapper call did not return within a minute")
	}
}

// CallName calls the wrapper bound to a bootstrap name.
func (h *Harness) CallName(name string, args []byte) rt.WrapperResult {
	return h.Call(h.Addr(name), args)
}
