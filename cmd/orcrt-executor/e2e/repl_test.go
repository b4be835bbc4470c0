//go:build linux

package e2e

import (
	"bytes"
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/orcgo/orcrt/internal/llvmtools"
)

const clangRepl = llvmBin + "/clang-repl"

// replCases are clang-repl 22 sessions: the inputs, one per line, and the
// output they must print.
var replCases = []struct {
	name   string
	inputs []string
	want   []string
}{
	{"c-and-cxx", []string{
		`#include <stdio.h>`,
		`int x = 42;`,
		`printf("x=%d\n", x);`,
		`#include <string>`,
		`std::string s = "abcd";`,
		`printf("len=%zu\n", s.size());`,
		`try { throw 5; } catch (int e) { printf("caught %d\n", e); }`,
	}, []string{"x=42\n", "len=4\n", "caught 5\n"}},
	{"undo-threads-static-destructor", []string{
		`int f(int x) { return x * 2; }`,
		`#include <stdio.h>`,
		`printf("f=%d\n", f(21));`,
		`int g = 5;`,
		`%undo`,
		`int g = 7;`,
		`printf("g=%d\n", g);`,
		`#include <thread>`,
		`int t = 0;`,
		`std::thread th([]{ t = 9; }); th.join();`,
		`printf("t=%d\n", t);`,
		`struct D { ~D() { printf("dtor\n"); } } d;`,
	}, []string{"f=42\n", "g=7\n", "t=9\n", "dtor\n"}},
}

// TestClangRepl runs clang-repl 22 out of process, over pipes and with
// shared memory, with the stock executor and with orcrt-executor.
//
// clang-repl writes a newline of its own when it quits without waiting
// for the executor, whose buffered output the stock executor flushes only
// at exit: where that newline lands varies from run to run with the stock
// executor alone, so blank lines are not compared. orcrt-executor flushes
// the program's stdout after each call into JIT'd code, so its output
// comes in input order, before the newline (checked).
func TestClangRepl(t *testing.T) {
	requireLLVM(t)
	if emuRoot != "" {
		t.Skip("clang-repl runs on the host only")
	}
	if _, err := exec.LookPath(clangRepl); err != nil {
		llvmtools.Missing(t, "%s not found (Debian's clang-tools-22)", clangRepl)
	}
	for _, mode := range []string{"pipe", "shared-memory"} {
		for _, tc := range replCases {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				run := func(executor string) outcome {
					ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
					defer cancel()
					args := []string{"--oop-executor=" + executor, "--orc-runtime=" + orcRuntime}
					if mode == "shared-memory" {
						args = append(args, "--use-shared-memory")
					}
					cmd := exec.CommandContext(ctx, clangRepl, args...)
					cmd.Stdin = bytes.NewBufferString(strings.Join(append(tc.inputs, "%quit"), "\n") + "\n")
					return finish(t, ctx, cmd, nil)
				}
				stock, ours := run(stockExecutor), run(orcrtExecutor)
				for who, o := range map[string]outcome{"stock": stock, "orcrt": ours} {
					assert.Equal(t, 0, o.exit, "%s: clang-repl's exit status\n%s", who, o)
					assertInOrder(t, o.stdout, tc.want, who+" stdout")
				}
				assert.Equal(t, dropBlankLines(stock.stdout), dropBlankLines(ours.stdout), "stdout differs from the stock executor")
				assert.Equal(t, stock.stderr, ours.stderr, "stderr differs from the stock executor")
				assert.Equal(t, strings.Join(tc.want, "")+"\n", ours.stdout, "orcrt-executor's output, in input order, then clang-repl's newline")
			})
		}
	}
}

func dropBlankLines(s string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.TrimSpace(line) != "" {
			b.WriteString(line)
		}
	}
	return b.String()
}
