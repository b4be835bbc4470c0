package layers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/orcgo/orcrt"

type pkg struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
}

// local returns path below the module ("rt/simpleremote") and its top
// folder ("rt"); ok is false for a path outside the module.
func local(path string) (rel, top string, ok bool) {
	rel, ok = strings.CutPrefix(path, module+"/")
	if !ok {
		return "", "", false
	}
	top, _, _ = strings.Cut(rel, "/")
	return rel, top, true
}

// check returns every violation of the rule in pkgs against the ranks:
// an import of a higher top folder, a package of a folder with inner
// ranks that has none, an import of a higher package in the same folder.
func check(pkgs []pkg, rank map[string]int, inner map[string]map[string]int) []string {
	var bad []string
	for _, p := range pkgs {
		rel, top, _ := local(p.ImportPath)
		r, ok := rank[top]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is in folder %q, which has no layer in Rank", p.ImportPath, top))
			continue
		}
		in := inner[top]
		ir, iok := in[rel]
		if in != nil && !iok {
			bad = append(bad, fmt.Sprintf("%s has no rank in InnerRank[%q]", p.ImportPath, top))
		}
		for _, list := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
			for _, imp := range list {
				irel, itop, ours := local(imp)
				switch {
				case !ours || irel == rel:
				case itop != top:
					if ir2, ok := rank[itop]; !ok || ir2 > r {
						bad = append(bad, fmt.Sprintf("%s (layer %s, %d) imports %s (layer %s, %d): an import may not run up", p.ImportPath, top, r, imp, itop, ir2))
					}
				case in != nil && iok:
					if ir2, ok := in[irel]; ok && ir2 > ir {
						bad = append(bad, fmt.Sprintf("%s (%s rank %d) imports %s (%s rank %d): an import may not run up", p.ImportPath, top, ir, imp, top, ir2))
					}
				}
			}
		}
	}
	return bad
}

// checkAllowed returns every import of a package listed in allowed that
// its list does not name.
func checkAllowed(pkgs []pkg, allowed map[string][]string) []string {
	var bad []string
	for _, p := range pkgs {
		rel, _, _ := local(p.ImportPath)
		list, ok := allowed[rel]
		if !ok {
			continue
		}
		for _, imp := range p.Imports {
			irel, _, ours := local(imp)
			if ours && !slices.ContainsFunc(list, func(a string) bool {
				base, tree := strings.CutSuffix(a, "/...")
				return irel == base || tree && strings.HasPrefix(irel, base+"/")
			}) {
				bad = append(bad, fmt.Sprintf("%s imports %s, which Allowed[%q] does not list", p.ImportPath, imp, rel))
			}
		}
	}
	return bad
}

func TestCheckAllowed(t *testing.T) {
	m := func(path string) string { return module + "/" + path }
	allowed := map[string][]string{"top": {"low", "top/..."}}
	for _, tc := range []struct {
		name string
		p    pkg
		bad  int
	}{
		{"listed", pkg{ImportPath: m("top"), Imports: []string{m("low"), m("top/internal/x"), "fmt"}}, 0},
		{"not listed", pkg{ImportPath: m("top"), Imports: []string{m("low/wire"), m("mid")}}, 2},
		{"a test's import", pkg{ImportPath: m("top"), TestImports: []string{m("mid")}}, 0},
		{"a package without a list", pkg{ImportPath: m("other"), Imports: []string{m("mid")}}, 0},
	} {
		if got := checkAllowed([]pkg{tc.p}, allowed); len(got) != tc.bad {
			t.Errorf("%s: %d violations, want %d: %q", tc.name, len(got), tc.bad, got)
		}
	}
}

func TestCheck(t *testing.T) {
	rank := map[string]int{"low": 0, "high": 1}
	inner := map[string]map[string]int{"high": {"high/base": 0, "high": 1, "high/top": 2}}
	p := func(path string, imports ...string) pkg {
		return pkg{ImportPath: module + "/" + path, Imports: imports}
	}
	xtest := func(path string, imports ...string) pkg {
		return pkg{ImportPath: module + "/" + path, XTestImports: imports}
	}
	m := func(path string) string { return module + "/" + path }
	for _, tc := range []struct {
		name string
		pkgs []pkg
		bad  int
	}{
		{"down a layer", []pkg{p("high", m("low"), "fmt")}, 0},
		{"up a layer", []pkg{p("low", m("high"))}, 1},
		{"up a layer from a test", []pkg{xtest("low", m("high/top"))}, 1},
		{"unranked folder", []pkg{p("nowhere")}, 1},
		{"down inside a folder", []pkg{p("high/top", m("high"), m("high/base"))}, 0},
		{"same inner rank", []pkg{p("high", m("high"))}, 0},
		{"up inside a folder", []pkg{p("high", m("high/top"))}, 1},
		{"up inside a folder from a test", []pkg{xtest("high/base", m("high"))}, 1},
		{"unranked inside a ranked folder", []pkg{p("high/new", m("high"))}, 1},
		{"a folder without inner ranks", []pkg{p("low/a", m("low/b")), p("low/b", m("low/a"))}, 0},
	} {
		if got := check(tc.pkgs, rank, inner); len(got) != tc.bad {
			t.Errorf("%s: %d violations, want %d: %q", tc.name, len(got), tc.bad, got)
		}
	}
}

func TestLayers(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("layers: no go command on PATH")
	}
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,TestImports,XTestImports", module+"/...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("layers: go list: %v", err)
	}
	dec := json.NewDecoder(bufio.NewReader(bytes.NewReader(out)))
	var pkgs []pkg
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("layers: decoding go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("layers: go list found only %d packages", len(pkgs))
	}
	for _, b := range check(pkgs, Rank, InnerRank) {
		t.Error("layers: " + b)
	}
	for _, b := range checkAllowed(pkgs, Allowed) {
		t.Error("layers: " + b)
	}
	// Every inner rank names a package that exists.
	seen := map[string]bool{}
	for _, p := range pkgs {
		rel, _, _ := local(p.ImportPath)
		seen[rel] = true
	}
	for top, in := range InnerRank {
		for rel := range in {
			if !seen[rel] {
				t.Errorf("layers: InnerRank[%q] ranks %s, which is no package", top, rel)
			}
		}
	}
}
