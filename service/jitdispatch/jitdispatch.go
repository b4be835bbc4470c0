//go:build cgo

package jitdispatch

import (
	"fmt"

	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// Bootstrap symbol names (SimpleRemoteEPCDefaultBootstrapSymbolNames).
const (
	CtxName = "__llvm_orc_SimpleRemoteEPC_dispatch_ctx"
	FnName  = "__llvm_orc_SimpleRemoteEPC_dispatch_fn"
)

// The names the ORC runtime declares them under (rt::DispatchCtxName,
// rt::DispatchName), bootstrap symbols in LLVM main (llvm-project PR
// #212434), whose controller also copies them from the names above.
const (
	OrcRTCtxName = "__orc_rt_jit_dispatch_ctx"
	OrcRTFnName  = "__orc_rt_jit_dispatch"
)

// MsgDisconnecting is the stock executor's out-of-band error for a
// dispatch failed by the end of the connection.
const MsgDisconnecting = "disconnecting"

// Observer sees the jit-dispatch calls of JIT'd code: it is called with
// each call's tag and arguments before the call goes to the controller,
// and returns nil, or a function that is called with the controller's
// result before JIT'd code gets it. args and the result's bytes are valid
// only during the call it is given them in; an Observer copies what it
// keeps. It runs on the JIT'd code's thread, which waits for it.
type Observer func(tag sps.Addr, args []byte) func(r rt.WrapperResult)

// Handler returns the dispatch handler for s: it forwards each call to
// the controller and blocks until the result arrives.
func Handler(s *rt.Session) native.DispatchFunc { return ObservedHandler(s, nil) }

// ObservedHandler is Handler with an Observer (nil: none).
func ObservedHandler(s *rt.Session, obs Observer) native.DispatchFunc {
	return func(tag uint64, args []byte) ([]byte, string) {
		tok, err := s.AcquireKeepalive()
		if err != nil {
			return nil, native.UnavailableMsg
		}
		defer tok.Release()
		// args alias the caller's C memory, valid during this call only;
		// the Session owns what it is given.
		buf := append([]byte(nil), args...)
		var seen func(rt.WrapperResult)
		if obs != nil {
			seen = obs(sps.Addr(tag), args)
		}
		ch := make(chan rt.WrapperResult, 1)
		s.CallController(sps.Addr(tag), buf, func(r rt.WrapperResult) { ch <- r })
		r := <-ch
		if seen != nil {
			seen(r)
		}
		if msg, oob := r.OutOfBandError(); oob {
			switch msg {
			case rt.MsgNoController:
				return nil, native.UnavailableMsg
			case rt.MsgDisconnected:
				return nil, MsgDisconnecting
			}
			return nil, msg
		}
		return r.Bytes(), ""
	}
}

// Install registers s's handler with package native, publishes the
// dispatch context and function in syms, and unregisters the handler when
// s shuts down.
func Install(s *rt.Session, syms *rt.SymbolTable) error { return InstallObserved(s, syms, nil) }

// InstallObserved is Install with an Observer of every dispatch (nil:
// none).
func InstallObserved(s *rt.Session, syms *rt.SymbolTable, obs Observer) error {
	ctx, err := native.RegisterDispatch(ObservedHandler(s, obs))
	if err != nil {
		return fmt.Errorf("jitdispatch: %w", err)
	}
	symbols := []rt.Symbol{
		{Name: CtxName, Addr: sps.Addr(ctx)},
		{Name: FnName, Addr: sps.Addr(native.DispatchFnAddr())},
	}
	if s.Dialect().OrcRTNames {
		symbols = append(symbols,
			rt.Symbol{Name: OrcRTCtxName, Addr: sps.Addr(ctx)},
			rt.Symbol{Name: OrcRTFnName, Addr: sps.Addr(native.DispatchFnAddr())})
	}
	if err := syms.AddUnique(symbols...); err != nil {
		native.UnregisterDispatch(ctx)
		return fmt.Errorf("jitdispatch: install: %w", err)
	}
	s.AddOnShutdown(func() { native.UnregisterDispatch(ctx) })
	return nil
}
