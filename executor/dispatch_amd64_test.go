//go:build cgo && amd64

package executor_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

// Hand-assembled amd64 machine code standing in for JIT'd code that
// jit-dispatches (the same functions as package native's tests, assembled
// with llvm-mc 22).
var (
	// CWrapperFunctionBuffer dispatchtail(a, n): a = {dispatch_fn, ctx, tag, payload...};
	// tail-calls dispatch_fn(ctx, tag, a+24, n-24)
	codeDispatchTail = []byte{
		0x48, 0x89, 0xf8, // mov rax, rdi
		0x48, 0x8d, 0x4e, 0xe8, // lea rcx, [rsi - 0x18]
		0x4c, 0x8b, 0x00, // mov r8, qword ptr [rax]
		0x48, 0x8b, 0x78, 0x08, // mov rdi, qword ptr [rax + 0x8]
		0x48, 0x8b, 0x70, 0x10, // mov rsi, qword ptr [rax + 0x10]
		0x48, 0x8d, 0x50, 0x18, // lea rdx, [rax + 0x18]
		0x41, 0xff, 0xe0, // jmp r8
	}
	// CWrapperFunctionBuffer spawn(a, n): a = {pthread_create, pthread_join, start, arg};
	// runs start(arg) on a new pthread, joins it, returns {NULL, 0}
	codeSpawn = []byte{
		0x53,                   // push rbx
		0x48, 0x83, 0xec, 0x10, // sub rsp, 0x10
		0x48, 0x89, 0xfb, // mov rbx, rdi
		0x48, 0x8d, 0x3c, 0x24, // lea rdi, [rsp]
		0x31, 0xf6, // xor esi, esi
		0x48, 0x8b, 0x53, 0x10, // mov rdx, qword ptr [rbx + 0x10]
		0x48, 0x8b, 0x4b, 0x18, // mov rcx, qword ptr [rbx + 0x18]
		0xff, 0x13, // call qword ptr [rbx]
		0x48, 0x8b, 0x3c, 0x24, // mov rdi, qword ptr [rsp]
		0x31, 0xf6, // xor esi, esi
		0xff, 0x53, 0x08, // call qword ptr [rbx + 0x8]
		0x31, 0xc0, // xor eax, eax
		0x31, 0xd2, // xor edx, edx
		0x48, 0x83, 0xc4, 0x10, // add rsp, 0x10
		0x5b, // pop rbx
		0xc3, // ret
	}
	// void *threadstart(void *b): b = {dispatch_fn, ctx, tag, out, size, payload...};
	// *(CWrapperFunctionBuffer*)out = dispatch_fn(ctx, tag, b+40, size); returns NULL
	codeThreadStart = []byte{
		0x53,             // push rbx
		0x48, 0x89, 0xfb, // mov rbx, rdi
		0x48, 0x8b, 0x7b, 0x08, // mov rdi, qword ptr [rbx + 0x8]
		0x48, 0x8b, 0x73, 0x10, // mov rsi, qword ptr [rbx + 0x10]
		0x48, 0x8d, 0x53, 0x28, // lea rdx, [rbx + 0x28]
		0x48, 0x8b, 0x4b, 0x20, // mov rcx, qword ptr [rbx + 0x20]
		0xff, 0x13, // call qword ptr [rbx]
		0x4c, 0x8b, 0x43, 0x18, // mov r8, qword ptr [rbx + 0x18]
		0x49, 0x89, 0x00, // mov qword ptr [r8], rax
		0x49, 0x89, 0x50, 0x08, // mov qword ptr [r8 + 0x8], rdx
		0x31, 0xc0, // xor eax, eax
		0x5b, // pop rbx
		0xc3, // ret
	}
)

// jitCode loads the three functions into the executor the way a
// controller loads JIT'd code — reserve, then initialize with an R-X
// segment whose content is the code, plus an RW data page — and returns
// their addresses and the data page's.
func jitCode(t *testing.T, s *session) (tail, spawn, start, data sps.Addr) {
	c := ctx(t)
	mm := s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_Instance")
	ps := s.Setup().PageSize
	r, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"), sps.MemoryManagerReserve, mm, 2*ps)
	require.NoError(t, err)
	require.NoError(t, r.Err)
	base := r.Value
	code := make([]byte, 192)
	copy(code[0:], codeDispatchTail)
	copy(code[64:], codeSpawn)
	copy(code[128:], codeThreadStart)
	k, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorMemoryManager_initialize_wrapper"), sps.MemoryManagerInitialize, mm,
		sps.FinalizeRequest{Segments: []sps.SegFinalizeRequest{
			{Group: sps.Read | sps.Write, Addr: base, Size: ps},
			{Group: sps.Read | sps.Exec, Addr: base + sps.Addr(ps), Size: ps, Content: code},
		}})
	require.NoError(t, err)
	require.NoError(t, k.Err)
	x := base + sps.Addr(ps)
	return x, x + 64, x + 128, base
}

func TestDispatchFromJITCode(t *testing.T) {
	eachTarget(t, func(t *testing.T, s *session) {
		c := ctx(t)
		tail, _, _, _ := jitCode(t, s)
		fn := s.MustSymbol("__llvm_orc_SimpleRemoteEPC_dispatch_fn")
		dctx := s.MustSymbol("__llvm_orc_SimpleRemoteEPC_dispatch_ctx")
		const tag = 0x5a5a0000
		s.HandleFunc(tag, func(args []byte) []byte { return append([]byte("echo:"), args...) })
		for _, payload := range []string{"", "x", "12345678", "a longer payload than eight bytes"} {
			var args []byte
			args = binary.LittleEndian.AppendUint64(args, uint64(fn))
			args = binary.LittleEndian.AppendUint64(args, uint64(dctx))
			args = binary.LittleEndian.AppendUint64(args, tag)
			args = append(args, payload...)
			got, err := s.Call(c, tail, args)
			require.NoError(t, err)
			assert.Equal(t, "echo:"+payload, string(got))
		}
		// A tag the controller has no handler for: LLVM 22 answers with
		// an empty payload, which JIT'd code receives as an empty result.
		var args []byte
		for _, v := range []uint64{uint64(fn), uint64(dctx), 0x5a5a0008} {
			args = binary.LittleEndian.AppendUint64(args, v)
		}
		got, err := s.Call(c, tail, args)
		require.NoError(t, err)
		assert.Empty(t, got)
	})
}

// TestDispatchFromThreadJITCodeCreated: JIT'd code creates a pthread
// that jit-dispatches; the controller answers only after it has served
// other calls (the lazy-linking pattern, docs/protocol.md §7.2), and the result reaches
// the thread.
func TestDispatchFromThreadJITCodeCreated(t *testing.T) {
	eachTarget(t, func(t *testing.T, s *session) {
		c := ctx(t)
		_, spawn, start, data := jitCode(t, s)
		h, err := wiretest.Call3(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_open_wrapper"), sps.DylibManagerOpen,
			s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_Instance"), "", 0)
		require.NoError(t, err)
		res, err := wiretest.Call2(c, s.Controller, s.MustSymbol("__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper"), sps.DylibManagerResolve,
			h.Value, []sps.LookupElement{{Name: []byte("pthread_create"), Required: true}, {Name: []byte("pthread_join"), Required: true}})
		require.NoError(t, err)
		require.NoError(t, res.Err)
		pcreate, pjoin := res.Value[0].Value.Addr, res.Value[1].Value.Addr

		const tag = 0x5a5a1000
		q := s.Queue(tag, 1)
		payload := []byte("from a pthread")
		out := data + 256
		var blk []byte
		for _, v := range []uint64{uint64(s.MustSymbol("__llvm_orc_SimpleRemoteEPC_dispatch_fn")),
			uint64(s.MustSymbol("__llvm_orc_SimpleRemoteEPC_dispatch_ctx")), tag, uint64(out), uint64(len(payload))} {
			blk = binary.LittleEndian.AppendUint64(blk, v)
		}
		blk = append(blk, payload...)
		_, err = s.CallName(c, "__llvm_orc_bootstrap_mem_write_buffers_wrapper", sps.WriteBuffers.AppendArgs(nil, []sps.BufferWrite{{Addr: data, Data: blk}}))
		require.NoError(t, err)

		var args []byte
		for _, v := range []sps.Addr{pcreate, pjoin, start, data} {
			args = binary.LittleEndian.AppendUint64(args, uint64(v))
		}
		call, err := s.Start(spawn, args)
		require.NoError(t, err)
		in := <-q
		assert.Equal(t, payload, in.Args)
		// Serve other calls while the JIT'd thread waits.
		for i := range 5 {
			_, err := s.CallName(c, "__llvm_orc_bootstrap_mem_write_uint64s_wrapper",
				sps.WriteUInt64s.AppendArgs(nil, []sps.UIntWrite[uint64]{{Addr: data + 512 + sps.Addr(8*i), Value: uint64(i)}}))
			require.NoError(t, err)
		}
		require.NoError(t, in.Reply([]byte("reply!")))
		got, err := call.Wait(c)
		require.NoError(t, err)
		assert.Empty(t, got, "spawn returns the empty result")
		// The thread stored dispatch_fn's CWrapperFunctionBuffer at out:
		// 6 bytes inline.
		buf, err := wiretest.Call1(c, s.Controller, s.MustSymbol("__llvm_orc_bootstrap_mem_read_buffers_wrapper"), sps.ReadBuffers,
			[]sps.AddrRange{{Start: out, End: out + 16}})
		require.NoError(t, err)
		assert.Equal(t, "reply!", string(buf[0][:6]))
		assert.Equal(t, uint64(6), binary.LittleEndian.Uint64(buf[0][8:]), fmt.Sprintf("%x", buf[0]))
	})
}
