//go:build cgo

package gdbjit_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/orcgo/orcrt/service/gdbjit"
)

// object compiles C source to a relocatable object, as a debug object's
// image before the controller sets its load addresses (all sh_addr 0).
func object(t testing.TB, src string) []byte {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("gdbjit: no C compiler (%s)", cc)
	}
	dir := t.TempDir()
	c, o := filepath.Join(dir, "x.c"), filepath.Join(dir, "x.o")
	require.NoError(t, os.WriteFile(c, []byte(src), 0o644))
	out, err := exec.Command(cc, "-c", "-g", "-O1", "-fPIC", "-ffunction-sections", "-o", o, c).CombinedOutput()
	require.NoError(t, err, "%s", out)
	img, err := os.ReadFile(o)
	require.NoError(t, err)
	return img
}

const threeFuncs = `
int g(int x) { return x * 3; }
int h(int x) { return g(x) + 1; }
static int k(int x) { return h(x) - 1; }
int (*keep)(int) = k;
int data = 7;
`

func TestFuncSymbols(t *testing.T) {
	syms, err := gdbjit.FuncSymbols(object(t, threeFuncs))
	require.NoError(t, err)
	names := map[string]gdbjit.FuncSym{}
	for _, s := range syms {
		names[s.Name] = s
	}
	for _, n := range []string{"g", "h", "k"} {
		s, ok := names[n]
		if assert.True(t, ok, "%s among %v", n, syms) {
			assert.Positive(t, s.Size, n)
		}
	}
	assert.NotContains(t, names, "data", "functions only")
	assert.NotContains(t, names, "keep")
}

// TestFuncSymbolsHostile: every truncation and a sweep of corrupted bytes
// give an error or some symbols, never a panic.
func TestFuncSymbolsHostile(t *testing.T) {
	img := object(t, threeFuncs)
	for i := range img {
		_, _ = gdbjit.FuncSymbols(img[:i])
	}
	bad := make([]byte, len(img))
	for i := 0; i < len(img); i += 7 {
		copy(bad, img)
		bad[i] ^= 0xff
		_, _ = gdbjit.FuncSymbols(bad)
	}
	_, err := gdbjit.FuncSymbols([]byte("not an ELF image at all, padded to sixty-four bytes or more......"))
	assert.ErrorContains(t, err, "gdbjit: debug object: not an ELF image")
}

func FuzzFuncSymbols(f *testing.F) {
	f.Add(object(f, threeFuncs))
	f.Add([]byte("\x7fELF\x02\x01"))
	f.Fuzz(func(t *testing.T, img []byte) {
		syms, err := gdbjit.FuncSymbols(img)
		if err != nil && len(syms) > 0 {
			t.Fatalf("symbols and an error: %v", err)
		}
		for _, s := range syms {
			if s.Size == 0 || s.Name == "" {
				t.Fatalf("an empty symbol: %+v", s)
			}
		}
	})
}
