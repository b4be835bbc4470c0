//go:build linux

package main_test

import (
	"debug/elf"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// imageBudget bounds the executable's read-only image (text, rodata,
// pclntab), which the kernel keeps resident in full: its size is most
// of the RSS orcrt adds over the stock executor (RATIONALE.md, "A binary
// without log/slog and Go's resolver"). Identifying static LLVM tools
// (running them with --version) took it from 4.09 MB to 4.10 MB; naming
// a JIT'd function's module in the crash line (jitsyms.Sym.Module, whose
// larger Sym instantiates slices' sort anew) from 4.114 MB to 4.122 MB;
// serve as three packages, server, worker and their protocol (issue 48:
// the messages and the worker's command line as types of their own),
// from 4.124 MB to 4.133 MB; the call package and executor's port for
// jit (issue 48: executor.Options.ControllerCalls and Wrappers, route
// learning and process preparation in packages of their own) to 4.147 MB.
const imageBudget = 4_155_000

// TestImageDiet: the executable links neither log/slog (nor
// encoding/json with it) nor package net's resolver, and its image stays
// within imageBudget.
func TestImageDiet(t *testing.T) {
	out, err := exec.Command("go", "tool", "nm", bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, prefix := range []string{"log/slog.", "encoding/json.", "net.(*Resolver)", "net.goLookup"} {
		for _, line := range strings.Split(string(out), "\n") {
			if f := strings.Fields(line); len(f) == 3 && strings.HasPrefix(f[2], prefix) {
				t.Errorf("%s is linked (%s)", strings.TrimSuffix(prefix, "."), f[2])
				break
			}
		}
	}
	f, err := elf.Open(bin)
	require.NoError(t, err)
	defer f.Close()
	var image uint64
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_W == 0 {
			image += p.Memsz
		}
	}
	t.Logf("read-only image: %d bytes", image)
	assert.LessOrEqual(t, image, uint64(imageBudget), "the executable's read-only image grew past its budget")
}
