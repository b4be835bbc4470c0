//go:build cgo

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/native/fatalsig"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/service/gdbjit"
)

// main ends through libc exit (fatalsig.Exit), as the stock executor
// returns from its C++ main: atexit handlers registered by JIT'd code run.
func main() {
	stop := startCPUProfile()
	code := run(os.Args)
	stop()
	fatalsig.Exit(code)
}

func run(argv []string) int {
	argv0, args := argv[0], argv[1:]
	verbose := os.Getenv("ORCRT_LOG") == "debug"
	for len(args) > 0 && args[0] == "-v" {
		verbose, args = true, args[1:]
	}
	if code, done := cliAction(os.Stdout, args); done { // -h, --help, --version
		return code
	}
	if code, done := serveAction(argv0, args, verbose); done { // serve, status, a serve worker
		return code
	}
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, err)
		return 1
	}
	if err := fatalsig.Install(); err != nil {
		return fail(err)
	}

	// The stock prints the GDB line as soon as it has seen the test
	// flags, even if the specifier then turns out to be bad.
	gdbTest := false
	for _, a := range args {
		if !strings.HasPrefix(a, "test-") {
			break
		}
		gdbTest = gdbTest || a == "test-jitloadergdb"
	}
	if gdbTest {
		os.Stderr.WriteString(gdbjit.FormatLastEntry())
	}
	pa, err := simpleremote.ParseArgs(args)
	if err != nil {
		return usage(err, fail)
	}
	if pa.Spec.Mode == simpleremote.ModeFileDescs {
		if err := checkFDs(pa.Spec); err != nil {
			return fail(err)
		}
	}

	var logger executor.Logger
	if verbose {
		logger = newTextLogger(os.Stderr, levelDebug)
	}
	conn, err := openConn(context.Background(), pa.Spec, os.Stderr)
	if err != nil {
		return usage(err, fail)
	}
	return runSession(argv0, conn, session{logger: logger, gdbTest: gdbTest})
}

// session is how runSession serves one connection: a serve worker adds
// its context (ended at the idle timeout), a dispatcher counting calls in
// flight, a wrapper seeing the traffic, and a hook told the dialect.
type session struct {
	logger     executor.Logger // also traces the wire
	gdbTest    bool
	ctx        context.Context
	dialect    *dialect.Dialect   // chosen by the caller (nil: NewFor chooses)
	executor   *executor.Executor // built ahead by the caller (nil: built here)
	dispatcher rt.Dispatcher
	wrap       func(simpleremote.Conn) simpleremote.Conn
	started    func(*executor.Executor)
}

// options are the executor's options for the session.
func (ss session) options() executor.Options {
	return executor.Options{Logger: ss.logger, TraceWire: ss.logger != nil, DrainTimeout: drainTimeout(), Wire: wireOptions(), MaxProcs: 1, Dispatcher: ss.dispatcher, Dialect: ss.dialect}
}

// runSession serves conn to its end and returns the exit status.
func runSession(argv0 string, conn simpleremote.Conn, ss session) int {
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
	if ss.started != nil {
		ss.started(ex)
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
	if ss.gdbTest {
		os.Stderr.WriteString(gdbjit.FormatLastEntry())
	}
	return 0
}

// usage reports a command-line error as the stock does (error text and
// usage, exit 1), and any other error as "<argv0>: <error>".
func usage(err error, fail func(error) int) int {
	var ue *simpleremote.UsageError
	if errors.As(err, &ue) {
		os.Stderr.WriteString(formatUsageError(ue.Msg))
		return 1
	}
	return fail(err)
}

// checkFDs reproduces the stock transport's checks of the descriptors:
// a negative one is "Invalid input/output file descriptor N"; one that is
// not open fails as the first read or write on it would (the stock sends
// Setup first, or crashes on a bad output descriptor).
func checkFDs(s simpleremote.Spec) error {
	if s.InFD < 0 {
		return stockError(fmt.Sprintf("Invalid input file descriptor %d", s.InFD))
	}
	if s.OutFD < 0 {
		return stockError(fmt.Sprintf("Invalid output file descriptor %d", s.OutFD))
	}
	for _, fd := range []int{s.OutFD, s.InFD} {
		if _, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0); errno != 0 {
			return stockError(simpleremote.Strerror(errno))
		}
	}
	return nil
}

// stockError carries a message worded exactly as the stock executor's.
type stockError string

func (e stockError) Error() string { return string(e) }
