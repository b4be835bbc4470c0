package rt

import (
	"github.com/orcgo/orcrt/sps"
)

// Typed (SPS) wrapper functions over sps.FuncN signatures: HandleN,
// HandleAsyncN, HandleExpectedN and HandleMethod* build WrapperFuncs;
// CallN and CallExpectedN call through any Caller and decode the result.
//
// Handlers: undecodable arguments answer with the dialect's
// DeserializeArgs out-of-band error, a panicking result codec with
// MsgSerializeResult; trailing argument bytes are ignored; decoded views
// alias the argument buffer. SPSError results are Go errors,
// SPSExpected<T> is sps.Expected[T] (or (T, error) with HandleExpected),
// void is struct{} with sps.Empty.
//
// Callers: onResult gets the decoded result, or the zero R and an
// *OutOfBandError, *DecodeResultError or *SerializeArgsError. The remote
// function's own error stays inside R, distinct from transport failures.

// encode encodes r, turning a panicking codec into upstream's
// out-of-band "Could not serialize wrapper function result data".
func encode[R any](s *Session, c sps.Codec[R], r R) (res WrapperResult) {
	defer func() {
		if v := recover(); v != nil {
			s.ReportError(panicError("encoding a wrapper function result", v))
			res = OutOfBandResult(MsgSerializeResult)
		}
	}()
	return ResultBytes(sps.Marshal(c, r))
}

// encodeArgs runs an argument encoder, turning a panic into a
// *SerializeArgsError.
func encodeArgs(f func() []byte) (b []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = &SerializeArgsError{Err: panicError("encoding wrapper function call arguments", v)}
		}
	}()
	return f(), nil
}

// badArgs answers undecodable arguments.
func badArgs(s *Session) WrapperResult { return OutOfBandResult(s.dialect.DeserializeArgs) }

// typedReturn adapts ret to a typed result callback.
func typedReturn[R any](s *Session, c sps.Codec[R], ret ReturnFunc) func(R) {
	return func(r R) { ret(encode(s, c, r)) }
}

func expected[T any](v T, err error) sps.Expected[T] {
	if err != nil {
		return sps.Expected[T]{Err: err}
	}
	return sps.Expected[T]{Value: v}
}

// decodeResult finishes a typed call.
func decodeResult[R any](r WrapperResult, c sps.Codec[R], onResult func(R, error)) {
	var zero R
	if r.IsOutOfBandError() {
		onResult(zero, r.Err())
		return
	}
	v, err := sps.Unmarshal(c, r.Bytes())
	if err != nil {
		onResult(zero, &DecodeResultError{Err: err})
		return
	}
	onResult(v, nil)
}

// Await runs call and blocks until its result callback fires, returning
// what it was given: a blocking form of the CallN functions, e.g.
//
//	sum, err := rt.Await(func(done func(int64, error)) { rt.Call2(c, Add, 41, 1, done) })
//
// Do not Await a controller call while holding a keepalive token on a
// goroutine the result's continuation needs (InlineRunner, a
// QueueingRunner drained by the same goroutine).
func Await[R any](call func(done func(R, error))) (R, error) {
	type res struct {
		v   R
		err error
	}
	ch := make(chan res, 1)
	call(func(v R, err error) { ch <- res{v, err} })
	r := <-ch
	return r.v, r.err
}

// The handler primitives, one per arity: handleN decodes the arguments
// (answering badArgs when they do not decode) and passes them and ret to
// k. Every Handle* is an adapter: its k is built once, at registration,
// so a call costs one more indirect call and no allocation. (Handle is
// not an adapter of HandleAsync: typedReturn's closure would allocate per
// call.)

func handle0(k func(s *Session, ret ReturnFunc)) WrapperFunc {
	return func(s *Session, _ []byte, ret ReturnFunc) { k(s, ret) }
}

func handle1[A1, R any](sig sps.Func1[A1, R], k func(s *Session, a1 A1, ret ReturnFunc)) WrapperFunc {
	return func(s *Session, args []byte, ret ReturnFunc) {
		a1, err := sig.DecodeArgs(args)
		if err != nil {
			ret(badArgs(s))
			return
		}
		k(s, a1, ret)
	}
}

func handle2[A1, A2, R any](sig sps.Func2[A1, A2, R], k func(s *Session, a1 A1, a2 A2, ret ReturnFunc)) WrapperFunc {
	return func(s *Session, args []byte, ret ReturnFunc) {
		a1, a2, err := sig.DecodeArgs(args)
		if err != nil {
			ret(badArgs(s))
			return
		}
		k(s, a1, a2, ret)
	}
}

func handle3[A1, A2, A3, R any](sig sps.Func3[A1, A2, A3, R], k func(s *Session, a1 A1, a2 A2, a3 A3, ret ReturnFunc)) WrapperFunc {
	return func(s *Session, args []byte, ret ReturnFunc) {
		a1, a2, a3, err := sig.DecodeArgs(args)
		if err != nil {
			ret(badArgs(s))
			return
		}
		k(s, a1, a2, a3, ret)
	}
}

// instance resolves a method-style handler's instance address; an
// unknown address, or an instance that is not a T, is answered with an
// out-of-band error naming it.
func instance[T any](s *Session, addr sps.Addr, ret ReturnFunc) (T, bool) {
	obj, err := InstanceAt[T](s, addr)
	if err != nil {
		ret(OutOfBandResult(err.Error()))
		return obj, false
	}
	return obj, true
}

// call sends the encoded arguments b through c (or reports their
// encoding's failure) and decodes the result for onResult.
func call[R any](c Caller, b []byte, err error, rc sps.Codec[R], onResult func(R, error)) {
	if err != nil {
		var zero R
		onResult(zero, err)
		return
	}
	c(b, func(r WrapperResult) { decodeResult(r, rc, onResult) })
}

// Handle0 adapts a synchronous typed handler for the signature
// R().
func Handle0[R any](sig sps.Func0[R], fn func(s *Session) R) WrapperFunc {
	return handle0(func(s *Session, ret ReturnFunc) { ret(encode(s, sig.Ret, fn(s))) })
}

// HandleExpected0 adapts a synchronous handler returning (T, error) for
// the signature SPSExpected<T>().
func HandleExpected0[T any](sig sps.Func0[sps.Expected[T]], fn func(s *Session) (T, error)) WrapperFunc {
	return Handle0(sig, func(s *Session) sps.Expected[T] { return expected(fn(s)) })
}

// HandleAsync0 adapts an asynchronous typed handler: it must call
// ret exactly once, possibly later and from another goroutine.
func HandleAsync0[R any](sig sps.Func0[R], fn func(s *Session, ret func(R))) WrapperFunc {
	return handle0(func(s *Session, ret ReturnFunc) { fn(s, typedReturn(s, sig.Ret, ret)) })
}

// Call0 calls the wrapper behind c with the signature
// R() and passes the decoded result to onResult exactly once.
func Call0[R any](c Caller, sig sps.Func0[R], onResult func(R, error)) {
	b, err := encodeArgs(func() []byte { return sig.AppendArgs(nil) })
	call(c, b, err, sig.Ret, onResult)
}

// Handle1 adapts a synchronous typed handler for the signature
// R(A1).
func Handle1[A1, R any](sig sps.Func1[A1, R], fn func(s *Session, a1 A1) R) WrapperFunc {
	return handle1(sig, func(s *Session, a1 A1, ret ReturnFunc) { ret(encode(s, sig.Ret, fn(s, a1))) })
}

// HandleExpected1 adapts a synchronous handler returning (T, error) for
// the signature SPSExpected<T>(A1).
func HandleExpected1[A1, T any](sig sps.Func1[A1, sps.Expected[T]], fn func(s *Session, a1 A1) (T, error)) WrapperFunc {
	return Handle1(sig, func(s *Session, a1 A1) sps.Expected[T] { return expected(fn(s, a1)) })
}

// HandleAsync1 adapts an asynchronous typed handler: it must call
// ret exactly once, possibly later and from another goroutine.
func HandleAsync1[A1, R any](sig sps.Func1[A1, R], fn func(s *Session, a1 A1, ret func(R))) WrapperFunc {
	return handle1(sig, func(s *Session, a1 A1, ret ReturnFunc) { fn(s, a1, typedReturn(s, sig.Ret, ret)) })
}

// Call1 calls the wrapper behind c with the signature
// R(A1) and passes the decoded result to onResult exactly once.
func Call1[A1, R any](c Caller, sig sps.Func1[A1, R], a1 A1, onResult func(R, error)) {
	b, err := encodeArgs(func() []byte { return sig.AppendArgs(make([]byte, 0, sig.ArgsSize(a1)), a1) })
	call(c, b, err, sig.Ret, onResult)
}

// Handle2 adapts a synchronous typed handler for the signature
// R(A1, A2).
func Handle2[A1, A2, R any](sig sps.Func2[A1, A2, R], fn func(s *Session, a1 A1, a2 A2) R) WrapperFunc {
	return handle2(sig, func(s *Session, a1 A1, a2 A2, ret ReturnFunc) { ret(encode(s, sig.Ret, fn(s, a1, a2))) })
}

// HandleExpected2 adapts a synchronous handler returning (T, error) for
// the signature SPSExpected<T>(A1, A2).
func HandleExpected2[A1, A2, T any](sig sps.Func2[A1, A2, sps.Expected[T]], fn func(s *Session, a1 A1, a2 A2) (T, error)) WrapperFunc {
	return Handle2(sig, func(s *Session, a1 A1, a2 A2) sps.Expected[T] { return expected(fn(s, a1, a2)) })
}

// HandleAsync2 adapts an asynchronous typed handler: it must call
// ret exactly once, possibly later and from another goroutine.
func HandleAsync2[A1, A2, R any](sig sps.Func2[A1, A2, R], fn func(s *Session, a1 A1, a2 A2, ret func(R))) WrapperFunc {
	return handle2(sig, func(s *Session, a1 A1, a2 A2, ret ReturnFunc) { fn(s, a1, a2, typedReturn(s, sig.Ret, ret)) })
}

// Call2 calls the wrapper behind c with the signature
// R(A1, A2) and passes the decoded result to onResult exactly once.
func Call2[A1, A2, R any](c Caller, sig sps.Func2[A1, A2, R], a1 A1, a2 A2, onResult func(R, error)) {
	b, err := encodeArgs(func() []byte { return sig.AppendArgs(make([]byte, 0, sig.ArgsSize(a1, a2)), a1, a2) })
	call(c, b, err, sig.Ret, onResult)
}

// Handle3 adapts a synchronous typed handler for the signature
// R(A1, A2, A3).
func Handle3[A1, A2, A3, R any](sig sps.Func3[A1, A2, A3, R], fn func(s *Session, a1 A1, a2 A2, a3 A3) R) WrapperFunc {
	return handle3(sig, func(s *Session, a1 A1, a2 A2, a3 A3, ret ReturnFunc) { ret(encode(s, sig.Ret, fn(s, a1, a2, a3))) })
}

// HandleExpected3 adapts a synchronous handler returning (T, error) for
// the signature SPSExpected<T>(A1, A2, A3).
func HandleExpected3[A1, A2, A3, T any](sig sps.Func3[A1, A2, A3, sps.Expected[T]], fn func(s *Session, a1 A1, a2 A2, a3 A3) (T, error)) WrapperFunc {
	return Handle3(sig, func(s *Session, a1 A1, a2 A2, a3 A3) sps.Expected[T] { return expected(fn(s, a1, a2, a3)) })
}

// HandleAsync3 adapts an asynchronous typed handler: it must call
// ret exactly once, possibly later and from another goroutine.
func HandleAsync3[A1, A2, A3, R any](sig sps.Func3[A1, A2, A3, R], fn func(s *Session, a1 A1, a2 A2, a3 A3, ret func(R))) WrapperFunc {
	return handle3(sig, func(s *Session, a1 A1, a2 A2, a3 A3, ret ReturnFunc) { fn(s, a1, a2, a3, typedReturn(s, sig.Ret, ret)) })
}

// Call3 calls the wrapper behind c with the signature
// R(A1, A2, A3) and passes the decoded result to onResult exactly once.
func Call3[A1, A2, A3, R any](c Caller, sig sps.Func3[A1, A2, A3, R], a1 A1, a2 A2, a3 A3, onResult func(R, error)) {
	b, err := encodeArgs(func() []byte { return sig.AppendArgs(make([]byte, 0, sig.ArgsSize(a1, a2, a3)), a1, a2, a3) })
	call(c, b, err, sig.Ret, onResult)
}

// HandleMethod0 adapts a synchronous method-style handler for the
// signature R(SPSExecutorAddr instance): the first argument is
// an address from Session.RegisterInstance and fn receives the instance
// registered there. An unknown address, or an instance that is not a T,
// answers with an out-of-band error naming the address.
func HandleMethod0[T, R any](sig sps.Func1[sps.Addr, R], fn func(s *Session, obj T) R) WrapperFunc {
	return handle1(sig, func(s *Session, addr sps.Addr, ret ReturnFunc) {
		if obj, ok := instance[T](s, addr, ret); ok {
			ret(encode(s, sig.Ret, fn(s, obj)))
		}
	})
}

// HandleMethodExpected0 is HandleMethod0 for a handler returning
// (V, error) and the signature SPSExpected<V>(instance).
func HandleMethodExpected0[T, V any](sig sps.Func1[sps.Addr, sps.Expected[V]], fn func(s *Session, obj T) (V, error)) WrapperFunc {
	return HandleMethod0(sig, func(s *Session, obj T) sps.Expected[V] { return expected(fn(s, obj)) })
}

// HandleMethodAsync0 is HandleMethod0 for an asynchronous handler
// (upstream's handleWithAsyncMethod): fn must call ret exactly once.
func HandleMethodAsync0[T, R any](sig sps.Func1[sps.Addr, R], fn func(s *Session, obj T, ret func(R))) WrapperFunc {
	return handle1(sig, func(s *Session, addr sps.Addr, ret ReturnFunc) {
		if obj, ok := instance[T](s, addr, ret); ok {
			fn(s, obj, typedReturn(s, sig.Ret, ret))
		}
	})
}

// HandleMethod1 adapts a synchronous method-style handler for the
// signature R(SPSExecutorAddr instance, A1), as HandleMethod0.
func HandleMethod1[T, A1, R any](sig sps.Func2[sps.Addr, A1, R], fn func(s *Session, obj T, a1 A1) R) WrapperFunc {
	return handle2(sig, func(s *Session, addr sps.Addr, a1 A1, ret ReturnFunc) {
		if obj, ok := instance[T](s, addr, ret); ok {
			ret(encode(s, sig.Ret, fn(s, obj, a1)))
		}
	})
}

// HandleMethodExpected1 is HandleMethod1 for a handler returning
// (V, error) and the signature SPSExpected<V>(instance, A1).
func HandleMethodExpected1[T, A1, V any](sig sps.Func2[sps.Addr, A1, sps.Expected[V]], fn func(s *Session, obj T, a1 A1) (V, error)) WrapperFunc {
	return HandleMethod1(sig, func(s *Session, obj T, a1 A1) sps.Expected[V] { return expected(fn(s, obj, a1)) })
}

// HandleMethodAsync1 is HandleMethod1 for an asynchronous handler
// (upstream's handleWithAsyncMethod): fn must call ret exactly once.
func HandleMethodAsync1[T, A1, R any](sig sps.Func2[sps.Addr, A1, R], fn func(s *Session, obj T, a1 A1, ret func(R))) WrapperFunc {
	return handle2(sig, func(s *Session, addr sps.Addr, a1 A1, ret ReturnFunc) {
		if obj, ok := instance[T](s, addr, ret); ok {
			fn(s, obj, a1, typedReturn(s, sig.Ret, ret))
		}
	})
}

// HandleMethod2 adapts a synchronous method-style handler for the
// signature R(SPSExecutorAddr instance, A1, A2), as HandleMethod0.
func HandleMethod2[T, A1, A2, R any](sig sps.Func3[sps.Addr, A1, A2, R], fn func(s *Session, obj T, a1 A1, a2 A2) R) WrapperFunc {
	return handle3(sig, func(s *Session, addr sps.Addr, a1 A1, a2 A2, ret ReturnFunc) {
		if obj, ok := instance[T](s, addr, ret); ok {
			ret(encode(s, sig.Ret, fn(s, obj, a1, a2)))
		}
	})
}

// HandleMethodExpected2 is HandleMethod2 for a handler returning
// (V, error) and the signature SPSExpected<V>(instance, A1, A2).
func HandleMethodExpected2[T, A1, A2, V any](sig sps.Func3[sps.Addr, A1, A2, sps.Expected[V]], fn func(s *Session, obj T, a1 A1, a2 A2) (V, error)) WrapperFunc {
	return HandleMethod2(sig, func(s *Session, obj T, a1 A1, a2 A2) sps.Expected[V] { return expected(fn(s, obj, a1, a2)) })
}

// HandleMethodAsync2 is HandleMethod2 for an asynchronous handler
// (upstream's handleWithAsyncMethod): fn must call ret exactly once.
func HandleMethodAsync2[T, A1, A2, R any](sig sps.Func3[sps.Addr, A1, A2, R], fn func(s *Session, obj T, a1 A1, a2 A2, ret func(R))) WrapperFunc {
	return handle3(sig, func(s *Session, addr sps.Addr, a1 A1, a2 A2, ret ReturnFunc) {
		if obj, ok := instance[T](s, addr, ret); ok {
			fn(s, obj, a1, a2, typedReturn(s, sig.Ret, ret))
		}
	})
}

// flatten turns an SPSExpected<T> result into (T, error): the error is
// either the transport or codec failure or the function's own error (an
// *sps.RemoteError).
func flatten[T any](onResult func(T, error)) func(sps.Expected[T], error) {
	return func(e sps.Expected[T], err error) {
		if err == nil {
			err = e.Err
		}
		if err != nil {
			var zero T
			onResult(zero, err)
			return
		}
		onResult(e.Value, nil)
	}
}

// CallExpected0 is Call0 for an SPSExpected<T> result, flattened to
// (T, error).
func CallExpected0[T any](c Caller, sig sps.Func0[sps.Expected[T]], onResult func(T, error)) {
	Call0(c, sig, flatten(onResult))
}

// CallExpected1 is Call1 for an SPSExpected<T> result, flattened to
// (T, error).
func CallExpected1[A1, T any](c Caller, sig sps.Func1[A1, sps.Expected[T]], a1 A1, onResult func(T, error)) {
	Call1(c, sig, a1, flatten(onResult))
}

// CallExpected2 is Call2 for an SPSExpected<T> result, flattened to
// (T, error).
func CallExpected2[A1, A2, T any](c Caller, sig sps.Func2[A1, A2, sps.Expected[T]], a1 A1, a2 A2, onResult func(T, error)) {
	Call2(c, sig, a1, a2, flatten(onResult))
}

// CallExpected3 is Call3 for an SPSExpected<T> result, flattened to
// (T, error).
func CallExpected3[A1, A2, A3, T any](c Caller, sig sps.Func3[A1, A2, A3, sps.Expected[T]], a1 A1, a2 A2, a3 A3, onResult func(T, error)) {
	Call3(c, sig, a1, a2, a3, flatten(onResult))
}
