package benchdata

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
)

// InstrUnit is the unit of instruction counts in benchmark files
// (benchgate -measure-instr writes it; benchsum judges it).
const InstrUnit = "instructions/op"

// InstrBaseline is the stored instruction baseline
// (profiles/instructions-$GOARCH.txt): instructions per operation of the
// gated instr entries, keyed as Key.String prints them, with why, by
// which Go release and on which CPU (as the counting tool presents it)
// it was recorded.
type InstrBaseline struct {
	Reason    string
	GoVersion string
	CPU       string // "" in a baseline recorded before the line existed
	PerOp     map[string]float64
}

// ReadInstrBaseline reads and parses a stored baseline.
func ReadInstrBaseline(path string) (*InstrBaseline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("benchdata: %w", err)
	}
	return ParseInstrBaseline(data, path)
}

// ParseInstrBaseline parses a stored baseline; name is for errors.
func ParseInstrBaseline(data []byte, name string) (*InstrBaseline, error) {
	b := &InstrBaseline{PerOp: map[string]float64{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for ln := 1; sc.Scan(); ln++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "reason:"):
			b.Reason = strings.TrimSpace(strings.TrimPrefix(line, "reason:"))
		case strings.HasPrefix(line, "go:"):
			b.GoVersion = strings.TrimSpace(strings.TrimPrefix(line, "go:"))
		case strings.HasPrefix(line, "cpu:"):
			b.CPU = strings.TrimSpace(strings.TrimPrefix(line, "cpu:"))
		default:
			f := strings.Fields(line)
			if len(f) != 2 {
				return nil, fmt.Errorf("benchdata: %s:%d: want NAME INSTRUCTIONS-PER-OP: %q", name, ln, line)
			}
			v, err := strconv.ParseFloat(f[1], 64)
			if err != nil || v <= 0 {
				return nil, fmt.Errorf("benchdata: %s:%d: bad count %q", name, ln, f[1])
			}
			b.PerOp[f[0]] = v
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("benchdata: %s: %w", name, err)
	}
	if b.Reason == "" || b.GoVersion == "" {
		return nil, fmt.Errorf("benchdata: %s: needs \"reason:\" and \"go:\" lines", name)
	}
	return b, nil
}

// Write stores the baseline at path.
func (b *InstrBaseline) Write(path string) error {
	var w bytes.Buffer
	fmt.Fprintf(&w, "# Instructions per operation of the gated instr entries (bench/gate.txt),\n")
	fmt.Fprintf(&w, "# counted by cachegrind (amd64) or qemuinsn (arm64); recorded by\n# `make bench-instr-baseline REASON=...`.\n")
	fmt.Fprintf(&w, "# The gate and `make bench` fail when the head runs more than its\n")
	fmt.Fprintf(&w, "# threshold above these.\n")
	fmt.Fprintf(&w, "reason: %s\ngo: %s\n", b.Reason, b.GoVersion)
	if b.CPU != "" {
		fmt.Fprintf(&w, "cpu: %s\n", b.CPU)
	}
	names := make([]string, 0, len(b.PerOp))
	for n := range b.PerOp {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&w, "%s %.0f\n", n, b.PerOp[n])
	}
	if err := os.WriteFile(path, w.Bytes(), 0o644); err != nil {
		return fmt.Errorf("benchdata: %w", err)
	}
	return nil
}
