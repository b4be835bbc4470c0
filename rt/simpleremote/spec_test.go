package simpleremote_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/rt/simpleremote"
)

// TestParseArgsLLIChild: lli -remote-mcjit starts its child as
// `lli-child-target IN OUT`; two leading descriptor numbers are
// filedescs=IN,OUT, and everything else keeps the stock's errors.
func TestParseArgsLLIChild(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		in, out int
		rest    []string
		err     string
	}{
		{name: "lli", args: []string{"3", "4"}, in: 3, out: 4},
		{name: "same", args: []string{"5", "5"}, in: 5, out: 5},
		{name: "zero", args: []string{"0", "1"}, in: 0, out: 1},
		{name: "leading zeros", args: []string{"007", "08"}, in: 7, out: 8},
		{name: "trailing args", args: []string{"3", "4", "x", "5"}, in: 3, out: 4, rest: []string{"x", "5"}},
		{name: "int32 max", args: []string{"2147483647", "4"}, in: 2147483647, out: 4},
		{name: "one number", args: []string{"3"}, err: `invalid specifier type "3"`},
		{name: "three numbers", args: []string{"3", "4", "5"}, err: `invalid specifier type "3"`},
		{name: "negative", args: []string{"-1", "4"}, err: `invalid specifier type "-1"`},
		{name: "negative out", args: []string{"3", "-1"}, err: `invalid specifier type "3"`},
		{name: "plus", args: []string{"+3", "4"}, err: `invalid specifier type "+3"`},
		{name: "hex", args: []string{"3", "0x4"}, err: `invalid specifier type "3"`},
		{name: "space", args: []string{" 3", "4"}, err: `invalid specifier type " 3"`},
		{name: "empty", args: []string{"", "4"}, err: `invalid specifier type ""`},
		{name: "too large", args: []string{"3", "4294967299"}, err: `invalid specifier type "3"`},
		{name: "number then spec", args: []string{"3", "filedescs=3,4"}, err: `invalid specifier type "3"`},
		{name: "after test flag", args: []string{"test-jitloadergdb", "3", "4"}, err: `invalid specifier type "3"`},
		{name: "spec then numbers", args: []string{"filedescs=3,6", "4", "5"}, in: 3, out: 6, rest: []string{"4", "5"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := simpleremote.ParseArgs(tc.args)
			if tc.err != "" {
				var ue *simpleremote.UsageError
				require.ErrorAs(t, err, &ue)
				assert.Equal(t, tc.err, ue.Msg)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, simpleremote.ModeFileDescs, a.Spec.Mode)
			assert.Equal(t, tc.in, a.Spec.InFD)
			assert.Equal(t, tc.out, a.Spec.OutFD)
			assert.Empty(t, a.TestFlags)
			if len(tc.rest) == 0 {
				assert.Empty(t, a.Rest)
			} else {
				assert.Equal(t, tc.rest, a.Rest)
			}
			lli := tc.args[0] != "filedescs=3,6"
			assert.Equal(t, lli, a.Spec.LLIChild)
			if lli {
				assert.Equal(t, tc.args[0], a.Spec.InText)
				assert.Equal(t, tc.args[1], a.Spec.OutText)
				assert.Equal(t, tc.args[0]+" "+tc.args[1], a.Spec.String())
			}
		})
	}
}

// TestParseArgsNone: no arguments keep the stock's message for an
// executor binary to print with its usage (Msg), and Error(), what a
// library host prints, lists the accepted forms.
func TestParseArgsNone(t *testing.T) {
	_, err := simpleremote.ParseArgs(nil)
	var ue *simpleremote.UsageError
	require.ErrorAs(t, err, &ue)
	assert.Equal(t, "insufficient arguments", ue.Msg)
	assert.Equal(t, "insufficient arguments (want filedescs=IN,OUT, listen=HOST:PORT, unix=PATH or lli's IN OUT)", err.Error())
	assert.Equal(t, "error: insufficient arguments\n\n"+stockUsage, formatUsageError(ue.Msg))
	// Other usage errors are the stock text alone.
	_, err = simpleremote.ParseArgs([]string{"foo"})
	assert.EqualError(t, err, `invalid specifier type "foo"`)
}
