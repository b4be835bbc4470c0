package wiretest

import (
	"context"
	"fmt"

	"github.com/orcgo/orcrt/sps"
)

// Typed calls of executor functions over sps signatures: the arguments
// are encoded with sig, the result decoded with it. A result that does not
// decode (for example the empty payload LLVM 22 sends for an out-of-band
// error) gives an error matching ErrDeserializeResult.

// Call0 calls fn with no arguments.
func Call0[R any](ctx context.Context, c *Controller, fn sps.Addr, sig sps.Func0[R]) (R, error) {
	return decode(ctx, c, fn, sig.AppendArgs(nil), sig.DecodeResult)
}

// Call1 calls fn(a1).
func Call1[A1, R any](ctx context.Context, c *Controller, fn sps.Addr, sig sps.Func1[A1, R], a1 A1) (R, error) {
	return decode(ctx, c, fn, sig.AppendArgs(make([]byte, 0, sig.ArgsSize(a1)), a1), sig.DecodeResult)
}

// Call2 calls fn(a1, a2).
func Call2[A1, A2, R any](ctx context.Context, c *Controller, fn sps.Addr, sig sps.Func2[A1, A2, R], a1 A1, a2 A2) (R, error) {
	return decode(ctx, c, fn, sig.AppendArgs(make([]byte, 0, sig.ArgsSize(a1, a2)), a1, a2), sig.DecodeResult)
}

// Call3 calls fn(a1, a2, a3).
func Call3[A1, A2, A3, R any](ctx context.Context, c *Controller, fn sps.Addr, sig sps.Func3[A1, A2, A3, R], a1 A1, a2 A2, a3 A3) (R, error) {
	return decode(ctx, c, fn, sig.AppendArgs(make([]byte, 0, sig.ArgsSize(a1, a2, a3)), a1, a2, a3), sig.DecodeResult)
}

func decode[R any](ctx context.Context, c *Controller, fn sps.Addr, args []byte, dec func([]byte) (R, error)) (R, error) {
	var zero R
	b, err := c.Call(ctx, fn, args)
	if err != nil {
		return zero, err
	}
	r, err := dec(b)
	if err != nil {
		return zero, fmt.Errorf("%w (%d payload bytes from %#x): %w", ErrDeserializeResult, len(b), uint64(fn), err)
	}
	return r, nil
}

// Handle1 answers executor calls to tag with fn over sig: arguments that
// do not decode are answered with an empty payload (LLVM 22's wire form
// of the out-of-band "Could not deserialize arguments" error).
func Handle1[A1, R any](c *Controller, tag sps.Addr, sig sps.Func1[A1, R], fn func(A1) R) {
	c.Handle(tag, func(in *Incoming) {
		a1, err := sig.DecodeArgs(in.Args)
		if err != nil {
			_ = in.Reply(nil)
			return
		}
		r := fn(a1)
		_ = in.Reply(sig.AppendResult(make([]byte, 0, sig.ResultSize(r)), r))
	})
}

// Handle2 is Handle1 for two arguments.
func Handle2[A1, A2, R any](c *Controller, tag sps.Addr, sig sps.Func2[A1, A2, R], fn func(A1, A2) R) {
	c.Handle(tag, func(in *Incoming) {
		a1, a2, err := sig.DecodeArgs(in.Args)
		if err != nil {
			_ = in.Reply(nil)
			return
		}
		r := fn(a1, a2)
		_ = in.Reply(sig.AppendResult(make([]byte, 0, sig.ResultSize(r)), r))
	})
}
