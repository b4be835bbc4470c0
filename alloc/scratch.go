package alloc

import (
	"sync"

	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/sps"
)

// actionScratch is what an initialize reuses for its actions across
// calls: the collected deallocs, the cleanup failures, a result buffer.
type actionScratch struct {
	deallocs []sps.WrapperCall
	errs     []error
	buf      *resultBuf
}

func (a *actionScratch) actions() *actionScratch { return a }

// reset drops the references to the last call's actions and errors.
func (a *actionScratch) reset() {
	clear(a.deallocs)
	clear(a.errs)
	a.deallocs, a.errs = a.deallocs[:0], a.errs[:0]
}

// undo runs the collected deallocs, last first, when the reservation was
// released while the finalize actions ran; cause comes first.
func (a *actionScratch) undo(s *rt.Session, cause error) error {
	a.errs = runDealloc(s, a.buf, a.deallocs, a.errs[:0])
	return joinFirst(cause, a.errs)
}

// scratch is the constraint of a scratch type: a pointer that embeds an
// actionScratch and resets whatever else it holds.
type scratch[T any] interface {
	*T
	actions() *actionScratch
	reset()
}

// scratchPool pools a scratch type (the initialize paths must not
// allocate per call).
type scratchPool[T any, P scratch[T]] struct{ p sync.Pool }

func (sp *scratchPool[T, P]) get() P {
	if v, ok := sp.p.Get().(P); ok {
		return v
	}
	v := P(new(T))
	v.actions().buf = getBuf()
	return v
}

func (sp *scratchPool[T, P]) put(v P) {
	v.reset()
	sp.p.Put(v)
}
