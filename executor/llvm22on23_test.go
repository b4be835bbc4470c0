//go:build cgo && linux

package executor_test

import (
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/llvmtools"
)

// wireLine is one traced message: direction, opcode, sequence number,
// size and the bootstrap name called.
var wireLine = regexp.MustCompile(`msg=wire dir=(\w+) op=(\w+) seq=(\d+) size=(\d+)(?: tag=\d+)?(?: fn=(\S+))?`)

// TestLLVMJITLink22OnLLVM23Dialect: llvm-jitlink 22, LLVM's own
// controller, runs the same session with orcrt speaking LLVM 23's dialect
// as with LLVM 22's: the same calls, of the same sizes, with answers of
// the same sizes, the same output and exit status; only
// Setup differs, by the names LLVM 23's dialect adds.
func TestLLVMJITLink22OnLLVM23Dialect(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("clang-22 and llvm-jitlink here build and link x86-64 code")
	}
	if _, err := os.Stat(llvmJITLink22); err != nil {
		llvmtools.Missing(t, "%v", err)
	}
	obj := helloObject(t, 22)

	run := func(release string, flags ...string) (stdout string, code int, wire []string) {
		t.Helper()
		cmd := exec.Command(llvmJITLink22, append(append([]string{"-oop-executor=" + orcrtBin}, flags...), obj, "-args", "a", "b")...)
		cmd.Env = append(os.Environ(), "ORCRT_LLVM="+release, "ORCRT_LOG=debug")
		var so, se strings.Builder
		cmd.Stdout, cmd.Stderr = &so, &se
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil {
			require.ErrorAs(t, err, &ee, "stderr: %s", se.String())
		}
		// Each call with its answer: the controller numbers its calls in
		// the order its threads make them, which varies. A call's answer
		// may be logged before the call itself (the controller answers
		// before the sender logs), so calls are collected first.
		lines := wireLine.FindAllStringSubmatch(se.String(), -1)
		calls := map[string]string{}
		for _, m := range lines {
			if dir, op, seq, size, fn := m[1], m[2], m[3], m[4], m[5]; op == "CallWrapper" {
				calls[dir+seq] = dir + " " + fn + " " + size
			}
		}
		for _, m := range lines {
			dir, op, seq, size := m[1], m[2], m[3], m[4]
			switch {
			case op == "Result" && dir == "send":
				wire = append(wire, calls["recv"+seq]+" -> "+size)
			case op == "Result":
				wire = append(wire, calls["send"+seq]+" -> "+size)
			}
		}
		require.NotEmpty(t, wire, "no wire trace: %s", se.String())
		return so.String(), cmd.ProcessState.ExitCode(), wire
	}
	for name, flags := range map[string][]string{"plain": nil, "orc-runtime": {"-orc-runtime=" + orcRuntime22}} {
		t.Run(name, func(t *testing.T) {
			if len(flags) > 0 {
				if _, err := os.Stat(orcRuntime22); err != nil {
					llvmtools.Missing(t, "%v", err)
				}
			}
			out22, code22, wire22 := run("22", flags...)
			out23, code23, wire23 := run("23", flags...)
			assert.Equal(t, 7, code22)
			assert.Equal(t, "Hello, argc=2 argv[1]=b\n", out22)
			assert.Equal(t, out22, out23)
			assert.Equal(t, code22, code23)
			slices.Sort(wire22)
			slices.Sort(wire23)
			assert.Equal(t, wire22, wire23)
			t.Logf("%d calls with their answers, each the same with either dialect", len(wire22))
		})
	}
}
