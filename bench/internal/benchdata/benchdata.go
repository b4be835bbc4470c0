package benchdata

import (
	"fmt"
	"io"
	"os"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

// Key names one benchmark: Pkg is the last element of its "pkg:"
// configuration (empty when the input has none), Name the benchmark's
// name without "Benchmark" and without the -N suffix, Procs that N (1
// when the suffix is absent, as `go test` omits it for GOMAXPROCS=1).
type Key struct {
	Pkg   string
	Name  string
	Procs int
}

func (k Key) String() string {
	s := k.Name
	if k.Procs != 1 {
		s += "-" + strconv.Itoa(k.Procs)
	}
	if k.Pkg != "" {
		s = k.Pkg + ":" + s
	}
	return s
}

// Set holds samples: per benchmark, per unit (as written in the input,
// e.g. "ns/op", "allocs/op", "B/op", "peak-rss-KiB"), one value per
// result line, in input order.
type Set struct {
	Samples map[Key]map[string][]float64
	Config  map[string]string // file configuration (cpu, goos, ...) seen first
	keys    []Key
}

// New returns an empty Set.
func New() *Set {
	return &Set{Samples: map[Key]map[string][]float64{}, Config: map[string]string{}}
}

// Load reads benchmark files into a new Set.
func Load(files ...string) (*Set, error) {
	s := New()
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			return nil, fmt.Errorf("benchdata: %w", err)
		}
		err = s.Read(fh, f)
		fh.Close()
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

var procsSuffix = regexp.MustCompile(`-([0-9]+)$`)

// SplitProcs splits "X-N" into X and N (N = 1 without a suffix).
func SplitProcs(name string) (string, int) {
	if m := procsSuffix.FindStringSubmatchIndex(name); m != nil {
		n, err := strconv.Atoi(name[m[2]:m[3]])
		if err == nil {
			return name[:m[0]], n
		}
	}
	return name, 1
}

// Read adds the results of one benchmark file (syntax errors are
// reported; lines that are neither results nor configuration are
// ignored, as benchfmt does).
func (s *Set) Read(r io.Reader, fileName string) error {
	br := benchfmt.NewReader(r, fileName)
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return fmt.Errorf("benchdata: %v", rec)
		case *benchfmt.Result:
			for _, c := range rec.Config {
				if _, ok := s.Config[c.Key]; !ok && c.File {
					s.Config[c.Key] = string(c.Value)
				}
			}
			name, procs := SplitProcs(string(rec.Name))
			k := Key{Pkg: path.Base(rec.GetConfig("pkg")), Name: name, Procs: procs}
			if rec.GetConfig("pkg") == "" {
				k.Pkg = ""
			}
			m := s.Samples[k]
			if m == nil {
				m = map[string][]float64{}
				s.Samples[k] = m
				s.keys = append(s.keys, k)
			}
			for _, v := range rec.Values {
				unit, val := v.Unit, v.Value
				if v.OrigUnit != "" {
					unit, val = v.OrigUnit, v.OrigValue
				}
				m[unit] = append(m[unit], val)
			}
		}
	}
	if err := br.Err(); err != nil {
		return fmt.Errorf("benchdata: %s: %w", fileName, err)
	}
	return nil
}

// Keys returns the benchmarks in the order they first appeared.
func (s *Set) Keys() []Key { return s.keys }

// Match returns the benchmarks a pattern names: "[pkg:]name[-N]", where
// pkg is the last element of the package path (optional when the name is
// unique), name may contain "*" (any run of characters other than '/'),
// and -N selects GOMAXPROCS N (-1 = no suffix; without it any N matches).
func (s *Set) Match(pattern string) []Key {
	pkg, name := "", pattern
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == ':' {
			pkg, name = pattern[:i], pattern[i+1:]
			break
		}
		if pattern[i] == '/' {
			break
		}
	}
	procs := 0
	if m := procsSuffix.FindStringSubmatchIndex(name); m != nil {
		procs, _ = strconv.Atoi(name[m[2]:m[3]])
		name = name[:m[0]]
	}
	re := regexp.MustCompile("^" + globToRegexp(name) + "$")
	var out []Key
	for _, k := range s.keys {
		if (pkg == "" || k.Pkg == pkg) && (procs == 0 || k.Procs == procs) && re.MatchString(k.Name) {
			out = append(out, k)
		}
	}
	return out
}

func globToRegexp(g string) string {
	parts := strings.Split(g, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(parts, "[^/]*")
}

// Thresholds are benchmath's defaults (alpha 0.05).
var Thresholds = benchmath.DefaultThresholds

// Summary is the median of a sample with its 95% confidence interval
// (benchmath.AssumeNothing, as benchstat reports it).
func Summary(values []float64) benchmath.Summary {
	return benchmath.AssumeNothing.Summary(benchmath.NewSample(values, &Thresholds), 0.95)
}

// Median of values (0 for none).
func Median(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	v := append([]float64(nil), values...)
	sort.Float64s(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}
