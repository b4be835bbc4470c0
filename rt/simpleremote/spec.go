package simpleremote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"syscall"
)

// Mode is a connection mode of the executor's command line.
type Mode int

// Connection modes.
const (
	// ModeFileDescs is `filedescs=IN,OUT`: two inherited descriptors
	// (pipes from `llvm-jitlink -oop-executor`).
	ModeFileDescs Mode = iota + 1
	// ModeListen is `listen=HOST:PORT`: accept one TCP connection
	// (`llvm-jitlink -oop-executor-connect`).
	ModeListen
	// ModeUnix is `unix=PATH`: accept one Unix-domain connection (orcrt
	// only).
	ModeUnix
	// ModeSocket is `socket:adopt=FD`: one inherited, connected socket
	// (LLVM main's spelling; also how orcrt-executor serve hands a
	// connection to a worker).
	ModeSocket
	// ModeConnect is `tcp:connect=HOST:PORT`: the executor connects to a
	// listening controller (LLVM main's spelling).
	ModeConnect
)

func (m Mode) String() string {
	switch m {
	case ModeFileDescs:
		return "filedescs"
	case ModeListen:
		return "listen"
	case ModeUnix:
		return "unix"
	case ModeSocket:
		return "socket"
	case ModeConnect:
		return "connect"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// Spec is a parsed connection specifier.
type Spec struct {
	Mode Mode
	// ModeFileDescs: the descriptors, and their text as given; ModeSocket:
	// the socket in InFD and OutFD.
	InFD, OutFD     int
	InText, OutText string
	// LLIChild is set for ModeFileDescs given in lli-child-target's form,
	// two bare descriptor numbers (see ParseArgs).
	LLIChild bool
	// ModeListen, ModeConnect: host and port as given ("" host:
	// loopback), and the parsed port.
	Host, Port string
	PortNum    int
	// ModeUnix: the socket path.
	Path string

	orig string
}

// String returns the specifier as given.
func (s Spec) String() string { return s.orig }

// ParseSpec parses one connection specifier with the stock executor's
// rules and error texts (docs/protocol.md §1.1); errors are *UsageError:
//
//	filedescs=IN,OUT   `X is not a valid file descriptor` unless X is a
//	                   decimal int ("-1" parses; Open rejects it)
//	listen=HOST:PORT   `port number 'X' is not a valid integer`; orcrt also
//	                   rejects ports outside 0..65535 (`port number 'X' is
//	                   out of range`), which the stock passes on to
//	                   getaddrinfo
//	unix=PATH          orcrt only; `unix socket path is empty`
//	anything else      `invalid specifier type "X"`
//
// The text is split at the first '=' (and, for listen, at the first ':'),
// as LLVM's StringRef::split does. LLVM main's spellings are aliases
// (docs/protocol.md §9.4): pipe:adopt=IN,OUT is filedescs=, tcp:listen=
// is listen= and socket:adopt=FD adopts one connected socket; with
// tcp:connect=HOST:PORT the executor connects to the controller. The tcp:
// forms take HOST:PORT as net.SplitHostPort does ([::1]:0 works).
func ParseSpec(arg string) (Spec, error) {
	typ, rest, _ := strings.Cut(arg, "=")
	s := Spec{orig: arg}
	switch typ {
	case "socket:adopt":
		fd, ok := parseFDNumber(rest)
		if !ok {
			return Spec{}, &UsageError{Msg: rest + " is not a valid file descriptor"}
		}
		s.Mode, s.InFD, s.OutFD, s.InText, s.OutText = ModeSocket, fd, fd, rest, rest
	case "tcp:listen", "tcp:connect":
		host, port, err := net.SplitHostPort(rest)
		if err != nil {
			return Spec{}, &UsageError{Msg: "'" + rest + "' is not HOST:PORT"}
		}
		n, ok := parseLLVMInt(port)
		if !ok || n < 0 || n > 65535 || (typ == "tcp:connect" && n == 0) {
			return Spec{}, &UsageError{Msg: "port number '" + port + "' is not valid"}
		}
		s.Mode, s.Host, s.Port, s.PortNum = ModeListen, host, port, n
		if typ == "tcp:connect" {
			s.Mode = ModeConnect
		}
	case "filedescs", "pipe:adopt":
		a, b, _ := strings.Cut(rest, ",")
		in, ok := parseLLVMInt(a)
		if !ok {
			return Spec{}, &UsageError{Msg: a + " is not a valid file descriptor"}
		}
		out, ok := parseLLVMInt(b)
		if !ok {
			return Spec{}, &UsageError{Msg: b + " is not a valid file descriptor"}
		}
		s.Mode, s.InFD, s.OutFD, s.InText, s.OutText = ModeFileDescs, in, out, a, b
	case "listen":
		host, port, _ := strings.Cut(rest, ":")
		n, ok := parseLLVMInt(port)
		if !ok {
			return Spec{}, &UsageError{Msg: "port number '" + port + "' is not a valid integer"}
		}
		if n < 0 || n > 65535 {
			return Spec{}, &UsageError{Msg: "port number '" + port + "' is out of range"}
		}
		s.Mode, s.Host, s.Port, s.PortNum = ModeListen, host, port, n
	case "unix":
		if rest == "" {
			return Spec{}, &UsageError{Msg: "unix socket path is empty"}
		}
		s.Mode, s.Path = ModeUnix, rest
	default:
		return Spec{}, &UsageError{Msg: `invalid specifier type "` + typ + `"`}
	}
	return s, nil
}

// parseLLVMInt is StringRef::getAsInteger(10, int): an optional '-',
// one or more decimal digits, nothing else, within int32.
func parseLLVMInt(s string) (int, bool) {
	if s == "" || s[0] == '+' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0, false
	}
	return int(n), true
}

// ArgForms lists the connection specifiers ParseArgs accepts (and
// LLVM main's aliases, see ParseSpec).
const ArgForms = "filedescs=IN,OUT, listen=HOST:PORT, unix=PATH or lli's IN OUT"

// Args is the parsed command line of the executor.
type Args struct {
	Spec Spec
	// TestFlags are the leading "test-..." words, in order (the stock
	// acts on "test-jitloadergdb" and accepts any other silently).
	TestFlags []string
	// Rest are the words after the specifier, ignored by the stock.
	Rest []string
}

// Has reports whether flag is among the test flags.
func (a Args) Has(flag string) bool {
	for _, f := range a.TestFlags {
		if f == flag {
			return true
		}
	}
	return false
}

// ParseArgs parses the executor's arguments (os.Args[1:]) as the stock
// llvm-jitlink-executor 22 does: `[test-...]... SPEC [args...]`. No
// arguments at all is the *UsageError "insufficient arguments" (its Msg;
// its Error() adds the accepted forms, [ArgForms], for a library host,
// which prints no usage text); test flags with nothing after them leave
// an empty specifier, which is `invalid specifier type ""`.
//
// It also accepts lli-child-target's command line, `IN OUT [args...]`
// (lli -remote-mcjit starts its child with the two descriptor numbers
// as argv[1] and argv[2]), as `filedescs=IN,OUT [args...]` with
// Spec.LLIChild set: only when the first two arguments, and not the
// third, are non-negative decimal integers (digits only, within int32).
// Anything else keeps the stock's error; a single number, for example,
// is `invalid specifier type "3"`.
func ParseArgs(args []string) (Args, error) {
	if len(args) == 0 {
		return Args{}, &UsageError{Msg: "insufficient arguments", Hint: "want " + ArgForms}
	}
	if in, out, ok := lliChildFDs(args); ok {
		return Args{
			Spec: Spec{Mode: ModeFileDescs, InFD: in, OutFD: out, InText: args[0], OutText: args[1], LLIChild: true, orig: args[0] + " " + args[1]},
			Rest: args[2:],
		}, nil
	}
	var a Args
	i := 0
	next := func() string {
		if i < len(args) {
			i++
			return args[i-1]
		}
		return ""
	}
	arg := next()
	for strings.HasPrefix(arg, "test-") {
		a.TestFlags = append(a.TestFlags, arg)
		arg = next()
	}
	spec, err := ParseSpec(arg)
	if err != nil {
		return Args{}, err
	}
	a.Spec = spec
	a.Rest = args[i:]
	return a, nil
}

// lliChildFDs recognizes lli-child-target's `IN OUT [args...]`: exactly
// two leading arguments that are descriptor numbers.
func lliChildFDs(args []string) (in, out int, ok bool) {
	if len(args) < 2 {
		return 0, 0, false
	}
	in, ok1 := parseFDNumber(args[0])
	out, ok2 := parseFDNumber(args[1])
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	if len(args) > 2 {
		if _, ok := parseFDNumber(args[2]); ok {
			return 0, 0, false
		}
	}
	return in, out, true
}

// parseFDNumber parses a non-negative decimal int32: digits only.
func parseFDNumber(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	return parseLLVMInt(s)
}

// Listen starts listening for a ModeListen or ModeUnix spec.
func (s Spec) Listen() (*Listener, error) {
	switch s.Mode {
	case ModeListen:
		return ListenTCP(s.Host, s.Port)
	case ModeUnix:
		return ListenUnix(s.Path)
	}
	return nil, fmt.Errorf("simpleremote: %v spec %q does not listen", s.Mode, s.orig)
}

// Open establishes the connection: it adopts the descriptors of a
// filedescs or socket:adopt spec (a bad one is a *UsageError), connects
// for tcp:connect, or listens and accepts one connection for listen and
// unix specs (until ctx ends).
func (s Spec) Open(ctx context.Context) (Conn, error) {
	return s.OpenListening(ctx, nil)
}

// OpenListening is Open, except that for listen and unix specs it calls
// onListen (if non-nil) with the listening address once the socket
// listens, before it accepts: with listen=HOST:0 nothing else tells the
// controller the port. A connection attempt made from onListen (or after
// it) is accepted.
func (s Spec) OpenListening(ctx context.Context, onListen func(net.Addr)) (Conn, error) {
	switch s.Mode {
	case ModeFileDescs:
		return adoptFDs(s.InFD, s.OutFD, s.InText, s.OutText)
	case ModeSocket:
		c, err := AdoptSocket(s.InFD)
		if errors.Is(err, syscall.EBADF) {
			return nil, &UsageError{Msg: s.InText + " is not a valid file descriptor"}
		}
		return c, err
	case ModeConnect:
		return DialTCP(ctx, s.Host, s.Port)
	}
	l, err := s.Listen()
	if err != nil {
		return nil, err
	}
	if onListen != nil {
		onListen(l.Addr())
	}
	return l.Accept(ctx)
}
