//go:build linux

package procbench

import (
	"bufio"
	"fmt"
	"os"
	"testing"
	"time"
)

// TestLatencySamples records per-call latencies of the cross-process
// round trips (call=empty and call=write1MiB) for orcrt-executor and the
// stock executor, for the latency-distribution charts of
// `make bench-report` (bench/cmd/benchreport). It runs only when
// ORCRT_PROCBENCH_LATENCY names the output file: one line per call,
// "executor call nanoseconds". Both executors' sessions are open at once
// and the calls alternate in blocks of 100 (orcrt, stock, orcrt, ...),
// so that drift of a noisy machine hits both alike.
func TestLatencySamples(t *testing.T) {
	out := os.Getenv("ORCRT_PROCBENCH_LATENCY")
	if out == "" {
		t.Skip("set ORCRT_PROCBENCH_LATENCY=<file> to record latency samples")
	}
	const blocks, perBlock, warmup = 40, 100, 200
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	for _, wl := range workloads[:2] { // empty, write1MiB
		ops := make([]func() error, len(executors))
		for i, name := range executors {
			s := start(t, name)
			ops[i] = wl.prepare(t, s)
			for range warmup {
				if err := ops[i](); err != nil {
					t.Fatal(err)
				}
			}
		}
		for range blocks {
			for i, name := range executors {
				for range perBlock {
					t0 := time.Now()
					if err := ops[i](); err != nil {
						t.Fatal(err)
					}
					fmt.Fprintf(w, "%s %s %d\n", name, wl.name, time.Since(t0).Nanoseconds())
				}
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}
