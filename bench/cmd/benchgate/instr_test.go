package main

import (
	"testing"

	"github.com/orcgo/orcrt/bench/internal/benchdata"
)

func TestParseGateSet(t *testing.T) {
	gs, err := parseGateSet([]byte(`# comment
reason: first
time ./bench/spsbench ^BenchmarkSPS$
allocs bench/allocbench ^BenchmarkMemoryManager$
instr ./bench/spsbench ^BenchmarkSPS$/^op=decode$ 5000
instr ./bench/wirebench ^BenchmarkRoundTrip$ 2000 8%
exec ./cmd/orcrt-executor Start/input=eof ORCRT_LLVM=22 filedescs=0,1
instr:arm64 ./bench/spsbench ^BenchmarkSPS$/^op=decode$ 50000
exec:arm64 ./cmd/orcrt-executor Start/input=eof filedescs=0,1 10%
`), "gate.txt")
	if err != nil {
		t.Fatal(err)
	}
	if gs.reason != "first" || len(gs.entries) != 7 {
		t.Fatalf("reason %q, %d entries; want first, 7", gs.reason, len(gs.entries))
	}
	if e := gs.entries[5]; e.kind != kindInstr || e.arch != archARM64 || e.n != 50000 || e.String() != "instr:arm64 ./bench/spsbench ^BenchmarkSPS$/^op=decode$ 50000" {
		t.Errorf("entry 6 = %+v (%s)", e, e)
	}
	if e := gs.entries[6]; e.kind != kindExec || e.arch != archARM64 || e.threshold != 0.1 || len(e.args) != 1 ||
		figureName(e, e.bench) != "orcrt-executor:Start/input=eof/goarch=arm64" || e.String() != "exec:arm64 ./cmd/orcrt-executor Start/input=eof filedescs=0,1 10%" {
		t.Errorf("entry 7 = %+v (%s)", e, e)
	}
	if e := gs.entries[3]; e.threshold != 0.08 || e.String() != "instr ./bench/wirebench ^BenchmarkRoundTrip$ 2000 8%" {
		t.Errorf("entry 4 = %+v (%s)", e, e)
	}
	if e := gs.entries[1]; e.kind != kindAllocs || e.dir != "./bench/allocbench" {
		t.Errorf("entry 2 = %+v", e)
	}
	if e := gs.entries[2]; e.kind != kindInstr || e.n != 5000 {
		t.Errorf("entry 3 = %+v", e)
	}
	if e := gs.entries[4]; e.kind != kindExec || e.bench != "Start/input=eof" || e.String() != "exec ./cmd/orcrt-executor Start/input=eof ORCRT_LLVM=22 filedescs=0,1" {
		t.Errorf("entry 5 = %+v (%s)", e, e)
	}
	if env, args := execEnv(gs.entries[4].args); len(env) != 1 || env[0] != "ORCRT_LLVM=22" || len(args) != 1 || args[0] != "filedescs=0,1" {
		t.Errorf("execEnv = %q, %q", env, args)
	}
	for _, bad := range []string{
		"time ./bench/x ^B$\n",                  // no reason
		"reason: r\nspeed ./bench/x ^B$\n",      // unknown kind
		"reason: r\ninstr ./bench/x ^B$\n",      // instr without N
		"reason: r\ninstr ./bench/x ^B$ zero\n", // bad N
		"reason: r\ntime ./bench/x ^B$ 10\n",    // time with N
		"reason: r\ntime ./bench/x\n",           // no regexp
		"reason: r\ntime ./bench/x ^(B$\n",      // bad regexp
		"reason: r\ntime:arm64 ./bench/x ^B$\n", // arch on a time entry
		"reason: r\ninstr:riscv64 ./bench/x ^B$ 1\n",
	} {
		if _, err := parseGateSet([]byte(bad), "gate.txt"); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

// TestDropped: a change that shrinks the gated set must renew its reason.
func TestDropped(t *testing.T) {
	parse := func(s string) *gateSet {
		gs, err := parseGateSet([]byte(s), "gate.txt")
		if err != nil {
			t.Fatal(err)
		}
		return gs
	}
	base := parse("reason: a\ntime ./bench/x ^B$\ninstr ./bench/x ^C$ 10\n")
	if gone, err := dropped(base, parse("reason: a\ntime ./bench/x ^B$\ninstr ./bench/x ^C$ 10\ntime ./bench/y ^D$\n")); err != nil || len(gone) != 0 {
		t.Errorf("an added entry: %v, %v", gone, err)
	}
	if gone, err := dropped(base, parse("reason: a\ntime ./bench/x ^B$\n")); err == nil || len(gone) != 1 {
		t.Errorf("a dropped entry with the old reason: %v, %v; want a failure", gone, err)
	}
	if gone, err := dropped(base, parse("reason: C is gated by D now\ntime ./bench/x ^B$\n")); err != nil || len(gone) != 1 {
		t.Errorf("a dropped entry with a new reason: %v, %v", gone, err)
	}
}

func TestParseIRefs(t *testing.T) {
	v, err := parseIRefs("==1== \n==1== I   refs:      28,897,199\n")
	if err != nil || v != 28897199 {
		t.Errorf("parseIRefs = %v, %v", v, err)
	}
	if _, err := parseIRefs("no summary"); err == nil {
		t.Error("accepted output without a summary")
	}
}

// TestInstrCreep: five commits, each 4% more instructions on one figure,
// pass against their parents (within 5%) but fail against the stored
// baseline from the second on.
func TestInstrCreep(t *testing.T) {
	c := &config{instrThreshold: 0.05}
	stored := &benchdata.InstrBaseline{Reason: "r", PerOp: map[string]float64{"spsbench:SPS": 2000}}
	prev := 2000.0
	firstFail := 0
	for commit := 1; commit <= 5; commit++ {
		head := prev * 1.04
		if n := instrVerdicts(c, []instrResult{{name: "spsbench:SPS", base: prev, head: head}}, stored, stored); n > 0 && firstFail == 0 {
			firstFail = commit
		}
		prev = head
	}
	if firstFail == 0 || firstFail > 5 {
		t.Fatalf("five +4%% commits never failed")
	}
	if firstFail != 2 {
		t.Errorf("first failure at commit %d, want 2 (+8.2%% over the stored baseline)", firstFail)
	}
}

// TestInstrVerdictsOtherCPU: without a stored baseline (recorded on a
// CPU presented otherwise) only the base comparison judges.
func TestInstrVerdictsOtherCPU(t *testing.T) {
	c := &config{instrThreshold: 0.05}
	if n := instrVerdicts(c, []instrResult{{name: "p:A", base: 100, head: 104}, {name: "p:New", head: 9}}, nil, nil); n != 0 {
		t.Errorf("+4%% and a new figure: %d failures, want 0", n)
	}
	if n := instrVerdicts(c, []instrResult{{name: "p:A", base: 100, head: 110}}, nil, nil); n != 1 {
		t.Errorf("+10%% over the base: %d failures, want 1", n)
	}
}

func TestParseQemuinsn(t *testing.T) {
	if v, err := parseQemuinsn("instructions: 1234\n"); err != nil || v != 1234 {
		t.Errorf("parseQemuinsn = %v, %v", v, err)
	}
	for _, bad := range []string{"", "instructions: x", "I refs: 5"} {
		if _, err := parseQemuinsn(bad); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestInstrVerdicts(t *testing.T) {
	c := &config{instrThreshold: 0.05}
	stored := &benchdata.InstrBaseline{Reason: "r", PerOp: map[string]float64{"p:A": 100, "p:Gone": 50}}
	res := []instrResult{{name: "p:A", base: 100, head: 104}}
	if n := instrVerdicts(c, res, stored, stored); n != 1 {
		t.Errorf("a benchmark in the baseline that is no longer measured: %d failures, want 1", n)
	}
	renewed := &benchdata.InstrBaseline{Reason: "Gone was renamed A2", PerOp: stored.PerOp}
	if n := instrVerdicts(c, res, renewed, stored); n != 0 {
		t.Errorf("the same with a re-recorded baseline: %d failures, want 0", n)
	}
	if n := instrVerdicts(c, []instrResult{{name: "p:A", base: 100, head: 110}, {name: "p:Gone", base: 50, head: 50}}, stored, stored); n != 1 {
		t.Errorf("+10%% over base and stored: %d failures, want 1", n)
	}
	if n := instrVerdicts(c, []instrResult{{name: "p:A", base: 100, head: 107, threshold: 0.08}, {name: "p:Gone", base: 50, head: 50}}, stored, stored); n != 0 {
		t.Errorf("+7%% with the entry's own 8%% threshold: %d failures, want 0", n)
	}
	if n := instrVerdicts(c, []instrResult{{name: "p:A", base: 100, head: 100}, {name: "p:Gone", base: 50, head: 50}, {name: "p:New", head: 9}}, stored, stored); n != 1 {
		t.Errorf("a new benchmark missing from the baseline: %d failures, want 1", n)
	}
}
