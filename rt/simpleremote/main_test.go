package simpleremote_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/native/hostcpu"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/sps"
)

// execEnv makes the test binary act as a minimal executor (see
// executorMain): the process tests start it the way llvm-jitlink starts
// llvm-jitlink-executor.
const execEnv = "ORCRT_SIMPLEREMOTE_TEST_EXECUTOR"

func TestMain(m *testing.M) {
	if os.Getenv(execEnv) == "1" {
		os.Exit(executorMain())
	}
	// Initialise the runtime poller (its epoll and wake descriptors stay
	// open for good) before taking the descriptor baseline.
	if r, w, err := os.Pipe(); err == nil {
		_, _ = r.Close(), w.Close()
	}
	before := countFDs()
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
		if after := countFDs(); after > before {
			fmt.Fprintf(os.Stderr, "file descriptor leak: %d open before the tests, %d after\n", before, after)
			code = 1
		}
	}
	os.Exit(code)
}

func countFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	return len(ents)
}

// Names of the test wrappers.
const (
	symEcho    = "test_echo"    // returns its arguments
	symEmpty   = "test_empty"   // returns an empty result
	symOOB     = "test_oob"     // returns an out-of-band error
	symBig     = "test_big"     // u64 n -> n pattern bytes
	symCallCtl = "test_callctl" // Addr tag, rest -> blocks on a controller call to tag with rest, returns its result
	symGate    = "test_gate"    // u64 id -> blocks until gate id opens, returns id
	symSpawn   = "test_spawn"   // starts `sleep 60`, returns its pid (u64)
)

// testSession is a Session with the test wrappers, a GoRunner and a
// recorder of disconnect notifications.
type testSession struct {
	s      *rt.Session
	runner *rt.GoRunner
	bi     *rt.BootstrapInfo

	gatesMu sync.Mutex
	gates   map[uint64]chan struct{}
	entered chan uint64 // gate ids whose wrapper is running

	discMu      sync.Mutex
	disconnects []error
	discCount   atomic.Int32
	reported    chan error
}

func newTestSession() (*testSession, error) {
	info, err := rt.DetectProcessInfo()
	if err != nil {
		return nil, err
	}
	info = info.WithFeatures(hostcpu.Features()) // a non-empty bootstrap value
	ts := &testSession{runner: rt.NewGoRunner(0), gates: map[uint64]chan struct{}{}, entered: make(chan uint64, 100), reported: make(chan error, 100)}
	ts.s = rt.NewSession(info, ts.runner, func(_ *rt.Session, err error) {
		select {
		case ts.reported <- err:
		default:
		}
	})
	ts.s.SetOnDisconnect(func(err error) {
		ts.discCount.Add(1)
		ts.discMu.Lock()
		ts.disconnects = append(ts.disconnects, err)
		ts.discMu.Unlock()
	})
	s := ts.s
	wrappers := map[string]rt.WrapperFunc{
		symEcho:  func(_ *rt.Session, args []byte, ret rt.ReturnFunc) { ret(rt.ResultBytes(args)) },
		symEmpty: func(_ *rt.Session, _ []byte, ret rt.ReturnFunc) { ret(rt.EmptyResult()) },
		symOOB:   func(_ *rt.Session, _ []byte, ret rt.ReturnFunc) { ret(rt.OutOfBandResult("test: boom")) },
		symBig: func(_ *rt.Session, args []byte, ret rt.ReturnFunc) {
			if len(args) < 8 {
				ret(rt.OutOfBandResult("test: short args"))
				return
			}
			ret(rt.ResultBytes(pattern(int(binary.LittleEndian.Uint64(args)))))
		},
		symCallCtl: func(s *rt.Session, args []byte, ret rt.ReturnFunc) {
			if len(args) < 8 {
				ret(rt.OutOfBandResult("test: short args"))
				return
			}
			// Block this goroutine until the controller answers, as
			// JIT'd code blocks in dispatch_fn.
			done := make(chan rt.WrapperResult, 1)
			s.CallController(sps.Addr(binary.LittleEndian.Uint64(args)), args[8:], func(r rt.WrapperResult) { done <- r })
			ret(<-done)
		},
		symGate: func(_ *rt.Session, args []byte, ret rt.ReturnFunc) {
			if len(args) < 8 {
				ret(rt.OutOfBandResult("test: short args"))
				return
			}
			id := binary.LittleEndian.Uint64(args)
			g := ts.gate(id)
			select {
			case ts.entered <- id:
			default:
			}
			<-g
			ret(rt.ResultBytes(args[:8]))
		},
		symSpawn: func(_ *rt.Session, _ []byte, ret rt.ReturnFunc) {
			cmd := exec.Command("sleep", "60")
			if err := cmd.Start(); err != nil {
				ret(rt.OutOfBandResult(err.Error()))
				return
			}
			go func() { _ = cmd.Wait() }()
			ret(rt.ResultBytes(binary.LittleEndian.AppendUint64(nil, uint64(cmd.Process.Pid))))
		},
	}
	bi, err := rt.DefaultBootstrapInfo(s, func(s *rt.Session, st *rt.SymbolTable) error {
		for name, fn := range wrappers {
			if err := st.Add(name, s.RegisterWrapper(fn)); err != nil {
				return err
			}
		}
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	ts.bi = bi
	return ts, nil
}

func (ts *testSession) gate(id uint64) chan struct{} {
	ts.gatesMu.Lock()
	defer ts.gatesMu.Unlock()
	g, ok := ts.gates[id]
	if !ok {
		g = make(chan struct{})
		ts.gates[id] = g
	}
	return g
}

func (ts *testSession) open(id uint64) { close(ts.gate(id)) }

func (ts *testSession) close() {
	ts.s.Close()
	ts.runner.Close()
}

func (ts *testSession) disconnectErrs() []error {
	ts.discMu.Lock()
	defer ts.discMu.Unlock()
	return append([]error(nil), ts.disconnects...)
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*131 + i>>8)
	}
	return b
}

func u64(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }

// executorMain is a minimal orcrt executor: the stock command line,
// transports, error texts and exit codes, the test wrappers. The real one
// is cmd/orcrt-executor.
func executorMain() int {
	argv0 := os.Args[0]
	if p := os.Getenv("ORCRT_TEST_ARGV0"); p != "" {
		argv0 = p
	}
	args, err := simpleremote.ParseArgs(os.Args[1:])
	if err == nil && args.Spec.Mode == simpleremote.ModeListen && os.Getenv("ORCRT_TEST_PRINT_ADDR") == "1" {
		l, lerr := args.Spec.Listen()
		if lerr != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, lerr)
			return 1
		}
		fmt.Println(l.Addr())
		conn, aerr := l.Accept(context.Background())
		if aerr != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, aerr)
			return 1
		}
		return serve(argv0, conn)
	}
	var conn simpleremote.Conn
	if err == nil {
		conn, err = args.Spec.Open(context.Background())
	}
	if err != nil {
		var ue *simpleremote.UsageError
		if errors.As(err, &ue) {
			fmt.Fprint(os.Stderr, formatUsageError(ue.Msg))
		} else {
			fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, err)
		}
		return 1
	}
	return serve(argv0, conn)
}

func serve(argv0 string, conn simpleremote.Conn) int {
	ts, err := newTestSession()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, err)
		return 1
	}
	ca := simpleremote.New(conn, nil)
	_ = ts.s.Attach(ca, ts.bi)
	err = ca.Wait()
	// Bound the shutdown: a wrapper blocked forever must not hang us.
	done := make(chan struct{})
	go func() { ts.close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s\n", argv0, err)
		return 1
	}
	if n := os.Getenv("ORCRT_TEST_EXIT"); n != "" {
		c, _ := strconv.Atoi(n)
		return c
	}
	return 0
}

// stockUsage is the stock executor's usage text, byte for byte (it does
// not list orcrt's unix=), printed after a usage error.
const stockUsage = "Usage:\n" +
	"  llvm-jitlink-executor [test-jitloadergdb] filedescs=<infd>,<outfd> [args...]\n" +
	"  llvm-jitlink-executor [test-jitloadergdb] listen=<host>:<port> [args...]\n"

// formatUsageError returns the stock executor's complete stderr text for
// a usage error: "error: <msg>\n\n" + stockUsage.
func formatUsageError(msg string) string {
	return "error: " + msg + "\n\n" + stockUsage
}
