//go:build cgo

package executor

import (
	"context"
	"fmt"
	"os"

	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
)

// NewFor builds an Executor for the controller at the other end of conn.
// Unless opts.Dialect is set, it speaks the dialect ORCRT_LLVM names, else
// that of the controller process's LLVM release, else LLVM 23's, which
// LLVM 22's controllers read too (docs/protocol.md §9.2). It does not
// close conn on error.
func NewFor(conn simpleremote.Conn, opts Options) (*Executor, error) {
	why := dialect.Evidence{How: "Options.Dialect"}
	if opts.Dialect == nil && opts.Release == 0 {
		d, ev, err := dialect.Choose(os.Getenv("ORCRT_LLVM"), simpleremote.PeerPID(conn))
		if err != nil {
			return nil, err
		}
		opts.Dialect, why = d, ev
		if opts.Logger != nil {
			opts.Logger.Debug("dialect", "speaks", d.Name, "controller", ev.Release, "how", ev.How)
			if ev.Unspoken() {
				opts.Logger.Error("dialect: orcrt does not speak the controller's LLVM release", "controller", ev.Release, "speaks", d.Name, "how", ev.How)
			}
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

// UnspokenReleaseError wraps a session's error when the controller was
// identified as a release orcrt does not speak, which most likely caused
// it: the message names the release and the dialect spoken.
type UnspokenReleaseError struct {
	Release int    // the controller's LLVM release
	Spoke   string // the dialect spoken
	How     string // how the release and the dialect were chosen
	Err     error
}

func (e *UnspokenReleaseError) Error() string {
	return fmt.Sprintf("%v (the controller is LLVM %d, which orcrt does not speak yet; it spoke %s: %s)", e.Err, e.Release, e.Spoke, e.How)
}

func (e *UnspokenReleaseError) Unwrap() error { return e.Err }

// withRelease wraps err in an UnspokenReleaseError if the controller's
// release is one orcrt does not speak.
func (e *Executor) withRelease(err error) error {
	if err == nil || !e.why.Unspoken() {
		return err
	}
	return &UnspokenReleaseError{Release: e.why.Release, Spoke: e.Dialect().Name, How: e.why.How, Err: err}
}

// Open is how a Go host starts: it parses the command line a controller
// gives its executor (args without the program name: filedescs=IN,OUT,
// listen=HOST:PORT, unix=PATH or lli's IN OUT), opens that connection and
// returns NewFor's Executor for it. Serve it with ex.Serve(ctx, conn).
// For listen= and unix= it waits for the controller to connect (until ctx
// ends), after calling opts.OnListen with the address it listens on.
func Open(ctx context.Context, args []string, opts Options) (*Executor, simpleremote.Conn, error) {
	pa, err := simpleremote.ParseArgs(args)
	if err != nil {
		return nil, nil, fmt.Errorf("executor: %w", err)
	}
	conn, err := pa.Spec.OpenListening(ctx, opts.OnListen)
	if err != nil {
		return nil, nil, fmt.Errorf("executor: %w", err)
	}
	ex, err := NewFor(conn, opts)
	if err != nil {
		_ = conn.Close()
		return nil, nil, err
	}
	return ex, conn, nil
}
