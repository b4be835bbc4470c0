package sps

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const vectorsPath = "testdata/golden/vectors.txt"

type vector struct {
	name string
	b    []byte
}

func keyOf(name string) string { k, _, _ := strings.Cut(name, "/"); return k }

// parseVectors reads "name hex" lines ('-' is the empty encoding).
func parseVectors(t testing.TB, data []byte) []vector {
	t.Helper()
	var vs []vector
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, h, ok := strings.Cut(line, " ")
		require.True(t, ok, "malformed line %q", line)
		var b []byte
		if h != "-" {
			var err error
			b, err = hex.DecodeString(h)
			require.NoError(t, err, name)
		}
		vs = append(vs, vector{name, b})
	}
	require.NoError(t, sc.Err())
	return vs
}

func loadVectors(t testing.TB) []vector {
	t.Helper()
	data, err := os.ReadFile(vectorsPath)
	require.NoError(t, err)
	vs := parseVectors(t, data)
	require.NotEmpty(t, vs)
	return vs
}

// TestGoldenCoverage fails when a vector has no Go expectation or kind, or
// an expectation or kind has no vector (the table and the file must match
// one to one).
func TestGoldenCoverage(t *testing.T) {
	vs := loadVectors(t)
	seen := map[string]bool{}
	usedKeys := map[string]bool{}
	for _, v := range vs {
		assert.False(t, seen[v.name], "duplicate vector %s", v.name)
		seen[v.name] = true
		usedKeys[keyOf(v.name)] = true
		_, ok := goldenCases[v.name]
		assert.True(t, ok, "vector %s has no entry in goldenCases", v.name)
		_, ok = kinds[keyOf(v.name)]
		assert.True(t, ok, "vector %s has no kind %q", v.name, keyOf(v.name))
	}
	for name := range goldenCases {
		assert.True(t, seen[name], "goldenCases entry %s has no vector in %s", name, vectorsPath)
	}
	for k := range kinds {
		assert.True(t, usedKeys[k], "kind %s has no vector", k)
	}
}

// TestGoldenVectors decodes every LLVM-written vector, compares it with the
// Go table, re-encodes it and checks every strict prefix is rejected.
func TestGoldenVectors(t *testing.T) {
	for _, v := range loadVectors(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			k, ok := kinds[keyOf(v.name)]
			require.True(t, ok, "no kind")
			c, ok := goldenCases[v.name]
			require.True(t, ok, "no case")
			checkGolden(t, v, k, c)
		})
	}
}

func checkGolden(t *testing.T, v vector, k kind, c gcase) {
	got, n, err := k.decode(v.b)
	if c.fail != "" {
		require.Error(t, err)
		var de *DecodeError
		require.True(t, errors.As(err, &de), "error %T is not a *DecodeError", err)
		assert.Contains(t, err.Error(), c.fail)
		assert.True(t, strings.HasPrefix(err.Error(), "sps: "), "error %q lacks the package prefix", err)
		assert.LessOrEqual(t, de.Off, len(v.b))
		for _, a := range k.alts {
			_, _, aerr := a.decode(v.b)
			assert.Error(t, aerr, "alternative %s accepts the invalid input", a.name)
		}
		return
	}
	require.NoError(t, err)
	assert.Equal(t, len(v.b)-c.trailing, n, "consumed bytes")
	want := render(c.v)
	assert.Equal(t, want, render(got), "decoded value")

	enc := v.b[:n]
	if c.canon != "" {
		var herr error
		enc, herr = hex.DecodeString(c.canon)
		require.NoError(t, herr)
	}
	re := k.encode(got)
	if k.llvmReorders && multiEntry(got) && !bytes.Equal(re, enc) {
		// A Go map re-encodes in random order: compare as a map.
		rt, _, rerr := k.decode(re)
		require.NoError(t, rerr)
		assert.Equal(t, want, render(rt), "decoding the re-encoded map")
		assert.Equal(t, len(enc), len(re))
	} else {
		assert.Equal(t, hex.EncodeToString(enc), hex.EncodeToString(re), "re-encoding the decoded value")
	}
	assert.Equal(t, len(re), k.size(got), "Size of the decoded value")
	// The independently written expectation must encode to the same bytes,
	// unless it is a Go map or an unordered Setup list with several entries.
	exp := k.encode(c.v)
	if !k.llvmReorders || bytes.Equal(exp, enc) || !multiEntry(c.v) {
		assert.Equal(t, hex.EncodeToString(enc), hex.EncodeToString(exp), "encoding the expected value")
	} else {
		rt, _, rerr := k.decode(exp)
		require.NoError(t, rerr)
		assert.Equal(t, want, render(rt), "decoding the re-ordered encoding")
	}
	assert.Equal(t, len(exp), k.size(c.v), "Size of the expected value")

	for _, a := range k.alts {
		av, an, aerr := a.decode(v.b)
		if !assert.NoError(t, aerr, a.name) {
			continue
		}
		assert.Equal(t, n, an, "%s: consumed", a.name)
		if a.norm != nil {
			av = a.norm(av)
		}
		assert.Equal(t, want, render(av), "%s: value", a.name)
		if a.encode != nil {
			raw, _, _ := a.decode(v.b)
			assert.Equal(t, hex.EncodeToString(enc), hex.EncodeToString(a.encode(raw)), "%s: encoding", a.name)
		}
	}

	// Every strict prefix of an encoding is invalid: SPS is positional, so
	// a decoder reading the prefix follows the same path and runs out.
	for i := range n {
		if _, _, perr := k.decode(v.b[:i]); perr == nil {
			t.Errorf("prefix of %d bytes decoded without error", i)
			break
		}
	}
}

// multiEntry reports whether v holds a map (or Setup list) with more than
// one entry, whose encoded order is unspecified.
func multiEntry(v any) bool {
	switch x := v.(type) {
	case SetupInfo:
		return len(x.Values) > 1 || len(x.Symbols) > 1
	case map[string]uint64:
		return len(x) > 1
	case map[string][]byte:
		return len(x) > 1
	}
	return false
}

// TestGoldenVectorsCurrent regenerates the vectors with LLVM and checks
// that the committed file matches (golden.cpp and vectors.txt in sync).
func TestGoldenVectorsCurrent(t *testing.T) {
	bin := llvmGolden(t)
	out := runLLVM(t, bin, "gen")
	committed, err := os.ReadFile(vectorsPath)
	require.NoError(t, err)
	want := parseVectors(t, committed)
	got := parseVectors(t, out)
	require.Equal(t, len(want), len(got), "vector count; run sps/testdata/llvmgolden/regen.sh")
	for i := range want {
		require.Equal(t, want[i].name, got[i].name, "run sps/testdata/llvmgolden/regen.sh")
		assert.Equal(t, hex.EncodeToString(want[i].b), hex.EncodeToString(got[i].b), "%s: run regen.sh", want[i].name)
	}
}

func TestGoldenSourcesPresent(t *testing.T) {
	for _, p := range []string{"testdata/llvmgolden/golden.cpp", "testdata/llvmgolden/regen.sh", vectorsPath} {
		_, err := os.Stat(filepath.FromSlash(p))
		require.NoError(t, err)
	}
	assert.True(t, slices.ContainsFunc(loadVectors(t), func(v vector) bool { return v.name == "finalize/capture-a" }))
}
