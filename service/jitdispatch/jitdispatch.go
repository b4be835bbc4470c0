//go:build cgo

package jitdispatch

import (
	"fmt"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/native"
	"github.com/orcgo/orcrt/sps"
)

// Bootstrap symbol names (SimpleRemoteEPCDefaultBootstrapSymbolNames).
const (
	CtxName = "__llvm_orc_SimpleRemoteEPC_dispatch_ctx"
	FnName  = "__llvm_orc_SimpleRemoteEPC_dispatch_fn"
)

// MsgDisconnecting is the stock executor's out-of-band error for a
// dispatch failed by the end of the connection.
const MsgDisconnecting = "disconnecting"

// Handler returns the dispatch handler for s: it forwards each call to
// the controller and blocks until the result arrives.
func Handler(s *rt.Session) native.DispatchFunc {
	return func(tag uint64, args []byte) ([]byte, string) {
		tok, err := s.AcquireKeepalive()
		if err != nil {
			return nil, native.UnavailableMsg
		}
		defer tok.Release()
		// args alias the caller's C memory, valid during this call only;
		// the Session owns what it is given.
		buf := append([]byte(nil), args...)
		ch := make(chan rt.WrapperResult, 1)
		s.CallController(sps.Addr(tag), buf, func(r rt.WrapperResult) { ch <- r })
		r := <-ch
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
func Install(s *rt.Session, syms *rt.SymbolTable) error {
	ctx, err := native.RegisterDispatch(Handler(s))
	if err != nil {
		return fmt.Errorf("jitdispatch: %w", err)
	}
	if err := syms.AddUnique(
		rt.Symbol{Name: CtxName, Addr: sps.Addr(ctx)},
		rt.Symbol{Name: FnName, Addr: sps.Addr(native.DispatchFnAddr())},
	); err != nil {
		native.UnregisterDispatch(ctx)
		return fmt.Errorf("jitdispatch: install: %w", err)
	}
	s.AddOnShutdown(func() { native.UnregisterDispatch(ctx) })
	return nil
}
