// Command corpus converts between go test's fuzz corpus files and the raw
// input files libFuzzer reads and writes, for the targets that also run
// under libFuzzer (.ci/fuzz-libfuzzer.sh, fuzz/oss-fuzz/build.sh). Run it
// from the module's root:
//
//	go run ./fuzz/internal/corpus seeds FuzzX DIR
//	go run ./fuzz/internal/corpus import FuzzX FILE...
//	go run ./fuzz/internal/corpus targets
//
// seeds writes FuzzX's seed corpus into DIR, one raw file per input: the
// seeds the native target adds (f.Add), named seed-N, and each file of
// testdata/fuzz/FuzzX/ beside the target's package, under its own name.
// A DIR ending in .zip is written as a zip archive of those files
// (OSS-Fuzz's FuzzX_seed_corpus.zip).
// import writes each raw FILE (a crasher libFuzzer found) into
// testdata/fuzz/FuzzX/ in go test's format, named as go test names the
// inputs it finds (the first 16 hex digits of its SHA-256), where it runs
// as a regression input with plain go test, and prints the path.
// targets prints each target's name and its libFuzzer shim's package.
package main

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/orcgo/orcrt/fuzz/spsfuzz"
	"github.com/orcgo/orcrt/fuzz/wirefuzz"
)

// header is the first line of go test's corpus files.
const header = "go test fuzz v1\n"

type targetInfo struct {
	name, dir string // package directory, from the module's root
	seeds     func() ([][]byte, error)
}

// shim is the directory of t's libFuzzer shim under t.dir: libfuzzer, or
// llvmoracle for FuzzLLVM (whose shim links LLVM's C++ as the oracle).
func (t targetInfo) shim() string {
	if t.name == "FuzzLLVM" {
		return "llvmoracle"
	}
	return "libfuzzer"
}

func spsSeeds() ([][]byte, error)  { return spsfuzz.Seeds("fuzz/spsfuzz") }
func wireSeeds() ([][]byte, error) { return wirefuzz.Seeds(), nil }

// targets: every target with a libFuzzer shim (dir/libfuzzer, or
// dir/llvmoracle: see shim).
var targets = []targetInfo{
	{"FuzzDecode", "fuzz/spsfuzz", spsSeeds},
	{"FuzzRoundTrip", "fuzz/spsfuzz", spsSeeds},
	{"FuzzDiff", "fuzz/spsfuzz", spsSeeds},
	{"FuzzFrames", "fuzz/wirefuzz", wireSeeds},
	{"FuzzReader", "fuzz/wirefuzz", wireSeeds},
	{"FuzzLLVM", "fuzz/spsfuzz", spsSeeds},
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "corpus:", err)
		os.Exit(1)
	}
}

func usage() error {
	return errors.New("usage: corpus seeds FuzzX DIR | import FuzzX FILE... | targets")
}

func run(args []string) error {
	if len(args) == 1 && args[0] == "targets" {
		for _, t := range targets {
			fmt.Printf("%s ./%s/%s\n", t.name, t.dir, t.shim())
		}
		return nil
	}
	if len(args) < 3 {
		return usage()
	}
	var t *targetInfo
	for i := range targets {
		if targets[i].name == args[1] {
			t = &targets[i]
		}
	}
	if t == nil {
		return fmt.Errorf("no libFuzzer target %s", args[1])
	}
	switch args[0] {
	case "seeds":
		if len(args) != 3 {
			return usage()
		}
		return writeSeeds(*t, args[2])
	case "import":
		for _, f := range args[2:] {
			b, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			p, err := importInput(*t, b)
			if err != nil {
				return err
			}
			fmt.Println(p)
		}
		return nil
	}
	return usage()
}

func writeSeeds(t targetInfo, out string) (err error) {
	var write func(name string, b []byte) error
	if strings.HasSuffix(out, ".zip") {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		z := zip.NewWriter(f)
		defer func() {
			if cerr := z.Close(); err == nil {
				err = cerr
			}
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}()
		write = func(name string, b []byte) error {
			w, err := z.Create(name)
			if err == nil {
				_, err = w.Write(b)
			}
			return err
		}
	} else {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
		write = func(name string, b []byte) error { return os.WriteFile(filepath.Join(out, name), b, 0o644) }
	}
	seeds, err := t.seeds()
	if err != nil {
		return err
	}
	for i, b := range seeds {
		if err := write(fmt.Sprintf("seed-%04d", i), b); err != nil {
			return err
		}
	}
	dir := filepath.Join(t.dir, "testdata", "fuzz", t.name)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		b, err := Unmarshal(src)
		if err != nil {
			return fmt.Errorf("%s: %v", filepath.Join(dir, e.Name()), err)
		}
		if err := write(e.Name(), b); err != nil {
			return err
		}
	}
	return nil
}

// importInput writes b into t's testdata/fuzz/FuzzX/ and returns the path.
func importInput(t targetInfo, b []byte) (string, error) {
	dir := filepath.Join(t.dir, "testdata", "fuzz", t.name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	p := filepath.Join(dir, fmt.Sprintf("%x", sum)[:16])
	return p, os.WriteFile(p, Marshal(b), 0o644)
}

// Marshal is b as go test's corpus file of one []byte value.
func Marshal(b []byte) []byte {
	return fmt.Appendf([]byte(header), "[]byte(%q)\n", b)
}

// Unmarshal is the []byte value of a go test corpus file of one []byte
// value (a "[]byte(...)" of a string literal).
func Unmarshal(src []byte) ([]byte, error) {
	rest, ok := bytes.CutPrefix(src, []byte(header))
	if !ok {
		return nil, errors.New("not a go test fuzz v1 file")
	}
	line := strings.TrimSpace(string(rest))
	if line == "" || strings.Contains(line, "\n") {
		return nil, errors.New("not exactly one value")
	}
	e, err := parser.ParseExpr(line)
	if err != nil {
		return nil, err
	}
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return nil, fmt.Errorf("%q is not a []byte", line)
	}
	if at, ok := call.Fun.(*ast.ArrayType); !ok || at.Len != nil || !isByte(at.Elt) {
		return nil, fmt.Errorf("%q is not a []byte", line)
	}
	lit, ok := call.Args[0].(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return nil, fmt.Errorf("%q is not a []byte of a string literal", line)
	}
	s, err := strconv.Unquote(lit.Value)
	return []byte(s), err
}

func isByte(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && (id.Name == "byte" || id.Name == "uint8")
}
