//go:build cgo && linux

package executor_test

// Replayed LLVM 23 controllers. No LLVM 23 binary can be installed here,
// so these tests send what LLVM 23's controller sends, written from its
// sources (SPS declarations and call sites; the llvm-project PRs are cited
// where each came in) on top of the wire of llvm-jitlink 22, whose
// captured sessions they follow call for call. Every answer is decoded as
// the C++ controller decodes it and checked.

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/cbuild"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/sps"
)

// llvm23Lookups are the bootstrap names LLVM 23's controller looks up
// before its first call; a missing one fails the session ("Symbols not
// found").
var llvm23Lookups = []string{
	// SimpleRemoteEPC::setup (SimpleRemoteEPC.cpp, after #192665): the
	// dispatch pair and the three run wrappers, unchanged from 22.
	"__llvm_orc_SimpleRemoteEPC_dispatch_ctx",
	"__llvm_orc_SimpleRemoteEPC_dispatch_fn",
	"__llvm_orc_bootstrap_run_as_main_wrapper",
	"__llvm_orc_bootstrap_run_as_void_function_wrapper",
	"__llvm_orc_bootstrap_run_as_int_function_wrapper",
	// createDefaultMemoryManager: EPCGenericJITLinkMemoryManager::Create(ES)
	// looks up all five orc_rt_SimpleNativeMemoryMapSPSSymbols
	// (OrcRTBridge.cpp) in <bootstrap> (#188172, #188391, #192665; these
	// spellings since #195614).
	"orc_rt_ci_SimpleNativeMemoryMap_Instance",
	"orc_rt_ci_sps_SimpleNativeMemoryMap_reserve",
	"orc_rt_ci_sps_SimpleNativeMemoryMap_initialize",
	"orc_rt_ci_sps_SimpleNativeMemoryMap_deinitializeMultiple",
	"orc_rt_ci_sps_SimpleNativeMemoryMap_releaseMultiple",
	// createDefaultDylibMgr: EPCGenericDylibManager::
	// CreateWithDefaultBootstrapSymbols, names unchanged.
	"__llvm_orc_SimpleExecutorDylibManager_Instance",
	"__llvm_orc_SimpleExecutorDylibManager_open_wrapper",
	"__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper",
}

// llvm23MemoryAccess are the names createDefaultMemoryAccess looks up when
// first asked for (llvm-jitlink's lazy linking): still the legacy
// rt::Memory*WrapperName ones (#188439, #188711, #191715).
var llvm23MemoryAccess = []string{
	"__llvm_orc_bootstrap_mem_write_pointers_wrapper",
	"__llvm_orc_bootstrap_mem_read_uint64s_wrapper",
}

// ctl23 is LLVM 23's controller over a wiretest connection.
type ctl23 struct {
	*wiretest.Controller
	t        testing.TB
	ctx      context.Context
	mm, dm   sps.Addr // the memory map's and the dylib manager's Instance
	pageSize uint64
}

// newCtl23 checks Setup as LLVM 23's controller does: every name of
// llvm23Lookups must be there.
func newCtl23(t testing.TB, c *wiretest.Controller) *ctl23 {
	t.Helper()
	var missing []string
	for _, n := range llvm23Lookups {
		if _, ok := c.Symbol(n); !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("Symbols not found: [ %s ]", strings.Join(missing, ", "))
	}
	return &ctl23{Controller: c, t: t, ctx: ctx(t),
		mm:       c.MustSymbol("orc_rt_ci_SimpleNativeMemoryMap_Instance"),
		dm:       c.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_Instance"),
		pageSize: c.Setup().PageSize}
}

func must23[T any](t testing.TB, what string, v sps.Expected[T], err error) T {
	t.Helper()
	require.NoError(t, err, what)
	require.NoError(t, v.Err, what)
	return v.Value
}

// open is EPCGenericDylibManager::open: SPSExpected<SPSExecutorAddr>(
// SPSExecutorAddr Instance, SPSString Path, uint64_t Mode), Mode 0.
func (c *ctl23) open(path string) sps.Addr {
	c.t.Helper()
	v, err := wiretest.Call3(c.ctx, c.Controller, c.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_open_wrapper"), sps.DylibManagerOpen, c.dm, path, 0)
	return must23(c.t, "open "+path, v, err)
}

// resolve is LLVM 23's EPCGenericDylibManager::lookupAsync: resolve
// called with (SAs.Instance, H, Lookup) (#201211), answered with
// std::vector<std::optional<ExecutorAddr>> (#201492).
func (c *ctl23) resolve(h sps.Addr, set ...sps.LookupElement) []sps.Option[sps.Addr] {
	c.t.Helper()
	v, err := wiretest.Call3(c.ctx, c.Controller, c.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper"), sps.DylibManagerResolveAddrs, c.dm, h, set)
	got := must23(c.t, "resolve", v, err)
	require.Len(c.t, got, len(set), "one answer a symbol")
	return got
}

// resolveAddr resolves one required name, which must be found.
func (c *ctl23) resolveAddr(h sps.Addr, name string) sps.Addr {
	c.t.Helper()
	r := c.resolve(h, sps.LookupElement{Name: []byte(name), Required: true})
	require.True(c.t, r[0].OK, "%s not found", name)
	require.NotZero(c.t, r[0].Value, name)
	return r[0].Value
}

// reserve, initialize and release are EPCGenericJITLinkMemoryManager's
// calls through the SimpleNativeMemoryMap names, signatures from
// OrcRTBridge.h (unchanged from 22's).
func (c *ctl23) reserve(size uint64) sps.Addr {
	c.t.Helper()
	v, err := wiretest.Call2(c.ctx, c.Controller, c.MustSymbol("orc_rt_ci_sps_SimpleNativeMemoryMap_reserve"), sps.MemoryManagerReserve, c.mm, size)
	return must23(c.t, "reserve", v, err)
}

func (c *ctl23) initialize(fr sps.FinalizeRequest) sps.Addr {
	c.t.Helper()
	v, err := wiretest.Call2(c.ctx, c.Controller, c.MustSymbol("orc_rt_ci_sps_SimpleNativeMemoryMap_initialize"), sps.MemoryManagerInitialize, c.mm, fr)
	return must23(c.t, "initialize", v, err)
}

func (c *ctl23) release(bases ...sps.Addr) {
	c.t.Helper()
	err, cerr := wiretest.Call2(c.ctx, c.Controller, c.MustSymbol("orc_rt_ci_sps_SimpleNativeMemoryMap_releaseMultiple"), sps.MemoryManagerRelease, c.mm, bases)
	require.NoError(c.t, cerr)
	require.NoError(c.t, err, "release")
}

// runAsMain is SimpleRemoteEPC::runAsMain: int64_t(SPSExecutorAddr,
// SPSSequence<SPSString>), unchanged from 22.
func (c *ctl23) runAsMain(fn sps.Addr, args ...string) int64 {
	c.t.Helper()
	r, err := wiretest.Call2(c.ctx, c.Controller, c.MustSymbol("__llvm_orc_bootstrap_run_as_main_wrapper"), sps.RunAsMain, fn, args)
	require.NoError(c.t, err)
	return r
}

// runAsVoid is SimpleRemoteEPC::runAsVoidFunction: int32_t(SPSExecutorAddr).
func (c *ctl23) runAsVoid(fn sps.Addr) int32 {
	c.t.Helper()
	r, err := wiretest.Call1(c.ctx, c.Controller, c.MustSymbol("__llvm_orc_bootstrap_run_as_void_function_wrapper"), sps.RunAsVoidFunction, fn)
	require.NoError(c.t, err)
	return r
}

// graph is one link graph as JITLink lays it out for the generic memory
// manager: a data segment (with an empty .eh_frame: its terminator) and an
// executable one, in one reservation, with the EH-frame actions
// llvm-jitlink attaches on Linux (finalize register, dealloc deregister).
type graph struct {
	base, code sps.Addr
}

// link reserves and initializes a graph holding data (after the .eh_frame
// terminator, in a segment of group prot) and code (executable), which may
// refer to data's address through fix(code, dataAddr).
func (c *ctl23) link(prot sps.AllocGroup, data []byte, code []byte, fix func(code []byte, data sps.Addr)) graph {
	c.t.Helper()
	base := c.reserve(2 * c.pageSize)
	ro := append(make([]byte, 4), data...) // .eh_frame: the terminator alone
	code = slices.Clone(code)
	if fix != nil {
		fix(code, base+4)
	}
	eh := sps.AddrRange{Start: base, End: base + 4}
	ehArgs := sps.RegisterEHFrameAction.AppendArgs(nil, eh)
	key := c.initialize(sps.FinalizeRequest{
		Segments: []sps.SegFinalizeRequest{
			{Group: prot, Addr: base, Size: c.pageSize, Content: ro},
			{Group: sps.Read | sps.Exec, Addr: base + sps.Addr(c.pageSize), Size: c.pageSize, Content: code},
		},
		Actions: []sps.ActionPair{{
			Finalize: sps.WrapperCall{Fn: c.MustSymbol("llvm_orc_registerEHFrameAllocAction"), Args: ehArgs},
			Dealloc:  sps.WrapperCall{Fn: c.MustSymbol("llvm_orc_deregisterEHFrameAllocAction"), Args: ehArgs},
		}},
	})
	require.Equal(c.t, base, key, "initialize answers the lowest segment's address")
	return graph{base: base, code: base + sps.Addr(c.pageSize)}
}

// Hand-assembled x86-64 code (from the assembly in the comments).
var (
	// callPutsArgv0: int main(int argc, char **argv) { puts(argv[0]);
	// return 7; } with puts through the 8-byte slot at offset 24.
	callPutsArgv0 = []byte{
		0x53,             // 0: push rbx (aligns the stack)
		0x48, 0x8b, 0x3e, // 1: mov rdi, [rsi]
		0xff, 0x15, 0x0e, 0, 0, 0, // 4: call [rip+14] (the slot at 24)
		0xb8, 0x07, 0, 0, 0, // 10: mov eax, 7
		0x5b,                                     // 15: pop rbx
		0xc3,                                     // 16: ret
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, // 17: padding
		0, 0, 0, 0, 0, 0, 0, 0, // 24: the slot
	}
	// callPutsData: int f(void) { puts(DATA); return 0; }, DATA's address
	// in the slot at 24 and puts's in the slot at 32.
	callPutsData = []byte{
		0x53,                            // 0: push rbx
		0x48, 0x8b, 0x3d, 0x10, 0, 0, 0, // 1: mov rdi, [rip+16] (the slot at 24)
		0xff, 0x15, 0x12, 0, 0, 0, // 8: call [rip+18] (the slot at 32)
		0x31, 0xc0, // 14: xor eax, eax
		0x5b,                               // 16: pop rbx
		0xc3,                               // 17: ret
		0xcc, 0xcc, 0xcc, 0xcc, 0xcc, 0xcc, // 18: padding
		0, 0, 0, 0, 0, 0, 0, 0, // 24: DATA
		0, 0, 0, 0, 0, 0, 0, 0, // 32: puts
	}
	// ret42: int f(void) { return 42; }
	ret42 = []byte{0xb8, 0x2a, 0, 0, 0, 0xc3}
)

func putSlot(code []byte, off int, a sps.Addr) { binary.LittleEndian.PutUint64(code[off:], uint64(a)) }

// start23 starts orcrt-executor as LLVM 23's llvm-jitlink does (argv and
// pipes as 22's: llvm-jitlink-executor's command line is unchanged in
// 23), with env.
func start23(t *testing.T, env ...string) (*ctl23, *wiretest.Executor) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the replayed JIT'd code is x86-64")
	}
	ex, err := wiretest.StartExecutor(orcrtBin, &wiretest.ExecOptions{Env: env})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ex.Kill(); _, _ = ex.Wait() })
	return newCtl23(t, ex.Controller), ex
}

// end23 ends the session as LLVM 23's controller does, by closing its
// end without Hangup (disconnect() is T->disconnect(), §2.4 of the fact
// sheet: #218586 is main's), and checks the executor's clean exit.
func end23(t *testing.T, ex *wiretest.Executor) {
	t.Helper()
	require.NoError(t, ex.Finish(ctx(t)))
	st, err := ex.WaitTimeout(callTimeout)
	require.NoError(t, err)
	assert.Equal(t, 0, st.Code, "executor: %s, stderr %q", st, ex.Stderr())
	_, hung := ex.HangupPayload()
	assert.False(t, hung, "no Hangup for LLVM 23")
}

// releases23 are the ways a controller reaches the 23 dialect: identified
// (here by ORCRT_LLVM; TestIdentifiesLLVM23 covers the others) and not
// identified at all.
var releases23 = map[string][]string{"identified": {"ORCRT_LLVM=23"}, "unidentified": nil}

// TestReplayLLVM23JITLink replays `llvm-jitlink hello.o -args a b` of
// LLVM 23: Setup, the process handle, two reservations (the debugger
// plugin's, never used, and the graph's), the lookup of puts in the 23
// form, initialize with the EH-frame actions, run-as-main, release, exit.
func TestReplayLLVM23JITLink(t *testing.T) {
	for name, env := range releases23 {
		t.Run(name, func(t *testing.T) {
			c, ex := start23(t, append(env, "ORCRT_LOG=debug")...)
			proc := c.open("")
			c.reserve(c.pageSize)                                         // llvm-jitlink's debug-object reservation
			r := c.resolve(proc, sps.LookupElement{Name: []byte("puts")}) // weakly referenced, as llvm-jitlink 22 asks for printf
			require.True(t, r[0].OK)
			g := c.link(sps.Read, nil, callPutsArgv0, func(code []byte, _ sps.Addr) { putSlot(code, 24, r[0].Value) })
			assert.Equal(t, int64(7), c.runAsMain(g.code, "a", "b"))
			c.release(g.base)
			end23(t, ex)
			assert.Equal(t, "a\n", ex.Stdout())
			assert.Contains(t, ex.Stderr(), `speaks="LLVM 23"`)
		})
	}
}

// TestReplayLLVM23Repl replays an LLJIT session as clang-repl 23 makes
// one: the process-symbol lookup (a large set, required and weak names,
// in the 23 form), several inputs, each linked as its own graph whose
// code then runs, one of them calling into a library loaded with open and
// calling back into the controller through jit-dispatch, and %quit:
// every allocation released, then the connection closed.
func TestReplayLLVM23Repl(t *testing.T) {
	for name, env := range releases23 {
		t.Run(name, func(t *testing.T) {
			c, ex := start23(t, env...)
			proc := c.open("")
			// The process lookups: names LLJIT's runtime support and the
			// inputs' code refer to, present and absent, required and weak.
			set := []sps.LookupElement{
				{Name: []byte("puts"), Required: true},
				{Name: []byte("printf"), Required: true},
				{Name: []byte("__cxa_atexit"), Required: true},
				{Name: []byte("_ZSt4cout"), Required: true},                 // libstdc++, loaded for JIT'd C++
				{Name: []byte("__orcrt_replay_absent")},                     // weak and missing: address 0
				{Name: []byte("__orcrt_replay_absent_req"), Required: true}, // required and missing: none
			}
			r := c.resolve(proc, set...)
			for i := range 4 {
				assert.True(t, r[i].OK, "%s", set[i].Name)
				assert.NotZero(t, r[i].Value, "%s", set[i].Name)
			}
			assert.Equal(t, sps.Some[sps.Addr](0), r[4], "a missing weak symbol is found at 0")
			assert.False(t, r[5].OK, "a missing required symbol is not found")
			puts := r[0].Value

			// A library the inputs use (clang-repl's %lib or a -l): open,
			// then its symbols in the 23 form.
			lib := c.open(cbuild.SharedObject(t, "orcrtreplay23", svctest.JITLibSource))
			dispatch := c.resolveAddr(lib, "orcrt_test_dispatch")

			var bases []sps.Addr
			for i, input := range []string{"int x = 42;", "printf(...);", "int y = x + 1;"} {
				g := c.link(sps.Read, []byte(fmt.Sprintf("input %d: %s\x00", i, input)), callPutsData, func(code []byte, data sps.Addr) {
					putSlot(code, 24, data)
					putSlot(code, 32, puts)
				})
				bases = append(bases, g.base)
				assert.Equal(t, int32(0), c.runAsVoid(g.code), "input %d", i)
			}
			// An input whose code calls the controller (the ORC runtime's
			// dlopen and initializer calls do): a JIT'd wrapper function,
			// called by address, that calls dispatch_fn.
			const tag = 0x5eed
			var calls atomic.Int32
			c.HandleFunc(tag, func(args []byte) []byte {
				calls.Add(1)
				return append([]byte{0}, args...) // an SPSError success, then the bytes
			})
			args := binary.LittleEndian.AppendUint64(nil, uint64(c.MustSymbol("__llvm_orc_SimpleRemoteEPC_dispatch_fn")))
			args = binary.LittleEndian.AppendUint64(args, uint64(c.MustSymbol("__llvm_orc_SimpleRemoteEPC_dispatch_ctx")))
			args = binary.LittleEndian.AppendUint64(args, tag)
			res, err := c.Call(c.ctx, dispatch, append(args, "dso"...))
			require.NoError(t, err)
			assert.Equal(t, []byte("\x00dso"), res)
			assert.Equal(t, int32(1), calls.Load())

			// %quit: LLJIT's teardown releases what it allocated.
			c.release(bases...)
			end23(t, ex)
			assert.Equal(t, "input 0: int x = 42;\ninput 1: printf(...);\ninput 2: int y = x + 1;\n", ex.Stdout())
		})
	}
}

// TestReplayLLVM23Lazy replays llvm-jitlink 23's lazy linking: JIT'd
// code enters the controller through jit-dispatch (the reentry
// trampoline's call), the controller links the body while that call
// waits, points the stub at it with the memory access LLVM 23 creates on
// demand (the legacy mem_write_pointers), answers, and the code runs.
func TestReplayLLVM23Lazy(t *testing.T) {
	c, ex := start23(t, "ORCRT_LLVM=23")
	for _, n := range llvm23MemoryAccess {
		c.MustSymbol(n)
	}
	lib := c.open(cbuild.SharedObject(t, "orcrtreplay23lazy", svctest.JITLibSource))
	trampoline := c.resolveAddr(lib, "orcrt_test_dispatch")

	// The stub's pointer lives in a writable segment of a graph of its
	// own, at first pointing nowhere.
	stubs := c.link(sps.Read|sps.Write, make([]byte, 8), ret42, nil)
	slot := stubs.base + 4 // after the .eh_frame terminator

	const reentryTag = 0x1a2b
	bodies := make(chan graph, 1)
	c.Handle(reentryTag, func(in *wiretest.Incoming) {
		// Runs while the executor's call waits: link the body, repoint the
		// stub, answer with the body's address.
		body := c.link(sps.Read, nil, ret42, nil)
		bodies <- body
		_, err := wiretest.Call1(c.ctx, c.Controller, c.MustSymbol("__llvm_orc_bootstrap_mem_write_pointers_wrapper"), sps.WritePointers,
			[]sps.UIntWrite[sps.Addr]{{Addr: slot, Value: body.code}})
		assert.NoError(t, err)
		_ = in.Reply(sps.AppendAddr(nil, body.code))
	})
	args := binary.LittleEndian.AppendUint64(nil, uint64(c.MustSymbol("__llvm_orc_SimpleRemoteEPC_dispatch_fn")))
	args = binary.LittleEndian.AppendUint64(args, uint64(c.MustSymbol("__llvm_orc_SimpleRemoteEPC_dispatch_ctx")))
	args = binary.LittleEndian.AppendUint64(args, reentryTag)
	res, err := c.Call(c.ctx, trampoline, sps.AppendAddr(args, slot))
	require.NoError(t, err)
	require.Len(t, res, 8)
	body := <-bodies
	assert.Equal(t, uint64(body.code), binary.LittleEndian.Uint64(res))

	got, err := wiretest.Call1(c.ctx, c.Controller, c.MustSymbol("__llvm_orc_bootstrap_mem_read_uint64s_wrapper"), sps.ReadUInt64s, []sps.Addr{slot})
	require.NoError(t, err)
	assert.Equal(t, []uint64{uint64(body.code)}, got, "the stub points at the body")
	assert.Equal(t, int64(42), c.runAsMain(body.code))
	c.release(stubs.base, body.base)
	end23(t, ex)
}
