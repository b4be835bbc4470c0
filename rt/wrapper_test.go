package rt

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/sps"
)

// ---- WrapperFunctionBufferTest (suite WrapperFunctionUtilsTest) ----

func TestWrapperFunctionBuffer_DefaultWrapperFunctionBuffer(t *testing.T) {
	var r WrapperResult
	assert.True(t, r.Empty())
	assert.Equal(t, 0, r.Size())
	assert.False(t, r.IsOutOfBandError())
	assert.NoError(t, r.Err())
	assert.True(t, EmptyResult().Empty())
}

// FromCStruct: adopting a C struct is native's job; the Go analogue is
// ResultBytes adopting a slice without copying.
func TestWrapperFunctionBuffer_WrapperFunctionBufferFromCStruct(t *testing.T) {
	b := []byte("adopted\x00")
	r := ResultBytes(b)
	assert.Equal(t, len("adopted")+1, r.Size())
	assert.Same(t, &b[0], &r.Bytes()[0], "ResultBytes adopts, it does not copy")
}

func TestWrapperFunctionBuffer_WrapperFunctionBufferFromRange(t *testing.T) {
	src := []byte("range")
	r := CopyResult(src)
	src[0] = 'X'
	assert.Equal(t, "range", string(r.Bytes()))
}

func TestWrapperFunctionBuffer_WrapperFunctionBufferFromEmptyRangeIsEmpty(t *testing.T) {
	assert.True(t, CopyResult([]byte{}).Empty())
	assert.True(t, ResultBytes(nil).Empty())
}

func TestWrapperFunctionBuffer_WrapperFunctionBufferFromCString(t *testing.T) {
	r := CStringResult("hello")
	assert.Equal(t, len("hello")+1, r.Size())
	assert.Equal(t, "hello\x00", string(r.Bytes()))
}

func TestWrapperFunctionBuffer_WrapperFunctionBufferFromOutOfBandError(t *testing.T) {
	r := OutOfBandResult("oops")
	assert.False(t, r.Empty(), "an out-of-band error is not empty")
	assert.Equal(t, 0, r.Size())
	msg, ok := r.OutOfBandError()
	assert.True(t, ok)
	assert.Equal(t, "oops", msg)
	var oob *OutOfBandError
	require.ErrorAs(t, r.Err(), &oob)
	assert.Equal(t, "oops", oob.Msg)
	// An empty message is still out-of-band.
	assert.True(t, OutOfBandResult("").IsOutOfBandError())
}

// ---- SPSWrapperFunctionBufferTest ----

var bufSig = sps.Func1[[]byte, []byte]{Arg1: sps.BytesView, Ret: sps.BytesView}

func roundTripBuffer(t *testing.T, in []byte) []byte {
	t.Helper()
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	defer s.Close()
	fn := Handle1(bufSig, func(_ *Session, b []byte) []byte { return b })
	out, err := Await(func(done func([]byte, error)) { Call1(DirectCaller(s, fn), bufSig, in, done) })
	require.NoError(t, err)
	return out
}

func TestSPSWrapperFunctionBuffer_EmptyBuffer(t *testing.T) {
	assert.Empty(t, roundTripBuffer(t, nil))
}

func TestSPSWrapperFunctionBuffer_SmallBuffer(t *testing.T) {
	assert.Equal(t, "foo", string(roundTripBuffer(t, []byte("foo"))))
}

func TestSPSWrapperFunctionBuffer_BigBuffer(t *testing.T) {
	big := strings.Repeat("0123456789a", 4) // 44 bytes: past any inline storage
	assert.Equal(t, big, string(roundTripBuffer(t, []byte(big))))
}

// ---- SPSWrapperFunctionTest ----

func newDirect(t *testing.T) *Session {
	s := NewSession(mockProcessInfo(), noDispatch(t), noErrors(t))
	t.Cleanup(s.Close)
	return s
}

func TestSPSWrapperFunction_VoidNoop(t *testing.T) {
	s := newDirect(t)
	ran := false
	fn := Handle0(voidSig, func(*Session) struct{} { ran = true; return struct{}{} })
	var r WrapperResult
	fn(s, nil, func(res WrapperResult) { r = res })
	assert.True(t, r.Empty(), "a void result is an empty buffer")
	_, err := Await(func(done func(struct{}, error)) { Call0(DirectCaller(s, fn), voidSig, done) })
	assert.NoError(t, err)
	assert.True(t, ran)
}

func TestSPSWrapperFunction_BinaryOpViaLambda(t *testing.T) {
	s := newDirect(t)
	fn := Handle2(addSig, func(_ *Session, a, b int32) int32 { return a + b })
	v, err := Await(func(done func(int32, error)) { Call2(DirectCaller(s, fn), addSig, 41, 1, done) })
	require.NoError(t, err)
	assert.EqualValues(t, 42, v)
}

func TestSPSWrapperFunction_BinaryOpViaFunction(t *testing.T) {
	s := newDirect(t)
	v, err := Await(func(done func(int32, error)) {
		Call2(DirectCaller(s, Handle2(addSig, addHandler)), addSig, 41, 1, done)
	})
	require.NoError(t, err)
	assert.EqualValues(t, 42, v)
}

type adder struct{ bias int32 }

func (a adder) add(_ *Session, x, y int32) int32 { return x + y + a.bias }

func TestSPSWrapperFunction_BinaryOpViaFunctionPointer(t *testing.T) {
	s := newDirect(t)
	var fp func(*Session, int32, int32) int32 = adder{}.add // a method value
	v, err := Await(func(done func(int32, error)) { Call2(DirectCaller(s, Handle2(addSig, fp)), addSig, 41, 1, done) })
	require.NoError(t, err)
	assert.EqualValues(t, 42, v)
}

// RoundTripStringViaSpan: the handler takes a view of the SPSString bytes
// (span<const char> upstream; sps.BytesView here).
func TestSPSWrapperFunction_RoundTripStringViaSpan(t *testing.T) {
	s := newDirect(t)
	spanSig := sps.Func1[[]byte, string]{Arg1: sps.BytesView, Ret: sps.String}
	fn := Handle1(spanSig, func(_ *Session, b []byte) string { return string(b) })
	out, err := Await(func(done func(string, error)) { Call1(DirectCaller(s, fn), spanSig, []byte("hello, world"), done) })
	require.NoError(t, err)
	assert.Equal(t, "hello, world", out)
}

func TestSPSWrapperFunction_TransparentConversionErrorSuccessCase(t *testing.T) {
	s := newDirect(t)
	fn := Handle1(errSig, func(_ *Session, fail bool) error {
		if fail {
			return errors.New("crushed by boulder")
		}
		return nil
	})
	inner, err := Await(func(done func(error, error)) { Call1(DirectCaller(s, fn), errSig, false, done) })
	require.NoError(t, err, "outer (transport) error")
	assert.NoError(t, inner)
}

func TestSPSWrapperFunction_TransparentConversionErrorFailureCase(t *testing.T) {
	s := newDirect(t)
	fn := Handle1(errSig, func(_ *Session, fail bool) error {
		if fail {
			return errors.New("crushed by boulder")
		}
		return nil
	})
	inner, err := Await(func(done func(error, error)) { Call1(DirectCaller(s, fn), errSig, true, done) })
	require.NoError(t, err)
	assert.EqualError(t, inner, "crushed by boulder")
	var remote *sps.RemoteError
	assert.ErrorAs(t, inner, &remote)
}

func halve(_ *Session, n int32) (int32, error) {
	if n%2 != 0 {
		return 0, errors.New("N is not a multiple of 2")
	}
	return n / 2, nil
}

func TestSPSWrapperFunction_TransparentConversionExpectedSuccessCase(t *testing.T) {
	s := newDirect(t)
	fn := HandleExpected1(expectSig, halve)
	inner, err := Await(func(done func(sps.Expected[int32], error)) { Call1(DirectCaller(s, fn), expectSig, 2, done) })
	require.NoError(t, err)
	require.NoError(t, inner.Err)
	assert.EqualValues(t, 1, inner.Value)
}

func TestSPSWrapperFunction_TransparentConversionExpectedFailureCase(t *testing.T) {
	s := newDirect(t)
	fn := HandleExpected1(expectSig, halve)
	inner, err := Await(func(done func(sps.Expected[int32], error)) { Call1(DirectCaller(s, fn), expectSig, 3, done) })
	require.NoError(t, err)
	assert.EqualError(t, inner.Err, "N is not a multiple of 2")
}

// HandlerWithReferences checks C++ reference/move mechanics that Go does
// not have. The Go property worth pinning is the ownership rule: decoded
// byte views alias the argument buffer, which the handler owns, so the
// handler may keep them without a copy.
func TestCallExpected_Flattens(t *testing.T) {
	s := newDirect(t)
	fn := HandleExpected1(expectSig, halve)
	v, err := Await(func(done func(int32, error)) { CallExpected1(DirectCaller(s, fn), expectSig, 8, done) })
	require.NoError(t, err)
	assert.EqualValues(t, 4, v)
	_, err = Await(func(done func(int32, error)) { CallExpected1(DirectCaller(s, fn), expectSig, 7, done) })
	var remote *sps.RemoteError
	require.ErrorAs(t, err, &remote, "the function's own error")
	assert.EqualError(t, err, "N is not a multiple of 2")
	dead := Caller(func(_ []byte, onResult func(WrapperResult)) { onResult(OutOfBandResult(MsgDisconnected)) })
	_, err = Await(func(done func(int32, error)) { CallExpected1(dead, expectSig, 2, done) })
	assert.ErrorIs(t, err, ErrDisconnected, "the transport failure")

	e0 := sps.Func0[sps.Expected[string]]{Ret: sps.ExpectedOf(sps.String)}
	h0 := HandleExpected0(e0, func(*Session) (string, error) { return "zero", nil })
	str, err := Await(func(done func(string, error)) { CallExpected0(DirectCaller(s, h0), e0, done) })
	require.NoError(t, err)
	assert.Equal(t, "zero", str)
	e2 := sps.Func2[int32, int32, sps.Expected[int32]]{Arg1: sps.I32, Arg2: sps.I32, Ret: sps.ExpectedOf(sps.I32)}
	h2 := HandleExpected2(e2, func(_ *Session, a, b int32) (int32, error) { return a - b, nil })
	n, err := Await(func(done func(int32, error)) { CallExpected2(DirectCaller(s, h2), e2, 5, 3, done) })
	require.NoError(t, err)
	assert.EqualValues(t, 2, n)
	e3 := sps.Func3[int32, int32, int32, sps.Expected[int32]]{Arg1: sps.I32, Arg2: sps.I32, Arg3: sps.I32, Ret: sps.ExpectedOf(sps.I32)}
	h3 := HandleExpected3(e3, func(_ *Session, a, b, c int32) (int32, error) { return 0, errors.New("no") })
	_, err = Await(func(done func(int32, error)) { CallExpected3(DirectCaller(s, h3), e3, 1, 2, 3, done) })
	assert.EqualError(t, err, "no")
}

func TestSPSWrapperFunction_HandlerWithReferences(t *testing.T) {
	s := newDirect(t)
	args := bufSig.AppendArgs(nil, []byte("kept"))
	var kept []byte
	fn := Handle1(bufSig, func(_ *Session, b []byte) []byte { kept = b; return nil })
	fn(s, args, func(WrapperResult) {})
	require.Equal(t, "kept", string(kept))
	assert.Equal(t, unsafe.Pointer(&args[8]), unsafe.Pointer(&kept[0]), "zero-copy view into args")
}

type counterObj struct{ n int64 }

var (
	incSig   = sps.Func2[sps.Addr, int64, int64]{Arg1: sps.AddrCodec, Arg2: sps.I64, Ret: sps.I64}
	getSig   = sps.Func1[sps.Addr, int64]{Arg1: sps.AddrCodec, Ret: sps.I64}
	checkSig = sps.Func2[sps.Addr, int64, sps.Expected[int64]]{Arg1: sps.AddrCodec, Arg2: sps.I64, Ret: sps.ExpectedOf(sps.I64)}
	pairSig  = sps.Func3[sps.Addr, int64, int64, int64]{Arg1: sps.AddrCodec, Arg2: sps.I64, Arg3: sps.I64, Ret: sps.I64}
)

// HandleWtihAsyncMethod (sic): the object address passed first selects
// the instance.
func TestSPSWrapperFunction_HandleWtihAsyncMethod(t *testing.T) {
	s := newDirect(t)
	a, b := &counterObj{n: 10}, &counterObj{n: 100}
	addrA, addrB := s.RegisterInstance(a), s.RegisterInstance(b)
	fn := HandleMethodAsync1(incSig, func(_ *Session, c *counterObj, d int64, ret func(int64)) {
		c.n += d
		go ret(c.n) // answered later, from another goroutine
	})
	caller := DirectCaller(s, fn)
	v, err := Await(func(done func(int64, error)) { Call2(caller, incSig, addrB, 5, done) })
	require.NoError(t, err)
	assert.EqualValues(t, 105, v)
	assert.EqualValues(t, 10, a.n)
	_ = addrA
}

func TestSPSWrapperFunction_HandleWithSyncMethod(t *testing.T) {
	s := newDirect(t)
	c := &counterObj{n: 7}
	addr := s.RegisterInstance(c)
	get := HandleMethod0(getSig, func(_ *Session, c *counterObj) int64 { return c.n })
	v, err := Await(func(done func(int64, error)) { Call1(DirectCaller(s, get), getSig, addr, done) })
	require.NoError(t, err)
	assert.EqualValues(t, 7, v)

	check := HandleMethodExpected1(checkSig, func(_ *Session, c *counterObj, lim int64) (int64, error) {
		if c.n > lim {
			return 0, fmt.Errorf("over %d", lim)
		}
		return c.n, nil
	})
	e, err := Await(func(done func(sps.Expected[int64], error)) { Call2(DirectCaller(s, check), checkSig, addr, 3, done) })
	require.NoError(t, err)
	assert.EqualError(t, e.Err, "over 3")

	sum := HandleMethod2(pairSig, func(_ *Session, c *counterObj, x, y int64) int64 { return c.n + x + y })
	v, err = Await(func(done func(int64, error)) { Call3(DirectCaller(s, sum), pairSig, addr, 1, 2, done) })
	require.NoError(t, err)
	assert.EqualValues(t, 10, v)
}

// ---- error strings and hostile input ----

func TestTypedHandler_UndecodableArgs(t *testing.T) {
	s := newDirect(t)
	fns := map[string]WrapperFunc{
		"Handle2":            Handle2(addSig, addHandler),
		"HandleExpected1":    HandleExpected1(expectSig, halve),
		"HandleAsync1":       HandleAsync1(echoSig, func(_ *Session, v string, ret func(string)) { ret(v) }),
		"HandleMethod0":      HandleMethod0(getSig, func(*Session, *counterObj) int64 { return 0 }),
		"HandleMethodAsync2": HandleMethodAsync2(pairSig, func(_ *Session, _ *counterObj, _, _ int64, ret func(int64)) { ret(0) }),
	}
	for name, fn := range fns {
		for _, args := range [][]byte{nil, {1, 2, 3}} {
			var r WrapperResult
			fn(s, args, func(res WrapperResult) { r = res })
			assert.Equal(t, msgDeserializeArgs, oobMsg(r), "%s(%x)", name, args)
		}
	}
	// A length prefix larger than the input is refused before allocating.
	var r0 WrapperResult
	fns["HandleAsync1"](s, sps.AppendU64(nil, 1<<62), func(res WrapperResult) { r0 = res })
	assert.Equal(t, msgDeserializeArgs, oobMsg(r0))
	// Trailing bytes are ignored, as LLVM ignores them.
	var r WrapperResult
	Handle2(addSig, addHandler)(s, append(addSig.AppendArgs(nil, 1, 2), 9, 9), func(res WrapperResult) { r = res })
	v, err := addSig.DecodeResult(r.Bytes())
	require.NoError(t, err)
	assert.EqualValues(t, 3, v)
}

// panicCodec panics when encoding, standing in for a codec that cannot
// serialise a value.
type panicCodec struct{ sps.Codec[string] }

func (panicCodec) Append([]byte, string) []byte { panic("cannot encode") }
func (panicCodec) Size(string) int              { return 8 }

func TestTypedHandler_UnserializableResult(t *testing.T) {
	var log errorLog
	s := NewSession(mockProcessInfo(), noDispatch(t), log.report)
	defer s.Close()
	sig := sps.Func0[string]{Ret: panicCodec{sps.String}}
	var r WrapperResult
	Handle0(sig, func(*Session) string { return "x" })(s, nil, func(res WrapperResult) { r = res })
	assert.Equal(t, MsgSerializeResult, oobMsg(r))
	require.Len(t, log.get(), 1)
	assert.Contains(t, log.get()[0], "cannot encode")
}

func TestTypedCaller_UnserializableArgs(t *testing.T) {
	s := newDirect(t)
	sig := sps.Func1[string, string]{Arg1: panicCodec{sps.String}, Ret: sps.String}
	called := false
	_, err := Await(func(done func(string, error)) {
		Call1(func([]byte, func(WrapperResult)) { called = true }, sig, "x", done)
	})
	assert.EqualError(t, err, MsgSerializeArgs)
	var se *SerializeArgsError
	assert.ErrorAs(t, err, &se)
	assert.False(t, called, "nothing is sent")
	_ = s
}

func TestTypedCaller_UndecodableResult(t *testing.T) {
	c := Caller(func(_ []byte, onResult func(WrapperResult)) { onResult(ResultBytes([]byte{1, 2})) })
	_, err := Await(func(done func(int32, error)) { Call2(c, addSig, 1, 2, done) })
	assert.EqualError(t, err, MsgDeserializeResult)
	var de *DecodeResultError
	require.ErrorAs(t, err, &de)
	var spsErr *sps.DecodeError
	assert.ErrorAs(t, err, &spsErr, "the codec's error is wrapped")
}

func TestTypedCaller_OutOfBandResult(t *testing.T) {
	c := Caller(func(_ []byte, onResult func(WrapperResult)) { onResult(OutOfBandResult("simulated failure")) })
	_, err := Await(func(done func(string, error)) { Call1(c, echoSig, "x", done) })
	assert.EqualError(t, err, "simulated failure")
	var oob *OutOfBandError
	assert.ErrorAs(t, err, &oob)
	assert.NotErrorIs(t, err, ErrDisconnected)
}

func TestMethodHandler_UnknownInstance(t *testing.T) {
	s := newDirect(t)
	get := HandleMethod0(getSig, func(_ *Session, c *counterObj) int64 { return c.n })
	_, err := Await(func(done func(int64, error)) { Call1(DirectCaller(s, get), getSig, 0xdeadbeef, done) })
	assert.EqualError(t, err, "rt: no instance registered at 0xdeadbeef")

	// An instance of the wrong type is refused by type, not cast.
	other := s.RegisterInstance("a string")
	_, err = Await(func(done func(int64, error)) { Call1(DirectCaller(s, get), getSig, other, done) })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is a string, not a *rt.counterObj")

	// Unregistered addresses stop resolving.
	c := &counterObj{}
	addr := s.RegisterInstance(c)
	s.UnregisterInstance(addr)
	_, err = InstanceAt[*counterObj](s, addr)
	assert.Error(t, err)
}

func TestInstanceAt_InterfaceType(t *testing.T) {
	s := newDirect(t)
	addr := s.RegisterInstance(&counterObj{})
	_, err := InstanceAt[fmt.Stringer](s, addr)
	assert.ErrorContains(t, err, "not a fmt.Stringer")
	self, err := InstanceAt[*Session](s, s.InstanceAddr())
	require.NoError(t, err)
	assert.Same(t, s, self)
}

func TestWrapperReturnTwicePanics(t *testing.T) {
	s := newDirect(t)
	fn := func(_ *Session, _ []byte, ret ReturnFunc) {
		ret(EmptyResult())
		ret(EmptyResult())
	}
	assert.PanicsWithValue(t, "rt: wrapper function returned its result twice", func() {
		DirectCaller(s, fn)(nil, func(WrapperResult) {})
	})
}

func TestRegisterWrapper_UniqueNonZeroAddresses(t *testing.T) {
	s := newDirect(t)
	seen := map[sps.Addr]bool{}
	nop := func(*Session, []byte, ReturnFunc) {}
	for range 1000 {
		a := s.RegisterWrapper(nop)
		require.NotZero(t, a)
		require.False(t, seen[a], "duplicate address %#x", a)
		seen[a] = true
		b := s.RegisterInstance(struct{}{})
		require.NotZero(t, b)
		require.False(t, seen[b])
		seen[b] = true
	}
	assert.Panics(t, func() { s.RegisterWrapper(nil) })
}

func TestUnknownTargetHandler(t *testing.T) {
	q := NewQueueingRunner()
	s := NewSession(mockProcessInfo(), q, noErrors(t))
	ca := attachMock(t, s)
	ca.callWrapper(0x1234, nil, 1)
	q.RunFIFOUntilEmpty()
	r, ok := ca.result(1)
	require.True(t, ok)
	assert.Equal(t, "rt: no wrapper function registered at 0x1234", oobMsg(r))

	var gotTarget sps.Addr
	s.SetUnknownTargetHandler(func(_ *Session, target sps.Addr, args []byte, ret ReturnFunc) {
		gotTarget = target
		ret(CopyResult(args))
	})
	ca.callWrapper(0x5678, []byte("native"), 2)
	q.RunFIFOUntilEmpty()
	r, _ = ca.result(2)
	assert.EqualValues(t, 0x5678, gotTarget)
	assert.Equal(t, "native", string(r.Bytes()))

	s.SetUnknownTargetHandler(nil)
	ca.callWrapper(0x9, nil, 3)
	q.RunFIFOUntilEmpty()
	r, _ = ca.result(3)
	assert.True(t, strings.HasPrefix(oobMsg(r), "rt: no wrapper function registered"))
	s.Shutdown(nil)
	q.RunFIFOUntilEmpty()
	waitDone(t, s)
}

func TestOutOfBandError_Is(t *testing.T) {
	assert.ErrorIs(t, &OutOfBandError{Msg: "disconnected"}, ErrDisconnected)
	assert.ErrorIs(t, &OutOfBandError{Msg: "no controller attached"}, ErrNoController)
	assert.NotErrorIs(t, &OutOfBandError{Msg: "other"}, ErrDisconnected)
	assert.NotErrorIs(t, &OutOfBandError{Msg: "disconnected"}, ErrNoController)
	assert.Equal(t, "disconnected", (&OutOfBandError{Msg: "disconnected"}).Error())
}

func TestPanicError(t *testing.T) {
	base := errors.New("base")
	assert.ErrorIs(t, panicError("x", base), base)
	assert.EqualError(t, panicError("x", 3), "rt: x panicked: 3")
}

func TestTypedAsyncHandlers(t *testing.T) {
	s := newDirect(t)
	echo := HandleAsync1(echoSig, func(_ *Session, v string, ret func(string)) { ret(strings.ToUpper(v)) })
	v, err := Await(func(done func(string, error)) { Call1(DirectCaller(s, echo), echoSig, "abc", done) })
	require.NoError(t, err)
	assert.Equal(t, "ABC", v)

	void := HandleAsync0(voidSig, func(_ *Session, ret func(struct{})) { ret(struct{}{}) })
	_, err = Await(func(done func(struct{}, error)) { Call0(DirectCaller(s, void), voidSig, done) })
	assert.NoError(t, err)

	sum3 := sps.Func3[int32, int32, int32, int32]{Arg1: sps.I32, Arg2: sps.I32, Arg3: sps.I32, Ret: sps.I32}
	h3 := HandleAsync3(sum3, func(_ *Session, a, b, c int32, ret func(int32)) { ret(a + b + c) })
	n, err := Await(func(done func(int32, error)) { Call3(DirectCaller(s, h3), sum3, 1, 2, 3, done) })
	require.NoError(t, err)
	assert.EqualValues(t, 6, n)
	h3s := Handle3(sum3, func(_ *Session, a, b, c int32) int32 { return a * b * c })
	n, err = Await(func(done func(int32, error)) { Call3(DirectCaller(s, h3s), sum3, 2, 3, 4, done) })
	require.NoError(t, err)
	assert.EqualValues(t, 24, n)

	e0 := sps.Func0[sps.Expected[string]]{Ret: sps.ExpectedOf(sps.String)}
	he0 := HandleExpected0(e0, func(*Session) (string, error) { return "ok", nil })
	ev, err := Await(func(done func(sps.Expected[string], error)) { Call0(DirectCaller(s, he0), e0, done) })
	require.NoError(t, err)
	assert.Equal(t, "ok", ev.Value)
}
