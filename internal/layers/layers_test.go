package layers

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/orcgo/orcrt"

type pkg struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
}

func folder(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return "", false
	}
	top, _, _ := strings.Cut(rest, "/")
	return top, true
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
	n := 0
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("layers: decoding go list output: %v", err)
		}
		n++
		top, _ := folder(p.ImportPath)
		rank, ok := Rank[top]
		if !ok {
			t.Errorf("layers: %s is in folder %q, which has no layer in Rank", p.ImportPath, top)
			continue
		}
		for _, list := range [][]string{p.Imports, p.TestImports, p.XTestImports} {
			for _, imp := range list {
				itop, ours := folder(imp)
				if !ours || itop == top {
					continue
				}
				if irank, ok := Rank[itop]; !ok || irank > rank {
					t.Errorf("layers: %s (layer %s, %d) imports %s (layer %s, %d): an import may not run up", p.ImportPath, top, rank, imp, itop, irank)
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("layers: go list found only %d packages", n)
	}
}
