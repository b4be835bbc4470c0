//go:build cgo

package executor_test

import (
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/native"
	"github.com/orcgo/orcrt/sps"
)

// The 34 bootstrap names of the stock 22.1.8 executor (docs/protocol.md §3.2).
var stockNames = []string{
	"__llvm_orc_SimpleRemoteEPC_dispatch_ctx",
	"__llvm_orc_SimpleRemoteEPC_dispatch_fn",
	"__llvm_orc_SimpleExecutorMemoryManager_Instance",
	"__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper",
	"__llvm_orc_SimpleExecutorMemoryManager_initialize_wrapper",
	"__llvm_orc_SimpleExecutorMemoryManager_deinitialize_wrapper",
	"__llvm_orc_SimpleExecutorMemoryManager_release_wrapper",
	"__llvm_orc_SimpleExecutorDylibManager_Instance",
	"__llvm_orc_SimpleExecutorDylibManager_open_wrapper",
	"__llvm_orc_SimpleExecutorDylibManager_resolve_wrapper",
	"__llvm_orc_bootstrap_mem_write_uint8s_wrapper",
	"__llvm_orc_bootstrap_mem_write_uint16s_wrapper",
	"__llvm_orc_bootstrap_mem_write_uint32s_wrapper",
	"__llvm_orc_bootstrap_mem_write_uint64s_wrapper",
	"__llvm_orc_bootstrap_mem_write_pointers_wrapper",
	"__llvm_orc_bootstrap_mem_write_buffers_wrapper",
	"__llvm_orc_bootstrap_mem_read_uint8s_wrapper",
	"__llvm_orc_bootstrap_mem_read_uint16s_wrapper",
	"__llvm_orc_bootstrap_mem_read_uint32s_wrapper",
	"__llvm_orc_bootstrap_mem_read_uint64s_wrapper",
	"__llvm_orc_bootstrap_mem_read_pointers_wrapper",
	"__llvm_orc_bootstrap_mem_read_buffers_wrapper",
	"__llvm_orc_bootstrap_mem_read_strings_wrapper",
	"__llvm_orc_bootstrap_run_as_main_wrapper",
	"__llvm_orc_bootstrap_run_as_void_function_wrapper",
	"__llvm_orc_bootstrap_run_as_int_function_wrapper",
	"llvm_orc_registerEHFrameAllocAction",
	"llvm_orc_deregisterEHFrameAllocAction",
	"llvm_orc_registerJITLoaderGDBAllocAction",
	"__llvm_orc_ExecutorSharedMemoryMapperService_Instance",
	"__llvm_orc_ExecutorSharedMemoryMapperService_Reserve",
	"__llvm_orc_ExecutorSharedMemoryMapperService_Initialize",
	"__llvm_orc_ExecutorSharedMemoryMapperService_Deinitialize",
	"__llvm_orc_ExecutorSharedMemoryMapperService_Release",
}

// llvm23Aliases are the names LLVM 23's dialect adds to LLVM 22's, each
// with the LLVM 22 name whose address it shares: an orcrt-executor whose
// controller is not identified speaks it (dialect.Unidentified).
var llvm23Aliases = map[string]string{
	"orc_rt_ci_SimpleNativeMemoryMap_Instance":                 "__llvm_orc_SimpleExecutorMemoryManager_Instance",
	"orc_rt_ci_sps_SimpleNativeMemoryMap_reserve":              "__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper",
	"orc_rt_ci_sps_SimpleNativeMemoryMap_initialize":           "__llvm_orc_SimpleExecutorMemoryManager_initialize_wrapper",
	"orc_rt_ci_sps_SimpleNativeMemoryMap_deinitializeMultiple": "__llvm_orc_SimpleExecutorMemoryManager_deinitialize_wrapper",
	"orc_rt_ci_sps_SimpleNativeMemoryMap_releaseMultiple":      "__llvm_orc_SimpleExecutorMemoryManager_release_wrapper",
	"orc_rt_ci_NativeDylibManager_Instance":                    "__llvm_orc_SimpleExecutorDylibManager_Instance",
	"orc_rt_ci_sps_NativeDylibManager_load":                    "",
	"orc_rt_ci_sps_NativeDylibManager_lookup":                  "",
}

// withoutLLVM23Names returns the names of info without those LLVM 23's
// dialect adds, after checking that it adds all of them and that each
// alias shares its LLVM 22 name's address.
func withoutLLVM23Names(t testing.TB, info sps.SetupInfo) []string {
	t.Helper()
	addr := map[string]sps.Addr{}
	for _, s := range info.Symbols {
		addr[s.Name] = s.Addr
	}
	for name, of := range llvm23Aliases {
		require.Contains(t, addr, name)
		if of != "" {
			assert.Equal(t, addr[of], addr[name], "%s is an alias of %s", name, of)
		}
	}
	var ns []string
	for _, n := range names(info) {
		if _, added := llvm23Aliases[n]; !added {
			ns = append(ns, n)
		}
	}
	return ns
}

func names(info sps.SetupInfo) []string {
	var ns []string
	for _, s := range info.Symbols {
		ns = append(ns, s.Name)
	}
	slices.Sort(ns)
	return ns
}

func TestSetup(t *testing.T) {
	eachTarget(t, func(t *testing.T, s *session) {
		info := s.Setup()
		want := map[string]string{"amd64": "x86_64-pc-linux-gnu", "arm64": "aarch64-unknown-linux-gnu"}[runtime.GOARCH]
		assert.Equal(t, want, info.Triple)
		assert.Equal(t, uint64(os.Getpagesize()), info.PageSize)
		assert.Empty(t, info.Values, "the stock bootstrap map is empty")
		got := names(info)
		if s.kind == "process" { // not identified: LLVM 23's dialect
			got = withoutLLVM23Names(t, info)
		}
		assert.Equal(t, slices.Sorted(slices.Values(stockNames)), got)
		seen := map[sps.Addr]string{}
		for _, sym := range info.Symbols {
			assert.NotZero(t, sym.Addr, sym.Name)
			if _, alias := llvm23Aliases[sym.Name]; alias {
				continue
			}
			if other, dup := seen[sym.Addr]; dup {
				t.Errorf("%s and %s share address %#x", sym.Name, other, uint64(sym.Addr))
			}
			seen[sym.Addr] = sym.Name
		}
		if s.kind == "inprocess" {
			assert.Equal(t, sps.Addr(native.DispatchFnAddr()), s.MustSymbol("__llvm_orc_SimpleRemoteEPC_dispatch_fn"))
		}
		out := s.end(t)
		assert.NoError(t, out.err)
		assert.Equal(t, 0, out.status.Code)
		assert.Empty(t, out.stderr)
	})
}

// TestSetupMatchesStock: an orcrt-executor whose controller is not
// identified speaks LLVM 23's dialect, whose Setup is the stock 22's plus
// the names LLVM 23's adds (each an alias of a 22 name, or the
// NativeDylibManager's load and lookup).
func TestSetupMatchesStock(t *testing.T) {
	requireStock(t)
	stock := startProcess(t, stockBin, nil)
	ours := startProcess(t, orcrtBin, nil)
	assert.Equal(t, names(stock.Setup()), withoutLLVM23Names(t, ours.Setup()))
	assert.Equal(t, stock.Setup().Triple, ours.Setup().Triple)
	assert.Equal(t, stock.Setup().PageSize, ours.Setup().PageSize)
	assert.Equal(t, len(stock.Setup().Values), len(ours.Setup().Values))
}

func TestOptionsNoSharedMemory(t *testing.T) {
	s := startInProcess(t, executor.Options{NoSharedMemory: true})
	n := names(s.Setup())
	assert.Len(t, n, 29)
	for _, name := range n {
		assert.NotContains(t, name, "SharedMemoryMapper")
	}
	require.NoError(t, s.end(t).err)
}
