package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// Kinds of gated entries (bench/gate.txt).
const (
	kindTime   = "time"   // ns/op (U test, threshold, confirmation), allocs/op, B/op
	kindAllocs = "allocs" // allocs/op and B/op; ns/op reported only
	kindInstr  = "instr"  // instructions per op under cachegrind
	kindExec   = "exec"   // instructions of a whole run of a command under cachegrind

	// archARM64 is the one arch suffix a kind takes (instr:arm64,
	// exec:arm64): the entry built for linux/arm64 and counted under
	// qemu-aarch64 with the qemuinsn plugin, not under cachegrind.
	archARM64 = "arm64"
)

// gateEntry is one line of the gated set.
type gateEntry struct {
	kind  string
	arch  string   // "": the host's build under cachegrind; archARM64
	dir   string   // package directory, ./bench/spsbench
	bench string   // -bench expression
	n     int      // kindInstr: iterations of the shorter run
	args  []string // kindExec: the command's arguments (bench is the figure's name)
	// kindInstr, kindExec: the entry's own threshold (0: -instr-threshold), for a
	// figure whose count is less repeatable than most.
	threshold float64
}

func (e gateEntry) String() string {
	s := e.kind
	if e.arch != "" {
		s += ":" + e.arch
	}
	s += " " + e.dir + " " + e.bench
	if e.kind == kindExec {
		s += " " + strings.Join(e.args, " ")
	}
	if e.kind == kindInstr {
		s += " " + strconv.Itoa(e.n)
	}
	if e.threshold != 0 {
		s += " " + strconv.FormatFloat(e.threshold*100, 'g', -1, 64) + "%"
	}
	return s
}

// gateSet is the parsed gated-set file.
type gateSet struct {
	entries []gateEntry
	reason  string // the "reason:" line, which a change that drops an entry must renew
}

// thresholdToken is an exec entry's last token when it is the entry's
// own threshold rather than an argument of the command.
var thresholdToken = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?%$`)

// parseGateSet reads a gated-set file: "#" comments, one "reason: ..."
// line, and entries "KIND[:arm64] PKGDIR REGEXP [N [THRESHOLD]]".
func parseGateSet(data []byte, name string) (*gateSet, error) {
	gs := &gateSet{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if r, ok := strings.CutPrefix(line, "reason:"); ok {
			gs.reason = strings.TrimSpace(r)
			continue
		}
		f := strings.Fields(line)
		bad := func(why string) error { return fmt.Errorf("%s:%d: %s: %q", name, ln, why, line) }
		if len(f) < 3 {
			return nil, bad("want KIND PKGDIR REGEXP [N]")
		}
		e := gateEntry{dir: "./" + filepath.ToSlash(filepath.Clean(f[1])), bench: f[2]}
		e.kind, e.arch, _ = strings.Cut(f[0], ":")
		if _, err := regexp.Compile(strings.ReplaceAll(e.bench, "/", "")); err != nil {
			return nil, bad("bad regexp: " + err.Error())
		}
		if e.arch != "" && (e.arch != archARM64 || (e.kind != kindInstr && e.kind != kindExec)) {
			return nil, bad("only instr and exec entries take an arch, and only :" + archARM64)
		}
		switch e.kind {
		case kindTime, kindAllocs:
			if len(f) != 3 {
				return nil, bad("a " + e.kind + " entry takes no N")
			}
		case kindInstr:
			if len(f) != 4 && len(f) != 5 {
				return nil, bad("an instr entry needs N, the iterations of its shorter run, and may give its threshold")
			}
			n, err := strconv.Atoi(f[3])
			if err != nil || n < 1 {
				return nil, bad("N must be a positive integer")
			}
			e.n = n
			if len(f) == 5 {
				t, err := parseThreshold("threshold", f[4])
				if err != nil || t == 0 {
					return nil, bad("bad threshold (e.g. 8%)")
				}
				e.threshold = t
			}
		case kindExec:
			e.args = f[3:]
			if n := len(e.args); n > 0 && thresholdToken.MatchString(e.args[n-1]) {
				t, err := parseThreshold("threshold", e.args[n-1])
				if err != nil || t == 0 {
					return nil, bad("bad threshold (e.g. 8%)")
				}
				e.threshold, e.args = t, e.args[:n-1]
			}
		default:
			return nil, bad("unknown kind " + strconv.Quote(e.kind) + " (time, allocs, instr or exec)")
		}
		gs.entries = append(gs.entries, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if gs.reason == "" {
		return nil, fmt.Errorf("%s: no \"reason:\" line (the last change's reason for the set)", name)
	}
	return gs, nil
}

func loadGateSet(path string) (*gateSet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return parseGateSet(b, path)
}

// dropped returns the entries of base that head no longer has, and an
// error unless head gives a new reason for the change.
func dropped(base, head *gateSet) ([]gateEntry, error) {
	have := map[string]bool{}
	for _, e := range head.entries {
		have[e.String()] = true
	}
	var gone []gateEntry
	for _, e := range base.entries {
		if !have[e.String()] {
			gone = append(gone, e)
		}
	}
	if len(gone) > 0 && head.reason == base.reason {
		return gone, errors.New("the gated set lost entries without a new \"reason:\" line")
	}
	return gone, nil
}
