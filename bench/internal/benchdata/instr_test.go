package benchdata

import (
	"path/filepath"
	"testing"
)

func TestInstrBaselineRoundTrip(t *testing.T) {
	p := filepath.Join(t.TempDir(), "instructions.txt")
	in := &InstrBaseline{Reason: "why", GoVersion: "go1.26.8", CPU: "Intel(R) Core(TM) i7-4910MQ: avx avx2 erms", PerOp: map[string]float64{"spsbench:SPS/op=decode": 2126, "a:B": 7}}
	if err := in.Write(p); err != nil {
		t.Fatal(err)
	}
	out, err := ReadInstrBaseline(p)
	if err != nil {
		t.Fatal(err)
	}
	if out.Reason != in.Reason || out.GoVersion != in.GoVersion || out.CPU != in.CPU || len(out.PerOp) != 2 || out.PerOp["spsbench:SPS/op=decode"] != 2126 {
		t.Errorf("read back %+v", out)
	}
	if _, err := ParseInstrBaseline([]byte("a:B 7\n"), "x"); err == nil {
		t.Error("accepted a baseline without reason and go lines")
	}
}
