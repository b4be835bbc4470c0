package benchdata

import (
	"strings"
	"testing"
)

const sample = `goos: linux
pkg: github.com/orcgo/orcrt/bench/keepalivebench
BenchmarkKeepalive/impl=orcrt/mode=serial         	1000	15.0 ns/op	0 B/op	0 allocs/op
BenchmarkKeepalive/impl=orcrt/mode=serial-2       	1000	16.0 ns/op	0 B/op	0 allocs/op
BenchmarkKeepalive/impl=orcrt/mode=serial-2       	1000	18.0 ns/op	0 B/op	0 allocs/op
pkg: github.com/orcgo/orcrt/bench/procbench
BenchmarkPipePingPong/size=1MiB-pipe1MiB-2        	10	100 ns/op
some line that is not a result
`

func TestReadMatch(t *testing.T) {
	s := New()
	if err := s.Read(strings.NewReader(sample), "sample"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"Keepalive/impl=orcrt/mode=serial", []string{"keepalivebench:Keepalive/impl=orcrt/mode=serial", "keepalivebench:Keepalive/impl=orcrt/mode=serial-2"}},
		{"Keepalive/impl=orcrt/mode=serial-1", []string{"keepalivebench:Keepalive/impl=orcrt/mode=serial"}},
		{"keepalivebench:Keepalive/*/mode=serial-2", []string{"keepalivebench:Keepalive/impl=orcrt/mode=serial-2"}},
		{"procbench:Keepalive/impl=orcrt/mode=serial", nil},
		{"Keepalive/*", nil}, // "*" does not cross a "/"
		{"procbench:PipePingPong/size=1MiB-pipe1MiB", []string{"procbench:PipePingPong/size=1MiB-pipe1MiB-2"}},
	} {
		var got []string
		for _, k := range s.Match(tc.pattern) {
			got = append(got, k.String())
		}
		if strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("Match(%q) = %q, want %q", tc.pattern, got, tc.want)
		}
	}
	k := Key{"keepalivebench", "Keepalive/impl=orcrt/mode=serial", 2}
	if got := s.Samples[k]["ns/op"]; len(got) != 2 || got[0] != 16 || got[1] != 18 {
		t.Errorf("ns/op samples %v, want [16 18]", got)
	}
	if got := Median(s.Samples[k]["ns/op"]); got != 17 {
		t.Errorf("median %v, want 17", got)
	}
}

func TestSplitProcs(t *testing.T) {
	for _, tc := range []struct {
		in    string
		name  string
		procs int
	}{
		{"A/b=1-8", "A/b=1", 8},
		{"A/b=1", "A/b=1", 1},
		{"A/size=1MiB-pipe1MiB", "A/size=1MiB-pipe1MiB", 1},
	} {
		if n, p := SplitProcs(tc.in); n != tc.name || p != tc.procs {
			t.Errorf("SplitProcs(%q) = %q, %d, want %q, %d", tc.in, n, p, tc.name, tc.procs)
		}
	}
}
