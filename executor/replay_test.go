//go:build cgo && linux

package executor_test

// Replayed LLVM 23 and LLVM main controllers. No binary of either can be
// installed here, so these tests send what their controllers send,
// written from their sources (SPS declarations and call sites; the
// llvm-project PRs are cited where each came in) on top of the wire of
// llvm-jitlink 22, whose captured sessions they follow call for call.
// Every answer is decoded as the C++ controller decodes it and checked.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/cbuild"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/rt/svctest"
	"github.com/orcgo/orcrt/sps"
)

// release is what one LLVM release's controller looks up and calls.
type release struct {
	name string
	// lookups are the bootstrap names the controller looks up before its
	// first call; a missing one fails the session ("Symbols not found").
	lookups []string
	// The memory manager's, the dylib manager's and the run wrapper's
	// names (all in lookups).
	mmInstance, reserve, initialize, release string
	dmInstance, open, resolve                string
	runMain                                  string
	// openMode: open takes LLVM's (Instance, Path, Mode), not orc-rt's
	// load(Instance, Path).
	openMode bool
	// writePointers and readUInt64s are the memory access names, looked
	// up when the controller first needs them (lazy linking).
	writePointers, readUInt64s string
	// env makes orcrt-executor speak the release's dialect when asked.
	env string
	// wire is how the release's Results and Hangups travel.
	wire dialect.WireProtocol
}

// llvm23 is LLVM 23's controller.
var llvm23 = release{
	name: "LLVM 23",
	lookups: []string{
		// SimpleRemoteEPC::setup (SimpleRemoteEPC.cpp, after #192665): the
		// dispatch pair and the three run wrappers, unchanged from 22.
		"__llvm_orc_SimpleRemoteEPC_dispatch_ctx",
		"__llvm_orc_SimpleRemoteEPC_dispatch_fn",
		"__llvm_orc_bootstrap_run_as_main_wrapper",
		"__llvm_orc_bootstrap_run_as_void_function_wrapper",
		"__llvm_orc_bootstrap_run_as_int_function_wrapper",
		// createDefaultMemoryManager: EPCGenericJITLinkMemoryManager::
		// Create(ES) looks up all five orc_rt_SimpleNativeMemoryMapSPSSymbols
		// (OrcRTBridge.cpp) in <bootstrap> (#188172, #188391, #192665;
		// these spellings since #195614).
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
	},
	mmInstance: "orc_rt_ci_SimpleNativeMemoryMap_Instance",
	reserve:    "orc_rt_ci_sps_SimpleNativeMemoryMap_reserve",
	initialize: "orc_rt_ci_sps_SimpleNativeMemoryMap_initialize",
	release:    "orc_rt_ci_sps_SimpleNativeMemoryMap_releaseMultiple",
	dmInstance: "__llvm_orc_SimpleExecutorDylibManager_Instance",
	open:       "__llvm_orc_SimpleExecutorDylibManager_open_wrapper",
	resolve:    "__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper",
	runMain:    "__llvm_orc_bootstrap_run_as_main_wrapper",
	openMode:   true,
	// createDefaultMemoryAccess: still the legacy rt::Memory*WrapperName
	// names (#188439, #188711, #191715).
	writePointers: "__llvm_orc_bootstrap_mem_write_pointers_wrapper",
	readUInt64s:   "__llvm_orc_bootstrap_mem_read_uint64s_wrapper",
	env:           "ORCRT_LLVM=23",
}

// llvmMain is LLVM main's controller (the future 24), as of its sources of
// August-September 2026.
var llvmMain = release{
	name: "LLVM main",
	lookups: []string{
		// SimpleRemoteEPC::setup (main's SimpleRemoteEPC.cpp, after
		// #212434 and #213265): the legacy dispatch pair, copied to
		// rt::DispatchName and rt::DispatchCtxName (__orc_rt_jit_dispatch,
		// __orc_rt_jit_dispatch_ctx, OrcRTBridge.cpp), then CallMain.
		"__llvm_orc_SimpleRemoteEPC_dispatch_ctx",
		"__llvm_orc_SimpleRemoteEPC_dispatch_fn",
		"orc_rt_ci_sps_call_main",
		// sps::createEPCGenericJITLinkMemoryManager: the SimpleNativeMemoryMap
		// bindings (#216216, #216911).
		"orc_rt_ci_SimpleNativeMemoryMap_Instance",
		"orc_rt_ci_sps_SimpleNativeMemoryMap_reserve",
		"orc_rt_ci_sps_SimpleNativeMemoryMap_initialize",
		"orc_rt_ci_sps_SimpleNativeMemoryMap_deinitializeMultiple",
		"orc_rt_ci_sps_SimpleNativeMemoryMap_releaseMultiple",
		// sps::createEPCGenericDylibManager: the NativeDylibManager names
		// alone (#215441; NativeDylibManagerSPSCI.cpp).
		"orc_rt_ci_NativeDylibManager_Instance",
		"orc_rt_ci_sps_NativeDylibManager_load",
		"orc_rt_ci_sps_NativeDylibManager_lookup",
	},
	mmInstance: "orc_rt_ci_SimpleNativeMemoryMap_Instance",
	reserve:    "orc_rt_ci_sps_SimpleNativeMemoryMap_reserve",
	initialize: "orc_rt_ci_sps_SimpleNativeMemoryMap_initialize",
	release:    "orc_rt_ci_sps_SimpleNativeMemoryMap_releaseMultiple",
	dmInstance: "orc_rt_ci_NativeDylibManager_Instance",
	open:       "orc_rt_ci_sps_NativeDylibManager_load",
	resolve:    "orc_rt_ci_sps_NativeDylibManager_lookup",
	runMain:    "orc_rt_ci_sps_call_main",
	// sps::createEPCGenericMemoryAccess: orc-rt's names
	// (MemoryAccessSPSCI.cpp).
	writePointers: "orc_rt_ci_sps_mem_write_pointers",
	readUInt64s:   "orc_rt_ci_sps_mem_read_uint64s",
	env:           "ORCRT_LLVM=24",
	// Results carry their kind (#223378, #223916); Hangups their reason,
	// sent by disconnect() and required at the end (#218586).
	wire: dialect.WireProtocol{ResultKinds: true, HangupReasons: true},
}

// replayCtl is a release's controller over a wiretest connection.
type replayCtl struct {
	*wiretest.Controller
	rel      release
	t        testing.TB
	ctx      context.Context
	mm, dm   sps.Addr // the memory map's and the dylib manager's Instance
	pageSize uint64
}

// newReplayCtl checks Setup as rel's controller does: every name of
// rel.lookups must be there.
func newReplayCtl(t testing.TB, rel release, c *wiretest.Controller) *replayCtl {
	t.Helper()
	var missing []string
	for _, n := range rel.lookups {
		if _, ok := c.Symbol(n); !ok {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("Symbols not found: [ %s ]", strings.Join(missing, ", "))
	}
	return &replayCtl{Controller: c, rel: rel, t: t, ctx: ctx(t),
		mm:       c.MustSymbol(rel.mmInstance),
		dm:       c.MustSymbol(rel.dmInstance),
		pageSize: c.Setup().PageSize}
}

func mustValue[T any](t testing.TB, what string, v sps.Expected[T], err error) T {
	t.Helper()
	require.NoError(t, err, what)
	require.NoError(t, v.Err, what)
	return v.Value
}

// open is EPCGenericDylibManager::open: SPSExpected<SPSExecutorAddr>(
// SPSExecutorAddr Instance, SPSString Path, uint64_t Mode), Mode 0; in
// main orc-rt's load, without the mode.
func (c *replayCtl) open(path string) sps.Addr {
	c.t.Helper()
	var v sps.Expected[sps.Addr]
	var err error
	if c.rel.openMode {
		v, err = wiretest.Call3(c.ctx, c.Controller, c.MustSymbol(c.rel.open), sps.DylibManagerOpen, c.dm, path, 0)
	} else {
		v, err = wiretest.Call2(c.ctx, c.Controller, c.MustSymbol(c.rel.open), sps.NativeDylibManagerLoad, c.dm, path)
	}
	return mustValue(c.t, "open "+path, v, err)
}

// resolve is LLVM 23's EPCGenericDylibManager::lookupAsync: resolve
// called with (SAs.Instance, H, Lookup) (#201211), answered with
// std::vector<std::optional<ExecutorAddr>> (#201492); main's calls orc-rt's
// lookup, of the same signature.
func (c *replayCtl) resolve(h sps.Addr, set ...sps.LookupElement) []sps.Option[sps.Addr] {
	c.t.Helper()
	v, err := wiretest.Call3(c.ctx, c.Controller, c.MustSymbol(c.rel.resolve), sps.DylibManagerResolveAddrs, c.dm, h, set)
	got := mustValue(c.t, "resolve", v, err)
	require.Len(c.t, got, len(set), "one answer a symbol")
	return got
}

// resolveAddr resolves one required name, which must be found.
func (c *replayCtl) resolveAddr(h sps.Addr, name string) sps.Addr {
	c.t.Helper()
	r := c.resolve(h, sps.LookupElement{Name: []byte(name), Required: true})
	require.True(c.t, r[0].OK, "%s not found", name)
	require.NotZero(c.t, r[0].Value, name)
	return r[0].Value
}

// reserve, initialize and release are EPCGenericJITLinkMemoryManager's
// calls through the SimpleNativeMemoryMap names, signatures from
// OrcRTBridge.h (unchanged from 22's).
func (c *replayCtl) reserve(size uint64) sps.Addr {
	c.t.Helper()
	v, err := wiretest.Call2(c.ctx, c.Controller, c.MustSymbol(c.rel.reserve), sps.MemoryManagerReserve, c.mm, size)
	return mustValue(c.t, "reserve", v, err)
}

func (c *replayCtl) initialize(fr sps.FinalizeRequest) sps.Addr {
	c.t.Helper()
	v, err := wiretest.Call2(c.ctx, c.Controller, c.MustSymbol(c.rel.initialize), sps.MemoryManagerInitialize, c.mm, fr)
	return mustValue(c.t, "initialize", v, err)
}

func (c *replayCtl) release(bases ...sps.Addr) {
	c.t.Helper()
	err, cerr := wiretest.Call2(c.ctx, c.Controller, c.MustSymbol(c.rel.release), sps.MemoryManagerRelease, c.mm, bases)
	require.NoError(c.t, cerr)
	require.NoError(c.t, err, "release")
}

// runAsMain is SimpleRemoteEPC::runAsMain: int64_t(SPSExecutorAddr,
// SPSSequence<SPSString>), unchanged from 22 (main's CallMain has the
// same signature, CallSPSCI.cpp).
func (c *replayCtl) runAsMain(fn sps.Addr, args ...string) int64 {
	c.t.Helper()
	r, err := wiretest.Call2(c.ctx, c.Controller, c.MustSymbol(c.rel.runMain), sps.RunAsMain, fn, args)
	require.NoError(c.t, err)
	return r
}

// runAsVoid is SimpleRemoteEPC::runAsVoidFunction: int32_t(SPSExecutorAddr).
func (c *replayCtl) runAsVoid(fn sps.Addr) int32 {
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
func (c *replayCtl) link(prot sps.AllocGroup, data []byte, code []byte, fix func(code []byte, data sps.Addr)) graph {
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

// runInput runs an input's code, int f(void): LLVM 23's clang-repl
// through run_as_void_function (SimpleRemoteEPC::runAsVoidFunction, still
// in 23), main's through call_main, its only run wrapper (#213265).
func (c *replayCtl) runInput(fn sps.Addr) int64 {
	c.t.Helper()
	if c.rel.openMode {
		return int64(c.runAsVoid(fn))
	}
	return c.runAsMain(fn)
}

// startReplay starts orcrt-executor as rel's tool launches it: over two
// pipes, argv [PATH, "filedescs=3,6"] (llvm-jitlink and clang-repl 23,
// clang-repl main), or over a socketpair, argv [PATH, "socket:adopt=3"]
// (llvm-jitlink main's -oop-launch), with env.
func startReplay(t *testing.T, rel release, socketpair bool, env ...string) (*replayCtl, *wiretest.Executor) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the replayed JIT'd code is x86-64")
	}
	ex, err := wiretest.StartExecutor(orcrtBin, &wiretest.ExecOptions{Env: env, SocketAdopt: socketpair,
		Controller: &wiretest.Options{Wire: rel.wire}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = ex.Kill(); _, _ = ex.Wait() })
	return newReplayCtl(t, rel, ex.Controller), ex
}

// endReplay ends the session as rel's controller does and checks the
// executor's clean exit. LLVM 23's disconnect() only closes its end
// (T->disconnect(), no Hangup); main's sends a Hangup carrying success
// first (#218586), after which the executor, hung up on, has nothing to
// announce and closes.
func endReplay(t *testing.T, c *replayCtl, ex *wiretest.Executor) {
	t.Helper()
	err := ex.Finish(ctx(t))
	st, werr := ex.WaitTimeout(callTimeout)
	require.NoError(t, werr)
	assert.Equal(t, 0, st.Code, "executor: %s, stderr %q", st, ex.Stderr())
	require.NoError(t, err)
	payload, hung := ex.HangupPayload()
	assert.False(t, hung, "a Hangup from the executor: %x", payload)
}

// replays are the controllers replayed and how each reaches its dialect
// and transport: LLVM 23 identified (here by ORCRT_LLVM;
// TestIdentifiesLLVM23 covers the others) and not identified at all, over
// pipes; LLVM main identified, over a socketpair (llvm-jitlink -oop-launch)
// and over pipes (clang-repl, whose launcher still uses them).
var replays = []struct {
	name       string
	rel        release
	socketpair bool
	env        []string
}{
	{"23/identified", llvm23, false, []string{"ORCRT_LLVM=23"}},
	{"23/unidentified", llvm23, false, nil},
	{"main/socketpair", llvmMain, true, []string{"ORCRT_LLVM=24"}},
	{"main/pipes", llvmMain, false, []string{"ORCRT_LLVM=24"}},
}

// TestReplayJITLink replays `llvm-jitlink hello.o -args a b`: Setup, the
// process handle, two reservations (the debugger plugin's, never used,
// and the graph's), the lookup of puts in the 23 form, initialize with
// the EH-frame actions, run-as-main, release, exit.
func TestReplayJITLink(t *testing.T) {
	for _, r := range replays {
		t.Run(r.name, func(t *testing.T) {
			c, ex := startReplay(t, r.rel, r.socketpair, append(r.env, "ORCRT_LOG=debug")...)
			proc := c.open("")
			c.reserve(c.pageSize)                                           // llvm-jitlink's debug-object reservation
			res := c.resolve(proc, sps.LookupElement{Name: []byte("puts")}) // weakly referenced, as llvm-jitlink 22 asks for printf
			require.True(t, res[0].OK)
			g := c.link(sps.Read, nil, callPutsArgv0, func(code []byte, _ sps.Addr) { putSlot(code, 24, res[0].Value) })
			assert.Equal(t, int64(7), c.runAsMain(g.code, "a", "b"))
			c.release(g.base)
			endReplay(t, c, ex)
			assert.Equal(t, "a\n", ex.Stdout())
			want := map[bool]string{true: `speaks="LLVM main (24)"`, false: `speaks="LLVM 23"`}[r.rel.wire.HangupReasons]
			assert.Contains(t, ex.Stderr(), want)
		})
	}
}

// TestReplayRepl replays an LLJIT session as clang-repl makes one: the
// process-symbol lookup (a large set, required and weak names, in the 23
// form), several inputs, each linked as its own graph whose code then
// runs, one of them calling into a library loaded with open and calling
// back into the controller through jit-dispatch, and %quit: every
// allocation released, then the connection closed.
func TestReplayRepl(t *testing.T) {
	for _, r := range replays {
		if r.socketpair {
			continue // clang-repl launches over pipes in every release
		}
		t.Run(r.name, func(t *testing.T) {
			c, ex := startReplay(t, r.rel, false, r.env...)
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
			res := c.resolve(proc, set...)
			for i := range 4 {
				assert.True(t, res[i].OK, "%s", set[i].Name)
				assert.NotZero(t, res[i].Value, "%s", set[i].Name)
			}
			assert.Equal(t, sps.Some[sps.Addr](0), res[4], "a missing weak symbol is found at 0")
			assert.False(t, res[5].OK, "a missing required symbol is not found")
			puts := res[0].Value

			// A library the inputs use (clang-repl's %lib or a -l): open,
			// then its symbols in the 23 form.
			lib := c.open(cbuild.SharedObject(t, "orcrtreplay", svctest.JITLibSource))
			dispatch := c.resolveAddr(lib, "orcrt_test_dispatch")

			var bases []sps.Addr
			for i, input := range []string{"int x = 42;", "printf(...);", "int y = x + 1;"} {
				g := c.link(sps.Read, []byte(fmt.Sprintf("input %d: %s\x00", i, input)), callPutsData, func(code []byte, data sps.Addr) {
					putSlot(code, 24, data)
					putSlot(code, 32, puts)
				})
				bases = append(bases, g.base)
				assert.Equal(t, int64(0), c.runInput(g.code), "input %d", i)
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
			out, err := c.Call(c.ctx, dispatch, append(args, "dso"...))
			require.NoError(t, err)
			assert.Equal(t, []byte("\x00dso"), out)
			assert.Equal(t, int32(1), calls.Load())

			// %quit: LLJIT's teardown releases what it allocated.
			c.release(bases...)
			endReplay(t, c, ex)
			assert.Equal(t, "input 0: int x = 42;\ninput 1: printf(...);\ninput 2: int y = x + 1;\n", ex.Stdout())
		})
	}
}

// TestReplayLazy replays llvm-jitlink's lazy linking: JIT'd code enters
// the controller through jit-dispatch (the reentry trampoline's call), the
// controller links the body while that call waits, points the stub at it
// with the memory access it creates on demand (mem_write_pointers), answers,
// and the code runs.
func TestReplayLazy(t *testing.T) {
	for _, r := range replays {
		if r.env == nil || (r.rel.wire.HangupReasons && !r.socketpair) {
			continue // one run a release, as its llvm-jitlink launches
		}
		t.Run(r.name, func(t *testing.T) {
			c, ex := startReplay(t, r.rel, r.socketpair, r.env...)
			c.MustSymbol(r.rel.writePointers)
			c.MustSymbol(r.rel.readUInt64s)
			lib := c.open(cbuild.SharedObject(t, "orcrtreplaylazy", svctest.JITLibSource))
			trampoline := c.resolveAddr(lib, "orcrt_test_dispatch")

			// The stub's pointer lives in a writable segment of a graph of
			// its own, at first pointing nowhere.
			stubs := c.link(sps.Read|sps.Write, make([]byte, 8), ret42, nil)
			slot := stubs.base + 4 // after the .eh_frame terminator

			// Main's runtime reaches the controller through the dispatch
			// pair under the ORC runtime's names (#212434).
			fnName, ctxName := "__llvm_orc_SimpleRemoteEPC_dispatch_fn", "__llvm_orc_SimpleRemoteEPC_dispatch_ctx"
			if r.rel.wire.HangupReasons {
				fnName, ctxName = "__orc_rt_jit_dispatch", "__orc_rt_jit_dispatch_ctx"
			}
			const reentryTag = 0x1a2b
			bodies := make(chan graph, 1)
			c.Handle(reentryTag, func(in *wiretest.Incoming) {
				// Runs while the executor's call waits: link the body,
				// repoint the stub, answer with the body's address.
				body := c.link(sps.Read, nil, ret42, nil)
				bodies <- body
				_, err := wiretest.Call1(c.ctx, c.Controller, c.MustSymbol(r.rel.writePointers), sps.WritePointers,
					[]sps.UIntWrite[sps.Addr]{{Addr: slot, Value: body.code}})
				assert.NoError(t, err)
				_ = in.Reply(sps.AppendAddr(nil, body.code))
			})
			args := binary.LittleEndian.AppendUint64(nil, uint64(c.MustSymbol(fnName)))
			args = binary.LittleEndian.AppendUint64(args, uint64(c.MustSymbol(ctxName)))
			args = binary.LittleEndian.AppendUint64(args, reentryTag)
			res, err := c.Call(c.ctx, trampoline, sps.AppendAddr(args, slot))
			require.NoError(t, err)
			require.Len(t, res, 8)
			body := <-bodies
			assert.Equal(t, uint64(body.code), binary.LittleEndian.Uint64(res))

			got, err := wiretest.Call1(c.ctx, c.Controller, c.MustSymbol(r.rel.readUInt64s), sps.ReadUInt64s, []sps.Addr{slot})
			require.NoError(t, err)
			assert.Equal(t, []uint64{uint64(body.code)}, got, "the stub points at the body")
			assert.Equal(t, int64(42), c.runAsMain(body.code))
			c.release(stubs.base, body.base)
			endReplay(t, c, ex)
		})
	}
}

// TestReplayMainWire checks LLVM main's wire rules against the executor
// speaking its dialect: out-of-band errors travel as Results of kind 1 in
// both directions (#223378, #223916), and Hangups carry an SPSError both
// ways, an end of input without one being an error (#218586).
func TestReplayMainWire(t *testing.T) {
	start := func(t *testing.T) (*replayCtl, *wiretest.Executor) {
		return startReplay(t, llvmMain, true, "ORCRT_LLVM=24")
	}
	t.Run("out-of-band-results", func(t *testing.T) {
		c, ex := start(t)
		// Undecodable arguments: the executor's out-of-band error, kind 1.
		_, err := c.CallName(c.ctx, llvmMain.resolve, []byte{1, 2, 3})
		var oob *wiretest.OutOfBandError
		require.ErrorAs(t, err, &oob)
		assert.Equal(t, dialect.LLVMMain.DeserializeArgs, oob.Msg)

		// The controller's out-of-band error, kind 1, reaches JIT'd code
		// calling it through jit-dispatch, which returns it as its own.
		lib := c.open(cbuild.SharedObject(t, "orcrtreplaymainwire", svctest.JITLibSource))
		dispatch := c.resolveAddr(lib, "orcrt_test_dispatch")
		const tag = 0x7a9
		c.Handle(tag, func(in *wiretest.Incoming) {
			assert.NoError(t, c.SendFrame(simpleremote.OpResult, in.Seq, 1, sps.AppendString(nil, "No function registered for tag 0x7a9")))
		})
		args := binary.LittleEndian.AppendUint64(nil, uint64(c.MustSymbol("__orc_rt_jit_dispatch")))
		args = binary.LittleEndian.AppendUint64(args, uint64(c.MustSymbol("__orc_rt_jit_dispatch_ctx")))
		args = binary.LittleEndian.AppendUint64(args, tag)
		_, err = c.Call(c.ctx, dispatch, args)
		require.ErrorAs(t, err, &oob)
		assert.Equal(t, "No function registered for tag 0x7a9", oob.Msg)
		endReplay(t, c, ex)
	})
	t.Run("controller-hangs-up-with-an-error", func(t *testing.T) {
		c, ex := start(t)
		c.open("")
		require.NoError(t, c.Hangup(sps.Marshal(sps.ErrorCodec, errors.New("llvm-jitlink: lost its way"))))
		_ = c.CloseWrite()
		st, err := ex.WaitTimeout(callTimeout)
		require.NoError(t, err)
		assert.Equal(t, 1, st.Code)
		assert.Contains(t, ex.Stderr(), "orcrt-executor: llvm-jitlink: lost its way")
	})
	t.Run("controller-ends-without-hangup", func(t *testing.T) {
		c, ex := start(t)
		c.open("")
		_ = c.CloseWrite()
		st, err := ex.WaitTimeout(callTimeout)
		require.NoError(t, err)
		assert.Equal(t, 1, st.Code)
		assert.Contains(t, ex.Stderr(), "orcrt-executor: Connection closed without hangup")
	})
	t.Run("executor-hangs-up-with-its-error", func(t *testing.T) {
		c, ex := start(t)
		// A Result for no call of the executor's: fatal, and said so.
		require.NoError(t, c.SendFrame(simpleremote.OpResult, 99, 0, nil))
		select {
		case <-c.Done():
		case <-time.After(callTimeout):
			t.Fatal("the executor did not end the session")
		}
		payload, hung := ex.HangupPayload()
		require.True(t, hung, "no Hangup")
		reason, err := sps.Unmarshal(sps.ErrorCodec, payload)
		require.NoError(t, err)
		assert.EqualError(t, reason, "No call for sequence number 99")
		st, err := ex.WaitTimeout(callTimeout)
		require.NoError(t, err)
		assert.Equal(t, 1, st.Code)
	})
}
