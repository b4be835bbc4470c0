package executor

import (
	"os"

	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
)

// NewFor builds an Executor for the controller at the other end of conn.
// Unless opts.Dialect is set, it speaks the dialect ORCRT_LLVM names, else
// that of the controller process's LLVM release, else the newest
// (docs/protocol.md §9.2). It does not close conn on error.
func NewFor(conn simpleremote.Conn, opts Options) (*Executor, error) {
	why := dialect.Evidence{How: "Options.Dialect"}
	if opts.Dialect == nil {
		d, ev, err := dialect.Choose(os.Getenv("ORCRT_LLVM"), simpleremote.PeerPID(conn))
		if err != nil {
			return nil, err
		}
		opts.Dialect, why = d, ev
		if opts.Logger != nil {
			opts.Logger.Debug("dialect", "speaks", d.Name, "controller", ev.Release, "how", ev.How)
		}
	}
	e, err := New(opts)
	if err != nil {
		return nil, err
	}
	e.why = why
	return e, nil
}

// DialectEvidence says how NewFor chose the dialect (zero for New).
func (e *Executor) DialectEvidence() dialect.Evidence { return e.why }
