//go:build cgo && amd64

package executor_test

import (
	"context"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/call"
	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

// A stand-in for LLVM's ORC runtime as llvm-jitlink -orc-runtime drives
// it (captures in executor/internal/lookup/route.go): the controller calls a JIT'd
// wrapper with (JITDylib, entry point, argv), and the wrapper asks the
// controller for the entry point through a jit-dispatch tag with
// (header, name). Assembled with llvm-mc 22.

// codeDispatchFixed is CWrapperFunctionBuffer fixed(a, n), ignoring its
// arguments: with block = {dispatch_fn, ctx, tag, size, payload...} it
// tail-calls dispatch_fn(ctx, tag, block+32, size).
func codeDispatchFixed(block sps.Addr) []byte {
	c := binary.LittleEndian.AppendUint64([]byte{0x48, 0xb8}, uint64(block)) // movabs rax, block
	return append(c,
		0x4c, 0x8b, 0x00, // mov r8, qword ptr [rax]
		0x48, 0x8b, 0x78, 0x08, // mov rdi, qword ptr [rax + 0x8]
		0x48, 0x8b, 0x70, 0x10, // mov rsi, qword ptr [rax + 0x10]
		0x48, 0x8b, 0x48, 0x18, // mov rcx, qword ptr [rax + 0x18]
		0x48, 0x8d, 0x50, 0x20, // lea rdx, [rax + 0x20]
		0x41, 0xff, 0xe0, // jmp r8
	)
}

// codeFilter is int64_t filter(int64_t x) { return 3 * x + 1; }.
var codeFilter = []byte{
	0x48, 0x8d, 0x44, 0x7f, 0x01, // lea rax, [rdi + 2*rdi + 1]
	0xc3, // ret
}

// fakeRuntime is one in-process executor and a Go controller with the
// stand-in runtime loaded.
type fakeRuntime struct {
	ex      *executor.Executor
	ctl     *wiretest.Controller
	served  chan error
	run     sps.Addr // the run-program wrapper
	filter  sps.Addr // filter's code
	header  sps.Addr // the JITDylib's header (data)
	tagByte sps.Addr // a byte of JIT'd data, the lookup's tag
}

// startFakeRuntime loads the stand-in: a data page (the dispatch block,
// a header and a tag byte) and a code page (the run wrapper and filter).
// tag is the lookup's tag; 0 uses the tag byte in JIT'd data.
func startFakeRuntime(t *testing.T, tag sps.Addr, entry string) *fakeRuntime {
	t.Helper()
	execEnd, ctlEnd, err := wiretest.Connect(wiretest.Pipe)
	require.NoError(t, err)
	ex, err := executor.New(executor.Options{LearnLookupRoute: true})
	require.NoError(t, err)
	f := &fakeRuntime{ex: ex, served: make(chan error, 1)}
	go func() { f.served <- ex.Serve(context.Background(), execEnd) }()
	f.ctl, err = wiretest.New(ctlEnd, nil)
	require.NoError(t, err)
	t.Cleanup(func() { f.end(t) })

	c := ctx(t)
	mm := f.ctl.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance")
	ps := f.ctl.Setup().PageSize
	r, err := wiretest.Call2(c, f.ctl, f.ctl.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"), sps.MemoryManagerReserve, mm, 2*ps)
	require.NoError(t, err)
	require.NoError(t, r.Err)
	data, code := r.Value, r.Value+sps.Addr(ps)
	f.header, f.tagByte = data+0x400, data+0x800
	f.run, f.filter = code, code+64
	if tag == 0 {
		tag = f.tagByte
	}
	payload := sps.AppendString(sps.AppendAddr(nil, f.header), entry)
	var block []byte
	for _, v := range []uint64{uint64(f.ctl.MustSymbol("__llvm_orc_SimpleRemoteEPC_dispatch_fn")),
		uint64(f.ctl.MustSymbol("__llvm_orc_SimpleRemoteEPC_dispatch_ctx")), uint64(tag), uint64(len(payload))} {
		block = binary.LittleEndian.AppendUint64(block, v)
	}
	block = append(block, payload...)
	text := make([]byte, 128)
	copy(text, codeDispatchFixed(data))
	copy(text[64:], codeFilter)
	k, err := wiretest.Call2(c, f.ctl, f.ctl.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_initialize_wrapper"), sps.MemoryManagerInitialize, mm,
		sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{
			{Group: sps.Read | sps.Write, Addr: data, Size: ps, Content: block},
			{Group: sps.Read | sps.Exec, Addr: code, Size: ps, Content: text},
		}})
	require.NoError(t, err)
	require.NoError(t, k.Err)
	return f
}

// startProgram calls the run wrapper as llvm-jitlink starts main:
// ("main", entry, []).
func (f *fakeRuntime) startProgram(t *testing.T, entry string) []byte {
	t.Helper()
	args := sps.AppendCount(sps.AppendString(sps.AppendString(nil, "main"), entry), 0)
	got, err := f.ctl.Call(ctx(t), f.run, args)
	require.NoError(t, err)
	return got
}

func (f *fakeRuntime) end(t *testing.T) error {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	_ = f.ctl.Finish(c)
	select {
	case err := <-f.served:
		f.served <- err
		return err
	case <-c.Done():
		t.Fatal("Serve did not return after the controller closed")
		return nil
	}
}

func expectedAddr(a sps.Addr) []byte { return sps.AppendAddr([]byte{1}, a) }

func expectedErr(msg string) []byte { return sps.AppendString([]byte{0}, msg) }

// lookupReq decodes the controller side of a lookup: (header, name).
func lookupReq(t *testing.T, args []byte) (sps.Addr, string) {
	d := sps.NewDecoder(args)
	h, name := d.Addr(), d.String()
	require.NoError(t, d.Err())
	require.Zero(t, d.Remaining())
	return h, name
}

// TestLookupThroughController: a Lookup waiting before the program
// starts asks the controller once the runtime has been seen to look the
// entry point up, gets filter's address and calls it; the controller's
// error answers, malformed answers and silence end in errors that say
// so, bounded by ctx; an export still works beside it.
func TestLookupThroughController(t *testing.T) {
	const entry = "entry_x"
	f := startFakeRuntime(t, 0, entry)
	late := make(chan *wiretest.Incoming, 1)
	asked := make(chan string, 16)
	f.ctl.Handle(f.tagByte, func(in *wiretest.Incoming) {
		h, name := lookupReq(t, in.Args)
		assert.Equal(t, f.header, h, "the lookup names the JITDylib's header")
		asked <- name
		switch name {
		case entry, "filter":
			_ = in.Reply(expectedAddr(f.filter))
		case "nosuch":
			_ = in.Reply(expectedErr("Symbols not found: [ nosuch ]"))
		case "garbage":
			_ = in.Reply([]byte{2, 3})
		case "data":
			_ = in.Reply(expectedAddr(f.header))
		case "unhandled":
			_ = in.Reply(nil)
		case "silent":
			late <- in // answered after the Lookup has given up
		}
	})

	c := ctx(t)
	type res struct {
		f   call.Func
		err error
	}
	early := make(chan res, 1)
	go func() {
		fn, err := f.ex.Lookup(c, "filter")
		early <- res{fn, err}
	}()
	select {
	case r := <-early:
		t.Fatalf("Lookup returned before the route was known: %v", r.err)
	case <-time.After(50 * time.Millisecond):
	}

	got := f.startProgram(t, entry)
	assert.Equal(t, expectedAddr(f.filter), got, "the runtime got the entry point's address")
	assert.Equal(t, entry, <-asked)
	r := <-early
	require.NoError(t, r.err)
	assert.Equal(t, "filter", <-asked)
	assert.Equal(t, uintptr(f.filter), r.f.Addr())
	v, err := call.Typed1[int64, int64](r.f).Call(20)
	require.NoError(t, err)
	assert.Equal(t, int64(61), v)

	short := func(names ...string) error {
		c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := f.ex.LookupAll(c, names...)
		require.Error(t, err)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
		assert.NotErrorIs(t, err, executor.ErrNoLookupRoute)
		return err
	}
	err = short("nosuch", "garbage", "unhandled")
	assert.EqualError(t, err, `executor: lookup of "nosuch", "garbage", "unhandled": not exported with orcrt_export; `+
		`"nosuch": the controller answered: Symbols not found: [ nosuch ]; `+
		`"garbage": the controller's answer 0203 is not an Expected<ExecutorAddr>; `+
		`"unhandled": the controller's answer is empty (it has no handler for the tag): context deadline exceeded`)
	err = short("data")
	assert.ErrorContains(t, err, `"data": the controller answered 0x`)
	assert.ErrorContains(t, err, "not executable")

	start := time.Now()
	err = short("silent")
	assert.Less(t, time.Since(start), 5*time.Second, "bounded by ctx")
	assert.ErrorContains(t, err, `"silent": not exported with orcrt_export; the controller has not answered: context deadline exceeded`)
	require.NoError(t, (<-late).Reply(expectedAddr(f.filter)), "an answer nobody waits for any more")

	fs, err := f.ex.LookupAll(c, "filter", entry)
	require.NoError(t, err)
	assert.Equal(t, uintptr(f.filter), fs[1].Addr())
}

// TestLookupControllerGone: a Lookup waiting for the controller's answer
// ends with ErrShutDown when the controller goes away.
func TestLookupControllerGone(t *testing.T) {
	f := startFakeRuntime(t, 0, "main")
	waiting := make(chan *wiretest.Incoming, 1)
	f.ctl.Handle(f.tagByte, func(in *wiretest.Incoming) {
		if _, name := lookupReq(t, in.Args); name == "main" {
			_ = in.Reply(expectedAddr(f.filter))
			return
		}
		waiting <- in
	})
	f.startProgram(t, "main")
	errc := make(chan error, 1)
	go func() {
		_, err := f.ex.Lookup(ctx(t), "filter")
		errc <- err
	}()
	in := <-waiting
	require.NoError(t, f.end(t))
	select {
	case err := <-errc:
		assert.ErrorIs(t, err, call.ErrShutDown)
	case <-time.After(callTimeout):
		t.Fatal("Lookup still waits after the controller went away")
	}
	assert.Error(t, in.Reply(expectedAddr(f.filter)), "the connection is gone")
}

// TestLookupRouteRefused: what the route is learnt from is checked, and
// a Lookup that cannot ask says why.
func TestLookupRouteRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tag    sps.Addr // 0: the tag byte in JIT'd data
		answer func(f *fakeRuntime) []byte
		dispatchedAs,
		want string
	}{
		{name: "result-not-code", answer: func(*fakeRuntime) []byte { return expectedAddr(0x1000) },
			want: `the ORC runtime looked "main" up in JITDylib "main" through tag 0x`},
		{name: "result-not-code-why", answer: func(*fakeRuntime) []byte { return expectedAddr(0x1000) },
			want: `, but its result 0x1000 is not callable: executor: Func: codemap: 0x1000 is not executable code`},
		{name: "result-error", answer: func(*fakeRuntime) []byte { return expectedErr("no main") },
			want: `but the controller answered the error "no main"`},
		{name: "tag-not-jit", tag: 0x5a5a2000, answer: func(f *fakeRuntime) []byte { return expectedAddr(f.filter) },
			want: "through tag 0x5a5a2000, but the tag is not in JIT'd memory"},
		{name: "not-the-entry", dispatchedAs: "other", answer: func(f *fakeRuntime) []byte { return expectedAddr(f.filter) },
			want: "the ORC runtime has not looked a symbol up through the controller in this session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := tc.dispatchedAs
			if name == "" {
				name = "main"
			}
			f := startFakeRuntime(t, tc.tag, name)
			tag := tc.tag
			if tag == 0 {
				tag = f.tagByte
			}
			f.ctl.HandleFunc(tag, func([]byte) []byte { return tc.answer(f) })
			f.startProgram(t, "main")
			c, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
			defer cancel()
			_, err := f.ex.Lookup(c, "filter")
			require.Error(t, err)
			assert.True(t, errors.Is(err, executor.ErrNoLookupRoute) && errors.Is(err, context.DeadlineExceeded), "%v", err)
			assert.ErrorContains(t, err, `executor: lookup of "filter": not exported with orcrt_export; the controller could not be asked: `)
			assert.ErrorContains(t, err, tc.want)
		})
	}
}
