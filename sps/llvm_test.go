package sps

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/internal/llvmtools"
)

const (
	llvmHeader = "/usr/lib/llvm-22/include/llvm/ExecutionEngine/Orc/Shared/SimplePackedSerialization.h"
	goldenSrc  = "testdata/llvmgolden/golden.cpp"
)

// requireLLVM skips the test when clang++-22 and the LLVM 22 headers are
// missing, except that it fails when ORCRT_REQUIRE_LLVM=1 (CI), so that a
// broken toolchain cannot hide behind a skip. It returns the compiler and
// llvm-config paths.
func requireLLVM(t testing.TB) (cxx, llvmConfig string) {
	t.Helper()
	var missing []string
	cxx, err := exec.LookPath("clang++-22")
	if err != nil {
		missing = append(missing, "clang++-22")
	}
	llvmConfig, err = exec.LookPath("llvm-config-22")
	if err != nil {
		missing = append(missing, "llvm-config-22")
	}
	if _, err := os.Stat(llvmHeader); err != nil {
		missing = append(missing, llvmHeader)
	}
	if len(missing) > 0 {
		llvmtools.Missing(t, "LLVM 22 toolchain not available: missing %s", strings.Join(missing, ", "))
	}
	return cxx, llvmConfig
}

// llvmGolden builds golden.cpp (once per source/toolchain hash, cached in
// the user cache directory) and returns the binary's path. A failing build
// fails the test.
func llvmGolden(t testing.TB) string {
	t.Helper()
	cxx, llvmConfig := requireLLVM(t)
	src, err := os.ReadFile(goldenSrc)
	require.NoError(t, err)
	flags := func(args ...string) []string {
		out, err := exec.Command(llvmConfig, args...).Output()
		require.NoError(t, err, "llvm-config %v", args)
		return strings.Fields(string(out))
	}
	cxxflags := flags("--cxxflags")
	ldflags := flags("--ldflags", "--libs")
	version, err := exec.Command(cxx, "--version").Output()
	require.NoError(t, err)

	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%q\x00%q\x00", src, version, cxxflags, ldflags)
	key := hex.EncodeToString(h.Sum(nil))[:24]
	dir := t.TempDir()
	if cache, err := os.UserCacheDir(); err == nil {
		dir = filepath.Join(cache, "orcrt", "spsgolden")
	}
	bin := filepath.Join(dir, "golden-"+key)
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	tmp := fmt.Sprintf("%s.tmp%d", bin, os.Getpid())
	args := append(append(append([]string{}, cxxflags...), "-O1", "-o", tmp, goldenSrc), ldflags...)
	out, err := exec.Command(cxx, args...).CombinedOutput()
	require.NoError(t, err, "building %s:\n%s", goldenSrc, out)
	require.NoError(t, os.Rename(tmp, bin))
	return bin
}

func runLLVM(t testing.TB, bin string, args ...string) []byte {
	t.Helper()
	var stderr bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s %v: %s", bin, args, stderr.String())
	return out
}

type llvmResult struct {
	ok       bool
	consumed int
	reenc    []byte
	render   string
}

// llvmCheck runs golden.cpp's check mode over the given vectors.
func llvmCheck(t testing.TB, bin string, vs []vector) map[string]llvmResult {
	t.Helper()
	var in strings.Builder
	for _, v := range vs {
		h := hex.EncodeToString(v.b)
		if h == "" {
			h = "-"
		}
		fmt.Fprintf(&in, "%s %s\n", v.name, h)
	}
	path := filepath.Join(t.TempDir(), "vectors.txt")
	require.NoError(t, os.WriteFile(path, []byte(in.String()), 0o644))
	out := runLLVM(t, bin, "check", path)

	res := map[string]llvmResult{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		require.GreaterOrEqual(t, len(f), 2, "malformed check line %q", sc.Text())
		switch f[1] {
		case "fail":
			res[f[0]] = llvmResult{}
		case "ok":
			require.Len(t, f, 5, "malformed check line %q", sc.Text())
			n, err := strconv.Atoi(f[2])
			require.NoError(t, err)
			var re []byte
			if f[3] != "-" {
				re, err = hex.DecodeString(f[3])
				require.NoError(t, err)
			}
			res[f[0]] = llvmResult{true, n, re, f[4]}
		default:
			t.Fatalf("malformed check line %q", sc.Text())
		}
	}
	require.NoError(t, sc.Err())
	require.Len(t, res, len(vs), "check output lines")
	return res
}

// TestLLVMDecodesGoEncodings is the reverse direction: values encoded by
// this package are decoded by LLVM 22's deserializers into LLVM's types,
// rendered and re-serialized by LLVM, and must match. The values are the
// golden table plus random values of every kind; invalid inputs (golden
// failures, truncations) must be rejected by LLVM as by Go.
func TestLLVMDecodesGoEncodings(t *testing.T) {
	bin := llvmGolden(t)
	type probe struct {
		k      kind
		fail   bool   // LLVM and Go must both reject the input
		v      any    // the encoded value
		canon  []byte // expected LLVM re-encoding when not the input
		render string // expected render when v is nil but decoding succeeds
	}
	probes := map[string]probe{}
	var vs []vector
	add := func(name string, b []byte, p probe) {
		require.NotContains(t, probes, name)
		probes[name] = p
		vs = append(vs, vector{name, b})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	truncate := func(name string, k kind, b []byte) {
		if len(b) == 0 {
			return
		}
		for i, cut := range []int{rng.IntN(len(b)), len(b) - 1} {
			add(fmt.Sprintf("%s/trunc%d-%d", name, i, cut), b[:cut], probe{k: k, fail: true})
		}
	}

	for name, c := range goldenCases {
		k := kinds[keyOf(name)]
		if c.fail != "" {
			continue // the failing golden vectors are fed below, as bytes
		}
		b := k.encode(c.v)
		add(name, b, probe{k: k, v: c.v})
		truncate(name, k, b)
	}
	for _, v := range loadVectors(t) {
		if goldenCases[v.name].fail != "" {
			add(v.name+"/as-written", v.b, probe{k: kinds[keyOf(v.name)], fail: true})
		}
	}
	for key, k := range kinds {
		for i := range 24 {
			v := randomValue(rng, k)
			b := k.encode(v)
			name := fmt.Sprintf("%s/rand%d", key, i)
			add(name, b, probe{k: k, v: v})
			if i < 4 {
				truncate(name, k, b)
			}
		}
	}
	// Undefined RemoteAllocGroup bits: LLVM and Go both drop them.
	for x := 0x10; x < 0x100; x += 0x13 {
		b := []byte{byte(x)}
		add(fmt.Sprintf("allocgroup/high-%#02x", x), b, probe{k: kinds["allocgroup"],
			canon: []byte{byte(x) & 0xf}, render: strconv.Itoa(x & 0xf)})
	}

	res := llvmCheck(t, bin, vs)
	t.Logf("LLVM checked %d Go encodings", len(vs))
	for _, v := range vs {
		p, r := probes[v.name], res[v.name]
		goV, goN, goErr := p.k.decode(v.b)
		switch {
		case p.fail:
			assert.False(t, r.ok, "%s: LLVM accepts an input Go rejects", v.name)
			assert.Error(t, goErr, "%s: Go accepts", v.name)
		case p.render != "":
			if assert.True(t, r.ok, "%s: LLVM rejects", v.name) && assert.NoError(t, goErr, v.name) {
				assert.Equal(t, p.render, r.render, "%s: LLVM render", v.name)
				assert.Equal(t, p.render, render(goV), "%s: Go render", v.name)
				assert.Equal(t, p.canon, r.reenc, "%s: LLVM canonical re-encoding", v.name)
				assert.Equal(t, p.canon, p.k.encode(goV), "%s: Go canonical re-encoding", v.name)
				assert.Equal(t, len(v.b), goN)
			}
		default:
			if !assert.True(t, r.ok, "%s: LLVM rejects the Go encoding %x", v.name, v.b) {
				continue
			}
			assert.Equal(t, len(v.b), r.consumed, "%s: LLVM consumed", v.name)
			assert.Equal(t, render(p.v), r.render, "%s: LLVM's view of the Go value", v.name)
			if !p.k.llvmReorders || !multiEntry(p.v) {
				assert.Equal(t, hex.EncodeToString(v.b), hex.EncodeToString(r.reenc), "%s: LLVM re-encoding", v.name)
			}
			require.NoError(t, goErr, v.name)
			assert.Equal(t, len(v.b), goN)
		}
	}
}

// randomValue builds a random value of k's Go types (an args list for
// argument lists with several arguments).
func randomValue(r *rand.Rand, k kind) any {
	if len(k.types) == 1 {
		return randomOf(r, k.types[0], 0).Interface()
	}
	a := make(args, len(k.types))
	for i, t := range k.types {
		a[i] = randomOf(r, t, 0).Interface()
	}
	return a
}

var (
	allocGroupType = reflect.TypeFor[AllocGroup]()
)

func randomBytes(r *rand.Rand, max int) []byte {
	b := make([]byte, r.IntN(max+1))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// randomOf returns a random value of type t, favouring edge values.
func randomOf(r *rand.Rand, t reflect.Type, depth int) reflect.Value {
	v := reflect.New(t).Elem()
	edge := func(max uint64) uint64 {
		switch r.IntN(4) {
		case 0:
			return 0
		case 1:
			return max
		default:
			return r.Uint64() & max
		}
	}
	switch {
	case t == allocGroupType:
		v.SetUint(uint64(r.IntN(16)))
		return v
	case t == errorType:
		if r.IntN(2) == 0 {
			v.Set(reflect.ValueOf(&RemoteError{Msg: string(randomBytes(r, 40))}))
		}
		return v
	case t == setupType:
		s := SetupInfo{Triple: string(randomBytes(r, 30)), PageSize: edge(^uint64(0))}
		for i := range r.IntN(4) {
			s.Values = append(s.Values, BootstrapValue{fmt.Sprintf("v%d-%x", i, randomBytes(r, 6)), randomBytes(r, 5)})
		}
		for i := range r.IntN(6) {
			s.Symbols = append(s.Symbols, BootstrapSymbol{fmt.Sprintf("s%d-%x", i, randomBytes(r, 6)), Addr(edge(^uint64(0)))})
		}
		v.Set(reflect.ValueOf(s))
		return v
	}
	switch t.Kind() {
	case reflect.Bool:
		v.SetBool(r.IntN(2) == 1)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(edge(^uint64(0) >> (64 - 8*t.Size())))
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(edge(^uint64(0))) >> (64 - 8*t.Size()))
	case reflect.String:
		v.SetString(string(randomBytes(r, 24)))
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			v.SetBytes(randomBytes(r, 24))
			return v
		}
		n := r.IntN(4)
		if depth > 3 {
			n = 0
		}
		s := reflect.MakeSlice(t, n, n)
		for i := range n {
			s.Index(i).Set(randomOf(r, t.Elem(), depth+1))
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(t)
		for range r.IntN(4) {
			m.SetMapIndex(randomOf(r, t.Key(), depth+1), randomOf(r, t.Elem(), depth+1))
		}
		v.Set(m)
	case reflect.Struct:
		name := t.Name()
		switch {
		case strings.HasPrefix(name, "Option["):
			if r.IntN(3) > 0 {
				v.FieldByName("OK").SetBool(true)
				v.FieldByName("Value").Set(randomOf(r, t.Field(0).Type, depth+1))
			}
		case strings.HasPrefix(name, "Expected["):
			if r.IntN(3) == 0 {
				v.FieldByName("Err").Set(reflect.ValueOf(&RemoteError{Msg: string(randomBytes(r, 30))}))
			} else {
				v.FieldByName("Value").Set(randomOf(r, t.Field(0).Type, depth+1))
			}
		default:
			for i := range t.NumField() {
				v.Field(i).Set(randomOf(r, t.Field(i).Type, depth+1))
			}
		}
	default:
		panic("randomOf: unsupported type " + t.String())
	}
	return v
}
