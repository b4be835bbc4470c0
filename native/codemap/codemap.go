package codemap

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/orcgo/orcrt/slab"
)

// User address space bounds: nothing below the first page is ever code
// (mmap_min_addr is at least one page), and no user mapping reaches 2^57
// (5-level paging on amd64 stops at 2^56, arm64's largest VA is 52 bits).
// Non-canonical and kernel addresses are above.
const (
	minUserAddr = 4096
	maxUserAddr = 1 << 57
)

// defaultMinRefreshInterval is the default rate limit of rebuilds on a
// miss.
const defaultMinRefreshInterval = 2 * time.Millisecond

// ErrNotCode is matched (errors.Is) by every refusal.
var ErrNotCode = errors.New("codemap: not executable code")

// Why an address was refused.
const (
	ReasonOutside  = "outside the user address space"
	ReasonJITData  = "JIT'd memory that is not executable"
	ReasonUnmapped = "in no executable mapping"
)

// NotCodeError is a refusal: Addr is not executable code in this process.
type NotCodeError struct {
	Addr   uintptr
	Reason string // one of the Reason constants
}

func (e *NotCodeError) Error() string {
	return fmt.Sprintf("codemap: %#x is not executable code in this process (%s)", e.Addr, e.Reason)
}

// Is reports whether target is ErrNotCode.
func (e *NotCodeError) Is(target error) bool { return target == ErrNotCode }

// span is an executable address range [lo, hi).
type span struct{ lo, hi uintptr }

// snapshot is an immutable, sorted, coalesced set of executable ranges
// outside slab arenas.
type snapshot struct {
	spans []span
	taken time.Duration // when the rebuild began (since epoch, monotonic)
}

func (s *snapshot) contains(addr uintptr) bool {
	sp := s.spans
	i, j := 0, len(sp)
	for i < j { // first span with hi > addr
		h := int(uint(i+j) >> 1)
		if sp[h].hi <= addr {
			i = h + 1
		} else {
			j = h
		}
	}
	return i < len(sp) && sp[i].lo <= addr
}

var (
	epoch = time.Now()
	state struct {
		cur         atomic.Pointer[snapshot]
		mu          sync.Mutex // serializes rebuilds
		minInterval atomic.Int64
		misses      atomic.Uint64
		refreshes   atomic.Uint64
		refusals    atomic.Uint64
	}
)

func init() { state.minInterval.Store(int64(defaultMinRefreshInterval)) }

func now() time.Duration { return time.Since(epoch) }

// Check returns nil if addr is executable code in this process (see the
// package documentation for what counts), else a *NotCodeError naming the
// address. The hit path makes no system call and does not allocate; a
// miss may rebuild the snapshot once (rate-limited) and then decides.
func Check(addr uintptr) error {
	if addr < minUserAddr || addr >= maxUserAddr {
		return refuse(addr, ReasonOutside)
	}
	if inArena, x := slab.ExecutableAt(addr, 1); inArena {
		if x {
			return nil
		}
		return refuse(addr, ReasonJITData)
	}
	if s := state.cur.Load(); s != nil && s.contains(addr) {
		return nil
	}
	return checkMiss(addr)
}

func refuse(addr uintptr, why string) error {
	state.refusals.Add(1)
	return &NotCodeError{Addr: addr, Reason: why}
}

func checkMiss(addr uintptr) error {
	state.misses.Add(1)
	s := refreshAfter(now())
	// A slab may have been created (and made executable) meanwhile.
	if inArena, x := slab.ExecutableAt(addr, 1); inArena {
		if x {
			return nil
		}
		return refuse(addr, ReasonJITData)
	}
	if s.contains(addr) {
		return nil
	}
	return refuse(addr, ReasonUnmapped)
}

// refreshAfter returns a snapshot whose rebuild began at or after t0,
// sharing rebuilds between concurrent callers and starting at most one
// per minimum interval.
func refreshAfter(t0 time.Duration) *snapshot {
	state.mu.Lock()
	defer state.mu.Unlock()
	cur := state.cur.Load()
	if cur != nil {
		if cur.taken >= t0 {
			return cur // rebuilt while we waited for the lock
		}
		if wait := cur.taken + time.Duration(state.minInterval.Load()) - now(); wait > 0 {
			time.Sleep(wait)
		}
	}
	return rebuildLocked()
}

// Refresh rebuilds the snapshot now, without rate limit: for callers
// that just changed the set of loaded objects (the dylib manager after
// dlopen).
func Refresh() {
	state.mu.Lock()
	defer state.mu.Unlock()
	rebuildLocked()
}

func rebuildLocked() *snapshot {
	s := &snapshot{taken: now()}
	spans := loadedObjectText(nil)
	spans = executableMappings(spans)
	slices.SortFunc(spans, func(a, b span) int {
		switch {
		case a.lo < b.lo:
			return -1
		case a.lo > b.lo:
			return 1
		}
		return 0
	})
	out := spans[:0]
	for _, sp := range spans {
		if sp.hi <= sp.lo {
			continue
		}
		if n := len(out); n > 0 && sp.lo <= out[n-1].hi {
			out[n-1].hi = max(out[n-1].hi, sp.hi)
			continue
		}
		out = append(out, sp)
	}
	s.spans = slices.Clip(out)
	state.cur.Store(s)
	state.refreshes.Add(1)
	return s
}

// setMinRefreshInterval sets the minimum time between two rebuilds caused
// by misses (0 or negative: defaultMinRefreshInterval) and returns the
// previous value. Tests lower and raise it (export_test.go).
func setMinRefreshInterval(d time.Duration) time.Duration {
	if d <= 0 {
		d = defaultMinRefreshInterval
	}
	return time.Duration(state.minInterval.Swap(int64(d)))
}

// Stats are the map's counters since the process started.
type Stats struct {
	Misses    uint64 // lookups not answered by the slab registry or the snapshot
	Refreshes uint64 // snapshot rebuilds (misses and Refresh)
	Refusals  uint64 // Check results that were errors
	Spans     int    // executable ranges in the current snapshot
}

// ReadStats returns the counters.
func ReadStats() Stats {
	st := Stats{
		Misses:    state.misses.Load(),
		Refreshes: state.refreshes.Load(),
		Refusals:  state.refusals.Load(),
	}
	if s := state.cur.Load(); s != nil {
		st.Spans = len(s.spans)
	}
	return st
}

// executableMappings appends every mapping of /proc/self/maps with
// execute permission (nothing if it cannot be read).
func executableMappings(dst []span) []span {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return dst
	}
	return parseMaps(b, dst)
}

// parseMaps appends the mappings with execute permission of a
// /proc/<pid>/maps text; malformed lines are skipped.
func parseMaps(b []byte, dst []span) []span {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		// "lo-hi perms offset dev inode path"
		lo, rest, ok := parseHex(line, '-')
		if !ok {
			continue
		}
		hi, rest, ok := parseHex(rest, ' ')
		if !ok || len(rest) < 4 || rest[2] != 'x' {
			continue
		}
		dst = append(dst, span{lo, hi})
	}
	return dst
}

// parseHex parses lower-case hex digits up to sep and returns the value
// and what follows sep.
func parseHex(b []byte, sep byte) (uintptr, []byte, bool) {
	var v uintptr
	for i, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uintptr(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uintptr(c-'a'+10)
		case c == sep && i > 0:
			return v, b[i+1:], true
		default:
			return 0, nil, false
		}
		if i >= 16 {
			return 0, nil, false
		}
	}
	return 0, nil, false
}
