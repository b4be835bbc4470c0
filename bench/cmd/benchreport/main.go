package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"html"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/orcgo/orcrt/bench/internal/benchdata"
)

func main() {
	in := flag.String("in", "bench/out", "directory of `make bench` outputs")
	lat := flag.String("latency", "", "latency samples (default $in/latency.txt)")
	out := flag.String("out", "bench/out/report", "output directory")
	flag.Parse()
	if *lat == "" {
		*lat = filepath.Join(*in, "latency.txt")
	}
	if err := run(*in, *lat, *out); err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
}

type chart struct{ file, title, caption string }

func run(in, lat, out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var charts []chart
	ka, err := benchdata.Load(filepath.Join(in, "keepalivebench.txt"))
	if err != nil {
		return err
	}
	if err := keepaliveChart(ka, filepath.Join(out, "keepalive.svg")); err != nil {
		return err
	}
	charts = append(charts, chart{"keepalive.svg", "Keepalive: cost per acquire+release against goroutine count",
		"BenchmarkKeepalive mode=parallel at -cpu=1,2,4,8 (RunParallel: one goroutine per P), median ns/op of every round of `make bench`; lower is better. atomic-pair is one shared word, mutex-group upstream's TaskGroup design, sharded-floor a striped counter without a close protocol. With more goroutines than cores (4 and 8 on a 2-core machine) the points show oversubscription, not scaling."})
	sp, err := benchdata.Load(filepath.Join(in, "spsbench.txt"))
	if err != nil {
		return err
	}
	if err := spsChart(sp, filepath.Join(out, "sps.svg")); err != nil {
		return err
	}
	charts = append(charts, chart{"sps.svg", "SPS throughput against message size",
		"BenchmarkSweep: encode (AppendBytes), decode (zero-copy view) and memmove (copy of the same size, the floor of encoding) in the same run; median MB/s, log-log."})
	samples, err := readLatency(lat)
	if err != nil {
		return err
	}
	for _, call := range []string{"empty", "write1MiB"} {
		name := "latency-" + call + ".svg"
		if err := latencyChart(samples, call, filepath.Join(out, name)); err != nil {
			return err
		}
		charts = append(charts, chart{name, "Round-trip latency distribution, call=" + call,
			"Per-call latency of bench/procbench's cross-process round trip over pipes (TestLatencySamples: both executors' sessions open, calls alternating in blocks of 100), as a cumulative distribution: the curve further left is faster; the tail shows at the top."})
	}
	summary, _ := os.ReadFile(filepath.Join(in, "summary.txt"))
	return writeHTML(filepath.Join(out, "index.html"), charts, string(summary), samples)
}

var palette = []color.Color{
	color.RGBA{0x1f, 0x77, 0xb4, 0xff}, color.RGBA{0xd6, 0x27, 0x28, 0xff},
	color.RGBA{0x2c, 0xa0, 0x2c, 0xff}, color.RGBA{0x94, 0x67, 0xbd, 0xff},
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p
}

func addLine(p *plot.Plot, i int, name string, pts plotter.XYs) error {
	l, s, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	l.Color, s.Color = palette[i%len(palette)], palette[i%len(palette)]
	l.Width = vg.Points(1.5)
	s.Shape = plotutil.Shape(i)
	p.Add(l, s)
	p.Legend.Add(name, l, s)
	return nil
}

func keepaliveChart(set *benchdata.Set, file string) error {
	p := newPlot("Keepalive (mode=parallel)", "goroutines (GOMAXPROCS, -cpu)", "ns per acquire+release")
	p.Y.Min = 0
	for i, impl := range []string{"orcrt", "atomic-pair", "mutex-group", "sharded-floor"} {
		var pts plotter.XYs
		for _, k := range set.Match("Keepalive/impl=" + impl + "/mode=parallel") {
			if v := set.Samples[k]["ns/op"]; len(v) > 0 {
				pts = append(pts, plotter.XY{X: float64(k.Procs), Y: benchdata.Median(v)})
			}
		}
		if len(pts) == 0 {
			return fmt.Errorf("no keepalive samples for impl=%s", impl)
		}
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		if err := addLine(p, i, impl, pts); err != nil {
			return err
		}
	}
	return p.Save(8*vg.Inch, 4.5*vg.Inch, file)
}

var sizeBytes = map[string]float64{"16B": 16, "256B": 256, "4KiB": 4 << 10, "64KiB": 64 << 10, "1MiB": 1 << 20}

func spsChart(set *benchdata.Set, file string) error {
	p := newPlot("SPS byte sequences against memmove", "message size (bytes, log)", "MB/s (log)")
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	for i, op := range []string{"encode", "decode", "memmove"} {
		var pts plotter.XYs
		for _, k := range set.Match("Sweep/op=" + op + "/size=*") {
			_, sz, _ := strings.Cut(k.Name, "/size=")
			if v := set.Samples[k]["MB/s"]; len(v) > 0 && sizeBytes[sz] > 0 {
				pts = append(pts, plotter.XY{X: sizeBytes[sz], Y: benchdata.Median(v)})
			}
		}
		if len(pts) == 0 {
			return fmt.Errorf("no BenchmarkSweep samples for op=%s (run `make bench`)", op)
		}
		sort.Slice(pts, func(a, b int) bool { return pts[a].X < pts[b].X })
		if err := addLine(p, i, op, pts); err != nil {
			return err
		}
	}
	return p.Save(8*vg.Inch, 4.5*vg.Inch, file)
}

// readLatency returns samples[call][executor] in nanoseconds.
func readLatency(file string) (map[string]map[string][]float64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%w (bench/report.sh records it)", err)
	}
	defer f.Close()
	s := map[string]map[string][]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fl := strings.Fields(sc.Text())
		if len(fl) != 3 {
			continue
		}
		ns, err := strconv.ParseFloat(fl[2], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if s[fl[1]] == nil {
			s[fl[1]] = map[string][]float64{}
		}
		s[fl[1]][fl[0]] = append(s[fl[1]][fl[0]], ns)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(s) == 0 {
		return nil, errors.New(file + ": no samples")
	}
	return s, nil
}

func latencyChart(samples map[string]map[string][]float64, call, file string) error {
	p := newPlot("Round trip call="+call+" (per call)", "latency (µs, log)", "fraction of calls at or below")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Left = false
	p.Legend.Top = false
	for i, ex := range []string{"orcrt", "stock"} {
		v := slices.Clone(samples[call][ex])
		if len(v) == 0 {
			return fmt.Errorf("no latency samples for %s/%s", call, ex)
		}
		sort.Float64s(v)
		pts := make(plotter.XYs, 0, 200)
		step := max(1, len(v)/200)
		for j := 0; j < len(v); j += step {
			pts = append(pts, plotter.XY{X: v[j] / 1e3, Y: float64(j+1) / float64(len(v))})
		}
		pts = append(pts, plotter.XY{X: v[len(v)-1] / 1e3, Y: 1})
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		l.Color = palette[i]
		l.Width = vg.Points(2)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (median %.1f µs, p99 %.1f µs)", ex, quantile(v, 0.5)/1e3, quantile(v, 0.99)/1e3), l)
	}
	return p.Save(8*vg.Inch, 4.5*vg.Inch, file)
}

func quantile(sorted []float64, q float64) float64 {
	i := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func writeHTML(file string, charts []chart, summary string, lat map[string]map[string][]float64) error {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>orcrt benchmark report</title>
<style>body{font-family:sans-serif;max-width:1300px;margin:2em auto;color:#222}
figure{margin:2em 0}img{width:100%;max-width:1000px;border:1px solid #ddd}
pre{font-size:11px;overflow-x:auto;background:#f6f6f6;padding:1em}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px;text-align:right}</style></head><body>
<h1>orcrt benchmark report</h1>
<p>From the last <code>make bench</code> (bench/out/) and bench/procbench's per-call latency samples. Regenerate with <code>make bench-report</code>.</p>
`)
	for _, c := range charts {
		fmt.Fprintf(&b, "<figure><h2>%s</h2><img src=%q alt=%q><figcaption>%s</figcaption></figure>\n",
			html.EscapeString(c.title), c.file, html.EscapeString(c.title), html.EscapeString(c.caption))
	}
	b.WriteString("<h2>Latency percentiles (µs)</h2><table><tr><th>call</th><th>executor</th><th>n</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>\n")
	for _, call := range []string{"empty", "write1MiB"} {
		for _, ex := range []string{"orcrt", "stock"} {
			v := slices.Clone(lat[call][ex])
			sort.Float64s(v)
			if len(v) == 0 {
				continue
			}
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%d</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.1f</td><td>%.1f</td></tr>\n",
				call, ex, len(v), quantile(v, .5)/1e3, quantile(v, .9)/1e3, quantile(v, .99)/1e3, quantile(v, .999)/1e3, v[len(v)-1]/1e3)
		}
	}
	b.WriteString("</table>\n")
	if summary != "" {
		b.WriteString("<h2>Targets (bench/out/summary.txt)</h2><pre>" + html.EscapeString(summary) + "</pre>\n")
	}
	b.WriteString("</body></html>\n")
	return os.WriteFile(file, []byte(b.String()), 0o644)
}
