package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/orcgo/orcrt/rt/dialect"
)

// usageText follows a command-line error ("error: <msg>\n\n"; the error
// line is the stock executor's, the usage orcrt-executor's own) and
// begins the --help text.
const usageText = "Usage:\n" +
	"  orcrt-executor [-v] [test-jitloadergdb] filedescs=<infd>,<outfd> [args...]\n" +
	"  orcrt-executor [-v] [test-jitloadergdb] listen=<host>:<port> [args...]\n" +
	"  orcrt-executor [-v] [test-jitloadergdb] unix=<path> [args...]\n" +
	"  orcrt-executor [-v] <infd> <outfd> [args...]\n" +
	"  orcrt-executor -h | --help | --version\n"

// helpText is the rest of the --help text.
const helpText = `
Runs the code an LLVM ORC controller links for one session: a drop-in
for LLVM's llvm-jitlink-executor and lli-child-target. Trailing args
are ignored.

Modes:
  filedescs=<infd>,<outfd>  talk over two inherited descriptors (what
                            llvm-jitlink -oop-executor=PATH passes)
  listen=<host>:<port>      accept one TCP connection (llvm-jitlink
                            -oop-executor-connect=HOST:PORT); an empty
                            host is 127.0.0.1; port 0 picks a free port
                            and prints "orcrt-executor: listening on
                            HOST:PORT" to stderr
  unix=<path>               accept one Unix-domain connection at path
                            (orcrt only)
  <infd> <outfd>            filedescs=<infd>,<outfd> as lli-child-target
                            takes it (lli -remote-mcjit): two
                            non-negative decimal numbers
  socket:adopt=<fd>         LLVM main's spellings: one inherited
  tcp:connect=<host>:<port>   connected socket; connect to a listening
  tcp:listen=<host>:<port>    controller; as listen= (pipe:adopt= is
                            filedescs=)

Serving many controllers (Linux):
  orcrt-executor serve [flags] unix=<path> | listen=<host>:<port> | systemd
                            accept controllers until SIGTERM, each in its
                            own process from a pool of ready workers;
                            only the serving user may connect unless
                            allowed (serve -h lists the flags)
  orcrt-executor status <status-socket>
                            print a server's sessions, pool and refusals

Options:
  -v                 log the protocol traffic to stderr (log/slog's text format)
  test-jitloadergdb  print __jit_debug_descriptor's last entry to stderr
                     before and after the session
  -h, --help         print this help to stdout and exit 0
  --version          print the orcrt, Go and LLVM versions and exit 0

Environment:
  ORCRT_LOG=debug             as -v
  ORCRT_LLVM=<release>        speak this LLVM release's dialect (19, or
                              19.1.7). Default: the controller process's
                              release, from the first of: its directory
                              (/usr/lib/llvm-N/bin, LLVM-N.M.P-Linux-X64;
                              a readlink), the libLLVM it maps (a read
                              of /proc/PID/maps), a -N suffix of its
                              name, LLVM's version text in its file (a
                              scan), and, for a static LLVM tool, its
                              --version output (runs it: a few ms, at
                              most 2 s); else LLVM 23's
  ORCRT_DRAIN_TIMEOUT=<d>     once the controller has gone, wait at most
                              d (a Go duration, default 10s; 0: for ever)
                              for calls still running in JIT'd code
  ORCRT_MAX_MESSAGE_SIZE=<n>  the largest message accepted, in bytes
                              (default 1 GiB)
  ORCRT_CPUPROFILE=<path>     write a CPU profile ("%p": the process id);
                              builds with -tags orcrt_cpuprofile only
  GOMAXPROCS=<n>              Go's processors (default 1)
  JITDUMPDIR=<dir>            where llvm-jitlink -perf-support's jitdump
                              file goes (<dir>/.debug/jit/...; default
                              $HOME)

Exit status: 0 when the session ends normally; 1 for a usage or protocol
error; a fatal signal in JIT'd code kills the executor by that signal.
`

// cliAction handles the arguments that only print: -h, -help, --help
// (the usage and help, to stdout) and --version, -version. They count
// only as the first argument (after any -v); it reports whether args[0]
// was one, and the exit status.
func cliAction(w io.Writer, args []string) (code int, done bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case "-h", "-help", "--help":
		io.WriteString(w, usageText+helpText)
		return 0, true
	case "-version", "--version":
		io.WriteString(w, versionText())
		return 0, true
	}
	return 0, false
}

// version is orcrt's version: the main module's (a `go install
// ...@vX.Y.Z` build), else "devel".
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok || bi.Main.Version == "" || bi.Main.Version == "(devel)" {
		return "devel"
	}
	return bi.Main.Version
}

// vcsRevision describes the commit built from, when the build recorded
// it ("" otherwise).
func vcsRevision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return " (" + rev + modified + ")"
}

// versionText is what --version prints.
func versionText() string {
	return fmt.Sprintf("orcrt-executor %s%s\nGo %s %s/%s\nLLVM %s\n",
		version(), vcsRevision(), runtime.Version(), runtime.GOOS, runtime.GOARCH, dialect.Supported())
}

// formatUsageError is the stderr text of a command-line error: the stock
// executor's error line, then orcrt-executor's usage.
func formatUsageError(msg string) string {
	return "error: " + msg + "\n\n" + usageText
}
