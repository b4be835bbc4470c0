package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/orcgo/orcrt/bench/internal/benchdata"
)

// TestCommittedBaselinesMatchTargets: the committed data and the verdict
// agree on which figures exist (issue 41). Every target judged against
// the stored counts names a figure of profiles/instructions-*.txt, and
// every stored figure has such a target. A committed full run
// (profiles/baseline-amd64.txt, `make bench-baseline`; the targets are
// the amd64 suite's) holds every figure and anchor the other targets name.
func TestCommittedBaselinesMatchTargets(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	ts, err := readTargets(filepath.Join(root, "bench", "targets.txt"))
	if err != nil {
		t.Fatal(err)
	}
	paths, err := filepath.Glob(filepath.Join(root, "profiles", "instructions-*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no profiles/instructions-*.txt (%v)", err)
	}
	stored, err := readStored(paths)
	if err != nil {
		t.Fatal(err)
	}
	targeted := map[string]bool{}
	for _, tg := range ts {
		if tg.anchor != "stored" {
			continue
		}
		targeted[tg.figure] = true
		if _, ok := stored.PerOp[tg.figure]; !ok {
			t.Errorf("targets.txt:%d %s judges %s against the stored counts, which have no such figure (%v)", tg.line, tg.id, tg.figure, paths)
		}
	}
	for k := range stored.PerOp {
		if !targeted[k] {
			t.Errorf("%s, a stored count, has no target (anchor stored) in bench/targets.txt", k)
		}
	}

	full := filepath.Join(root, "profiles", "baseline-amd64.txt")
	if _, err := os.Stat(full); errors.Is(err, fs.ErrNotExist) {
		return
	}
	set, err := benchdata.Load(full)
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range ts {
		if tg.unit == "test" || tg.anchor == "stored" {
			continue
		}
		if !hasUnit(set, set.Match(tg.figure), tg.unit) {
			t.Errorf("targets.txt:%d %s: %s has no %s in %s", tg.line, tg.id, tg.figure, tg.unit, full)
		}
		if isRatio(tg.limit) && tg.anchor != "-" && !hasUnit(set, set.Match(tg.anchor), tg.unit) {
			t.Errorf("targets.txt:%d %s: its anchor %s has no %s in %s", tg.line, tg.id, tg.anchor, tg.unit, full)
		}
	}
}

func hasUnit(set *benchdata.Set, keys []benchdata.Key, unit string) bool {
	for _, k := range keys {
		if len(set.Samples[k][unit]) > 0 {
			return true
		}
	}
	return false
}
