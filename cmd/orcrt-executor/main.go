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
	"github.com/orcgo/orcrt/internal/cpuprofile"
	"github.com/orcgo/orcrt/native/fatalsig"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/serve/worker"
	"github.com/orcgo/orcrt/service/gdbjit"
)

// main ends through libc exit (fatalsig.Exit), as the stock executor
// returns from its C++ main: atexit handlers registered by JIT'd code run.
func main() {
	stop := cpuprofile.Start()
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
	env := readSessionEnv() // ORCRT_LLVM: executor.NewFor reads it
	return worker.Session{Logger: logger, GDBTest: gdbTest, DrainTimeout: env.drainTimeout, MaxMessageSize: env.maxMessageSize}.Serve(argv0, conn)
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
