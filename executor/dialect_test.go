//go:build cgo

package executor_test

import (
	"maps"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/service/perfjit"
)

// noArguments are the wrapper functions that take no arguments: like
// LLVM's, they ignore whatever bytes come.
var noArguments = map[string]bool{perfjit.StartName: true, perfjit.EndName: true}

// TestDialectsRejectUndecodableArguments: every wrapper function of every
// dialect — its bootstrap symbols and the functions its controllers find
// by a process lookup — answers argument bytes that do not decode with
// the dialect's out-of-band error, as LLVM 22's do.
func TestDialectsRejectUndecodableArguments(t *testing.T) {
	for _, d := range dialect.All {
		t.Run(d.Name, func(t *testing.T) {
			ex, err := executor.New(executor.Options{Dialect: d})
			require.NoError(t, err)
			defer ex.Close()
			assert.Same(t, d, ex.Dialect())
			syms := maps.Collect(ex.Symbols().All())
			maps.Copy(syms, ex.DylibManager().ProcessSymbols())
			n := 0
			for _, name := range slices.Sorted(maps.Keys(syms)) {
				fn, ok := ex.Session().LookupWrapper(syms[name])
				if !ok || noArguments[name] {
					continue // an instance, the C dispatch function, or one without arguments
				}
				n++
				for _, args := range [][]byte{nil, {1, 2, 3}} {
					done := make(chan rt.WrapperResult, 1)
					fn(ex.Session(), args, func(r rt.WrapperResult) { done <- r })
					msg, oob := (<-done).OutOfBandError()
					assert.True(t, oob, "%s(%x): not an out-of-band error", name, args)
					assert.Equal(t, d.DeserializeArgs, msg, "%s(%x)", name, args)
				}
			}
			assert.Greater(t, n, 12, "wrapper functions of %s", d.Name)
		})
	}
}
