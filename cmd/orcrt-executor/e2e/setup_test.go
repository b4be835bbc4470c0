//go:build linux

package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt/simpleremote/wiretest"
	"github.com/orcgo/orcrt/sps"
)

// targetTriples is the triple each executor must report for the target:
// what LLVM 22's llvm-jitlink-executor built for it reports.
var targetTriples = map[string]string{
	"x86_64":  "x86_64-pc-linux-gnu",
	"aarch64": "aarch64-unknown-linux-gnu",
}

// TestSetupLikeStock starts both executors (for aarch64, the QEMU wrapper
// scripts llvm-jitlink runs) as llvm-jitlink does and compares their Setup
// messages: the target triple (from which the controller picks the
// target), the page size and the bootstrap symbol names.
func TestSetupLikeStock(t *testing.T) {
	requireLLVM(t)
	setup := func(executor string) sps.SetupInfo {
		ex, err := wiretest.StartExecutor(executor, nil)
		require.NoError(t, err)
		info := ex.Setup()
		ctx, cancel := context.WithTimeout(context.Background(), caseTimeout)
		defer cancel()
		_ = ex.Finish(ctx)
		st, err := ex.WaitTimeout(caseTimeout)
		require.NoError(t, err)
		assert.Equal(t, 0, st.Code, "%s: %s, stderr %q", executor, st, ex.Stderr())
		return info
	}
	names := func(info sps.SetupInfo) []string {
		var ns []string
		for _, s := range info.Symbols {
			ns = append(ns, s.Name)
		}
		slices.Sort(ns)
		return ns
	}
	start := time.Now()
	stock, ours := setup(stockExecutor), setup(orcrtExecutor)
	t.Logf("%s: triple %s, page size %d (both sessions in %v)", targetName, ours.Triple, ours.PageSize, time.Since(start))

	assert.Equal(t, targetTriples[targetName], stock.Triple, "stock executor triple")
	assert.Equal(t, targetTriples[targetName], ours.Triple, "orcrt-executor triple")
	assert.Equal(t, stock.PageSize, ours.PageSize, "page size")
	assert.Contains(t, []uint64{4 << 10, 16 << 10, 64 << 10}, ours.PageSize, "page size")
	// Started by this test, the executor does not identify its controller
	// and speaks LLVM 23's dialect, which adds orc-rt's names (the
	// SimpleNativeMemoryMap's five, the NativeDylibManager's three) to
	// LLVM 22's: a 22 controller sees nothing else.
	var added []string
	ns := slices.DeleteFunc(names(ours), func(n string) bool {
		if strings.HasPrefix(n, "orc_rt_ci_") {
			added = append(added, n)
			return true
		}
		return false
	})
	assert.Len(t, added, 8, "names LLVM 23's dialect adds")
	assert.Equal(t, names(stock), ns, "bootstrap symbols")
}
