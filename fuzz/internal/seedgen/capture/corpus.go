package capture

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Seed is one fuzz input taken from a session.
type Seed struct {
	Session string // llvmN-PROGRAM: the file is named SESSION-NNNN
	Data    []byte
}

// MaxPayload bounds the SPS payloads taken as seeds: the engine mutates
// small inputs far better than large ones.
const MaxPayload = 16 << 10

// generated matches the names WriteCorpus gives, capturing the release.
var generated = regexp.MustCompile(`^llvm(\d+)-.+-\d{4}$`)

// CorpusFile encodes data as a one-argument []byte corpus file, exactly
// as package testing writes one.
func CorpusFile(data []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", data)
}

// WriteCorpus replaces the seeds of the given releases in dir (a
// testdata/fuzz/FuzzX directory) with seeds, dropping duplicate
// contents, and returns how many files and bytes it wrote.
func WriteCorpus(dir string, releases []int, seeds []Seed) (n, size int, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, 0, err
	}
	old, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, err
	}
	for _, e := range old {
		m := generated.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		for _, r := range releases {
			if m[1] == fmt.Sprint(r) {
				if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
					return 0, 0, err
				}
			}
		}
	}
	seen := map[string]bool{}
	next := map[string]int{}
	for _, s := range seeds {
		if seen[string(s.Data)] || !strings.HasPrefix(s.Session, "llvm") {
			continue
		}
		seen[string(s.Data)] = true
		next[s.Session]++
		f := CorpusFile(s.Data)
		name := fmt.Sprintf("%s-%04d", s.Session, next[s.Session])
		if err := os.WriteFile(filepath.Join(dir, name), f, 0o644); err != nil {
			return n, size, err
		}
		n++
		size += len(f)
	}
	return n, size, nil
}

// Releases returns the releases of sessions, each once, in order.
func Releases(ss []*Session) []int {
	var rs []int
	for _, s := range ss {
		if !slices.Contains(rs, s.Release) {
			rs = append(rs, s.Release)
		}
	}
	return rs
}
