//go:build cgo

package worker

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/service/gdbjit"
)

// Session serves one controller's connection as orcrt-executor does,
// in a worker or in orcrt-executor's own one-session modes: Logger, if
// set, logs and traces the wire; GDBTest prints __jit_debug_descriptor's
// last entry to stderr after a session that ends normally; DrainTimeout
// and MaxMessageSize are executor.Options.DrainTimeout (0: its default)
// and simpleremote.Options.MaxMessageSize (0: its default, 1 GiB). A
// worker adds its context (ended at the idle timeout), a dispatcher
// counting calls in flight, a wrapper seeing the traffic, and an
// executor built ahead.
type Session struct {
	Logger         executor.Logger
	GDBTest        bool
	DrainTimeout   time.Duration
	MaxMessageSize uint64

	ctx        context.Context
	dialect    *dialect.Dialect   // chosen by the caller (nil: NewFor chooses)
	executor   *executor.Executor // built ahead by the caller (nil: built here)
	dispatcher rt.Dispatcher
	wrap       func(simpleremote.Conn) simpleremote.Conn
}

// options are the executor's options for the session.
func (ss Session) options() executor.Options {
	wo := &simpleremote.Options{ReadSpin: simpleremote.ExecutorReadSpin, MaxMessageSize: ss.MaxMessageSize}
	return executor.Options{Logger: ss.Logger, TraceWire: ss.Logger != nil, DrainTimeout: ss.DrainTimeout, Wire: wo, MaxProcs: 1, Dispatcher: ss.dispatcher, Dialect: ss.dialect, LearnLookupRoute: true}
}

// Serve serves conn to its end and returns the exit status: 0, or 1
// after "<argv0>: <error>" on stderr.
func (ss Session) Serve(argv0 string, conn simpleremote.Conn) int {
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, err)
		return 1
	}
	ctx := ss.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	// The executor speaks first, and Setup differs between LLVM releases:
	// NewFor identifies the controller before anything is sent. One P
	// (RATIONALE.md, "One P"); the GOMAXPROCS variable still wins.
	ex := ss.executor
	if ex == nil {
		var err error
		if ex, err = executor.NewFor(conn, ss.options()); err != nil {
			_ = conn.Close()
			return fail(err)
		}
	}
	if ss.wrap != nil {
		conn = ss.wrap(conn)
	}
	err := ex.Serve(ctx, conn)
	// A controller identified as a release orcrt does not speak that hangs
	// up without a call most likely could not read the Setup.
	if why := ex.DialectEvidence(); err == nil && !ex.ControllerSpoke() && why.Release != 0 && !ex.Dialect().Speaks(why.Release) {
		fmt.Fprintf(os.Stderr, "%s: the controller (LLVM %d) hung up without a call; orcrt spoke %s (%s). "+
			"Set ORCRT_LLVM to one of %s if another dialect suits it.\n",
			argv0, why.Release, ex.Dialect().Name, why.How, dialect.Supported())
	}
	if err != nil {
		return fail(err) // the stock exits here, without the second GDB line
	}
	if ss.GDBTest {
		os.Stderr.WriteString(gdbjit.FormatLastEntry())
	}
	return 0
}
