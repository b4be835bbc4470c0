//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orcgo/orcrt/internal/llvmtools"
)

// lliCases are programs for lli's remote MCJIT. lli passes main no
// arguments and runs no static constructors in this mode.
var lliCases = []struct {
	name, src string
	want      expect
}{
	{"hello", "hello.c", expect{exit: 7, stdout: []string{"Hello, world! argc=0\n"}}},
	{"function-pointers-libc-callback", "fnptr.c", expect{exit: 12, stdout: []string{"sorted=13579 add=5 mul=20\n"}}},
	{"global-bss-rodata-multipage", "data.c", expect{exit: 53, stdout: []string{"counter=42 sum=799980000"}}},
	{"stdio-stdout-stderr", "stdio.c", expect{exit: 3, stdout: []string{"fmt-42-3.142\n"}, stderr: []string{"to stderr\n"}}},
	{"cxx-exceptions", "exc.cpp", expect{exit: 2, stdout: []string{"caught: boom 3\n", "caught: boom 4\n"}}},
}

// TestLLIRemoteMCJIT runs each program with each installed release's
// `lli --jit-kind=mcjit --remote-mcjit`, whose child is started as
// `<child> <infd> <outfd>`: with the release's lli-child-target and with
// orcrt-executor, which must give the same exit status and output.
func TestLLIRemoteMCJIT(t *testing.T) {
	requireLLVM(t)
	if emuRoot != "" {
		t.Skip("lli's remote MCJIT runs on the host only")
	}
	for _, tch := range toolchains() {
		t.Run(fmt.Sprintf("llvm-%d", tch.major), func(t *testing.T) {
			bin := filepath.Dir(tch.jitlink)
			lli, child := filepath.Join(bin, "lli"), filepath.Join(bin, "lli-child-target")
			for _, tool := range []string{lli, child, tch.cc} {
				if _, err := exec.LookPath(tool); err != nil {
					llvmtools.Missing(t, "%s not found: %v", tool, err)
				}
			}
			tally := newTally(t, tch.major, "lli --remote-mcjit")
			for _, tc := range lliCases {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					ir := tch.emitIR(t, tc.src)
					run := func(executor string) outcome {
						ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
						defer cancel()
						cmd := exec.CommandContext(ctx, lli, "--jit-kind=mcjit", "--remote-mcjit", "--mcjit-remote-process="+executor, ir)
						return finish(t, ctx, cmd, nil)
					}
					stock, ours := run(child), run(orcrtExecutor)
					stockPasses, oursPasses := tc.want.metBy(stock), tc.want.metBy(ours)
					tally.add(tc.name, stockPasses, oursPasses)
					if !stockPasses {
						// orcrt-executor passes it or fails it the same way.
						t.Logf("LLVM %d's lli-child-target fails this case\n%s", tch.major, stock)
						if !oursPasses {
							sameFailure(t, stock, ours, func(s string) string { return normalizeFailure(s, child, orcrtExecutor) })
						}
						return
					}
					assert.True(t, oursPasses, "orcrt-executor does not meet the expectation\n%s", ours)
					assert.Equal(t, stock.exit, ours.exit, "exit status differs from lli-child-target")
					assert.Equal(t, stock.stdout, ours.stdout, "stdout differs from lli-child-target")
					assert.Equal(t, normalize(stock.stderr, child, orcrtExecutor), normalize(ours.stderr, child, orcrtExecutor),
						"stderr differs from lli-child-target")
					assert.Equal(t, stock.executorExit, ours.executorExit, "the child's exit status differs")
				})
			}
		})
	}
}

// emitIR compiles a testdata source to textual LLVM IR with the
// toolchain's clang.
func (tc *toolchain) emitIR(t testing.TB, src string) string {
	t.Helper()
	out := filepath.Join(objDir, fmt.Sprintf("%d-%s.ll", tc.major, strings.TrimSuffix(src, filepath.Ext(src))))
	cc := tc.cc
	if strings.HasSuffix(src, ".cpp") {
		cc = tc.cxx
	}
	key := "ir|" + out
	v, _ := compiled.LoadOrStore(key, &compileResult{})
	r := v.(*compileResult)
	r.once.Do(func() {
		r.path = out
		r.err = run(exec.Command(cc, "-S", "-emit-llvm", "-O1", filepath.Join("testdata", src), "-o", out))
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
	return out
}
