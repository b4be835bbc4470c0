package apicheck

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"golang.org/x/exp/apidiff"
	"golang.org/x/mod/semver"
)

const module = "github.com/orcgo/orcrt"

var record = flag.String("record", "", "record the tree's API as release `vX.Y.Z` in api/ instead of checking it")

// TestAPI holds the tree's API to the last release's (package doc).
func TestAPI(t *testing.T) {
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skip("apicheck: the API is recorded on linux/amd64 (it type-checks with the host's cgo)")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("apicheck: no go command on PATH")
	}
	const root = "../.."
	start := time.Now()
	tree, err := loadTree(root, module)
	if err != nil {
		t.Fatal(err)
	}
	if *record != "" {
		if !semver.IsValid(*record) || semver.Canonical(*record) != *record {
			t.Fatalf("apicheck: -record %q: want a version like v0.2.0", *record)
		}
		if err := write(tree, filepath.Join(root, "api", *record)); err != nil {
			t.Fatal(err)
		}
		t.Logf("apicheck: recorded api/%s.export and .txt (%d packages)", *record, len(tree.mod.Packages))
		return
	}
	version, err := latest(filepath.Join(root, "api"))
	if err != nil {
		t.Fatal(err)
	}
	old, err := read(filepath.Join(root, "api", version))
	if err != nil {
		t.Fatal(err)
	}
	changelog, err := os.ReadFile(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	report := apidiff.ModuleChanges(old.mod, tree.mod)
	problems := judge(report, old.deprecated, version, string(changelog), module)
	var incompatible int
	for _, c := range report.Changes {
		if !c.Compatible {
			incompatible++
		}
	}
	t.Logf("apicheck: %d packages against %s: %d compatible changes, %d incompatible, %d not recorded as allowed (%v)",
		len(tree.mod.Packages), version, len(report.Changes)-incompatible, incompatible, len(problems), time.Since(start).Round(time.Millisecond))
	for _, p := range problems {
		t.Error(p)
	}
}

// latest returns the newest release recorded in dir ("v0.1.0").
func latest(dir string) (string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "v*.export"))
	if err != nil || len(files) == 0 {
		return "", fmt.Errorf("apicheck: no recorded API (%s/v*.export): %v", dir, err)
	}
	var best string
	for _, f := range files {
		v := strings.TrimSuffix(filepath.Base(f), ".export")
		if semver.IsValid(v) && (best == "" || semver.Compare(v, best) > 0) {
			best = v
		}
	}
	if best == "" {
		return "", fmt.Errorf("apicheck: no versioned file among %v", files)
	}
	return best, nil
}

// judge returns why report's incompatible changes since release version
// are not allowed: each must be named, in backquotes, in changelog's
// section of the next minor version ("## [0.2.0]"), and a removed name
// must be one deprecated (itself, its type or its package).
func judge(report apidiff.Report, deprecated map[string]bool, version, changelog, mod string) []string {
	next := ""
	if semver.Major(version) == "v0" {
		next = fmt.Sprintf("0.%d.0", minor(version)+1)
	}
	section, hasSection := changelogSection(changelog, next)
	var problems []string
	for _, c := range report.Changes {
		if c.Compatible {
			continue
		}
		key, msg, _ := strings.Cut(c.Message, ": ")
		key, _, _ = strings.Cut(key, ", method set of ")
		name, mention := norm(key), ""
		if path, ok := strings.CutPrefix(key, "package "); ok {
			name, mention = norm(packageName(mod, path)), path
		} else {
			mention = name
		}
		switch {
		case next == "":
			problems = append(problems, fmt.Sprintf("%s: incompatible since %s, and a v1 module may not break", c.Message, version))
			continue
		case !hasSection || !strings.Contains(section, "`"+mention+"`"):
			problems = append(problems, fmt.Sprintf("%s: incompatible since %s: CHANGELOG.md must name `%s` under \"## [%s]\" (a new minor version)", c.Message, version, mention, next))
		}
		if msg == "removed" && !deprecatedIn(deprecated, name) {
			problems = append(problems, fmt.Sprintf("%s: removed, but %s did not mark it deprecated: a name is marked \"Deprecated:\" for a release before it goes", c.Message, version))
		}
	}
	return problems
}

// minor returns the minor number of a valid version.
func minor(v string) int {
	var n int
	fmt.Sscanf(strings.TrimPrefix(semver.MajorMinor(v), semver.Major(v)+"."), "%d", &n)
	return n
}

// changelogSection returns the text under the heading "## [version]"
// (anything may follow the bracket: a date, "- Unreleased").
func changelogSection(changelog, version string) (string, bool) {
	if version == "" {
		return "", false
	}
	var b strings.Builder
	in, found := false, false
	for l := range strings.SplitSeq(changelog, "\n") {
		if strings.HasPrefix(l, "## ") {
			in = strings.HasPrefix(l, "## ["+version+"]")
			found = found || in
			continue
		}
		if in {
			b.WriteString(l + "\n")
		}
	}
	return b.String(), found
}

// deprecatedIn reports whether name, its type or its package is in set.
func deprecatedIn(set map[string]bool, name string) bool {
	for {
		if set[name] {
			return true
		}
		i := strings.LastIndexByte(name, '.')
		if i < 0 || strings.LastIndexByte(name, '/') > i {
			return false
		}
		name = name[:i]
	}
}
