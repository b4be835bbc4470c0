//go:build arm64

package arm64

// readCTR returns CTR_EL0 (MRS CTR_EL0). Linux lets EL0 read it (it traps
// and emulates it on cores with errata that must hide IDC/DIC).
func readCTR() uint64

// syncRange runs the publish sequence: DC CVAU from dstart in dline steps
// while < end (if ops&OpCleanD), DSB ISH, IC IVAU from istart in iline
// steps while < end (if ops&OpInvalidate) followed by DSB ISH, then ISB.
// Requires dstart < end and istart < end.
func syncRange(dstart, istart, end, dline, iline, ops uintptr)

// isb executes ISB (a context-synchronization event on this core).
func isb()

var cached = DecodeCTR(readCTR())

// Cached returns CTR_EL0 as read once at package initialisation.
func Cached() CTR { return cached }

// ReadCTR reads CTR_EL0 now (diagnostics and tests; hot paths use [Cached]).
func ReadCTR() uint64 { return readCTR() }

// FlushICache makes the instructions written to [addr, addr+n) visible to
// instruction fetch on every core. The range must be readable; n == 0 is
// a no-op.
func FlushICache(addr, n uintptr) {
	if n == 0 || addr+n < addr {
		return
	}
	dstart, istart, end, ops := cached.Plan(addr, n)
	syncRange(dstart, istart, end, cached.DminLine, cached.IminLine, ops)
}

// ISB executes an instruction synchronization barrier on the calling core.
func ISB() { isb() }
