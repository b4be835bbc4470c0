package apicheck

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/exp/apidiff"
)

const testMod = "example.com/m"

// testAPI type-checks one source file per package of testMod.
func testAPI(t *testing.T, srcs map[string]string) *api {
	t.Helper()
	a := &api{mod: &apidiff.Module{Path: testMod}, deprecated: map[string]bool{}}
	for path, src := range srcs {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path+".go", src, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
		pkg, err := (&types.Config{Importer: importer.Default()}).Check(testMod+"/"+path, fset, []*ast.File{f}, info)
		if err != nil {
			t.Fatal(err)
		}
		a.mod.Packages = append(a.mod.Packages, pkg)
		markDeprecated(a.deprecated, testMod, pkg, []*ast.File{f}, info)
	}
	return a
}

const oldP = `package p

func F() {}

// G goes.
//
// Deprecated: use F.
func G() {}

func H() {}

func Sig(int) {}

type T struct {
	A int
	// Deprecated: use A.
	B int
}

// Deprecated: use T.
type U struct{ X int }

func (U) M() {}

type Gen[E any] struct{}

// Deprecated: gone soon.
func (*Gen[E]) Old() {}
`

const oldQ = `// Package q is on its way out.
//
// Deprecated: use p.
package q

func Q() {}
`

func TestRules(t *testing.T) {
	old := testAPI(t, map[string]string{"p": oldP, "q": oldQ})
	// The old side goes through the recorded files, as in TestAPI.
	file := filepath.Join(t.TempDir(), "v0.1.0")
	if err := write(old, file); err != nil {
		t.Fatal(err)
	}
	old, err := read(file)
	if err != nil {
		t.Fatal(err)
	}
	const unreleased = "## [Unreleased]\n\n### Removed\n- `p.G`, `p.H`, `p.Sig`, `p.T.B`, `p.U.M`, `p.Gen.Old`, `example.com/m/q`\n"
	const next = "## [0.2.0] - Unreleased\n\n### Removed\n- `p.G`, `p.H`, `p.Sig`, `p.T.B`, `p.U.M`, `p.Gen.Old`, `example.com/m/q`\n"
	const patch = "## [0.1.1] - 2026-12-06\n\n### Removed\n- `p.G`\n"
	for _, tc := range []struct {
		name, p, changelog string
		dropQ              bool
		problems           int
	}{
		{"additions and a new package", oldP + "func New() {}\n", "", false, 0},
		{"deprecated, removed, recorded", strings.Replace(oldP, "func G() {}", "", 1), next, false, 0},
		{"deprecated, removed, recorded only as unreleased", strings.Replace(oldP, "func G() {}", "", 1), unreleased, false, 1},
		{"deprecated, removed, recorded under a patch", strings.Replace(oldP, "func G() {}", "", 1), patch, false, 1},
		{"removed without a deprecation", strings.Replace(oldP, "func H() {}", "", 1), next, false, 1},
		{"removed without either", strings.Replace(oldP, "func H() {}", "", 1), "", false, 2},
		{"changed, recorded", strings.Replace(oldP, "Sig(int)", "Sig(int64)", 1), next, false, 0},
		{"changed, not recorded", strings.Replace(oldP, "Sig(int)", "Sig(int64)", 1), unreleased, false, 1},
		{"deprecated field", strings.Replace(oldP, "B int", "", 1), next, false, 0},
		{"method of a deprecated type", strings.Replace(oldP, "func (U) M() {}", "", 1), next, false, 0},
		{"deprecated method of a generic type", strings.Replace(oldP, "func (*Gen[E]) Old() {}", "", 1), next, false, 0},
		{"deprecated package", oldP, next, true, 0},
		{"deprecated package, not recorded", oldP, "", true, 1},
	} {
		srcs := map[string]string{"p": tc.p, "r": "package r\n\nfunc R() {}\n"}
		if !tc.dropQ {
			srcs["q"] = oldQ
		}
		report := apidiff.ModuleChanges(old.mod, testAPI(t, srcs).mod)
		if got := judge(report, old.deprecated, "v0.1.0", tc.changelog, testMod); len(got) != tc.problems {
			t.Errorf("%s: %d problems, want %d: %q\nreport: %v", tc.name, len(got), tc.problems, got, report)
		}
	}
}

func TestNorm(t *testing.T) {
	for in, want := range map[string]string{
		"./executor.(*Executor).Batch":         "executor.Executor.Batch",
		"./executor.(*Typed1[A, R]).CallHeld":  "executor.Typed1.CallHeld",
		"./rt/dialect.Dialect.NativeMemoryMap": "rt/dialect.Dialect.NativeMemoryMap",
	} {
		if got := norm(in); got != want {
			t.Errorf("norm(%q) = %q, want %q", in, got, want)
		}
	}
	set := map[string]bool{"rt/dialect": true, "executor.Executor": true}
	for name, want := range map[string]bool{
		"rt/dialect.Dialect.X":    true,
		"executor.Executor.Batch": true,
		"executor.Func.Batch":     false,
		"rt.Session":              false,
		"rt/dialectx.Dialect":     false,
	} {
		if got := deprecatedIn(set, name); got != want {
			t.Errorf("deprecatedIn(%q) = %v, want %v", name, got, want)
		}
	}
}
