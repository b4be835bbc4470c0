//go:build cgo && linux

package worker

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/native/fatalsig"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
	"github.com/orcgo/orcrt/serve/internal/peer"
	"github.com/orcgo/orcrt/serve/internal/wire"
)

// MaybeRunWorker returns at once unless this process is a serve worker
// (its first argument is WorkerArg): then it runs the worker and ends
// the process with the worker's status, through libc's exit as
// orcrt-executor does. A program that embeds serve.Run with the default
// Config.WorkerPath calls it first thing in main, before it parses its
// own arguments or starts anything. trace, if not nil, logs each
// session's protocol traffic.
func MaybeRunWorker(trace executor.Logger) {
	if len(os.Args) > 1 && os.Args[1] == WorkerArg {
		fatalsig.Exit(RunWorker(os.Args[0], os.Args[2:], trace))
	}
}

// RunWorker is a serve worker, args its flags (those after WorkerArg,
// as the server writes them): initialised before any controller
// connects, it tells the server it is ready and waits for one
// connection: accepted on the listening sockets itself once the server
// arms it, its peer checked against the policy, or handed over by the
// server. It serves it as `socket:adopt=` would (choosing the dialect
// per connection) and returns the exit status. The server closing the
// control socket first ends it with status 0.
func RunWorker(argv0 string, args []string, trace executor.Logger) int {
	w := &process{argv0: argv0}
	if err := w.parse(args); err != nil {
		return w.fail(err)
	}
	built, err := w.prepare(trace)
	if err != nil {
		return w.fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w.ss.ctx = ctx
	cw, err := newConnWait(w.ctl, wire.ListenFD, w.args.Listeners, w.pol)
	if err != nil {
		return w.fail(err)
	}
	if err := w.ctl.Send(wire.MsgReady); err != nil {
		return w.fail(err)
	}
	acc, err := cw.wait()
	if err != nil || acc == nil {
		cw.close()
		if err != nil {
			return w.fail(err)
		}
		return 0 // the server let this worker go
	}
	// One connection per worker: the listening sockets go once Setup is
	// out (the reader's first Read), before any call can arrive, so
	// neither this session's JIT'd code nor what it forks holds them.
	closeListeners := sync.OnceFunc(cw.close)
	defer closeListeners()
	return w.serve(acc, built, closeListeners, cancel)
}

// process is a worker's state, from its command line to its session.
type process struct {
	argv0    string
	args     wire.Args
	pol      peer.Policy
	ctl      wire.Ctl
	ids      *uint64 // the session counter
	unmapIDs func()
	ss       Session
	idle     *idleWatch // with an idle timeout
	pinned   bool       // the server named the dialect (serve.Config.LLVM)
	ahead    *dialect.Dialect
	how      string // the dialect's evidence
	pid      int    // the controller's process (-1, 0: unknown)
}

func (w *process) fail(err error) int {
	fmt.Fprintf(os.Stderr, "%s: serve worker: %v\n", w.argv0, err)
	return 1
}

// parse reads the worker's command line.
func (w *process) parse(args []string) error {
	a, err := wire.ParseArgs(args)
	if err != nil {
		return err
	}
	w.args = a
	w.pol = peer.Policy{Self: os.Geteuid(), UIDs: a.AllowUIDs, GIDs: a.AllowGIDs, AllowRemote: a.AllowRemote}
	w.ss.DrainTimeout, w.ss.MaxMessageSize = a.DrainTimeout, a.MaxMessageSize
	return nil
}

// prepare takes the inherited descriptors and does, before any
// controller waits, what a spawned executor does after Setup
// (RATIONALE.md, "orcrt-executor serve"); it returns the executor built
// ahead.
func (w *process) prepare(trace executor.Logger) (*executor.Executor, error) {
	inherited := []int{wire.CtlFD, wire.IDsFD}
	for i := range w.args.Listeners {
		inherited = append(inherited, wire.ListenFD+i)
	}
	for _, fd := range inherited {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
			return nil, fmt.Errorf("descriptor %d: %w", fd, err)
		}
	}
	var err error
	if w.ids, w.unmapIDs, err = wire.MapCounter(wire.IDsFD); err != nil {
		return nil, err
	}
	if err := fatalsig.Install(); err != nil {
		return nil, err
	}
	if err := executor.PrepareProcess(); err != nil {
		return nil, err
	}
	w.ss.Logger = trace
	if w.args.IdleTimeout > 0 {
		w.idle = &idleWatch{}
		w.ss.dispatcher = w.idle
	}
	built, err := w.buildAhead()
	if err != nil {
		return nil, err
	}
	// Go's poller starts with the first descriptor it polls, the
	// connection: start it now (epoll_create, an eventfd), not between
	// accept and Setup. Serve's GOMAXPROCS stops the world after Setup,
	// as the controller reads it: a worker has nothing running yet.
	if pr, pw, err := os.Pipe(); err == nil {
		pr.Close()
		pw.Close()
	}
	if n := w.ss.options().MaxProcs; n > 0 && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(n)
	}
	warmUp(built, w.ss.options().Wire, inherited[2:], w.pol)
	w.ctl = wire.Ctl(wire.CtlFD)
	return built, nil
}

// buildAhead builds the executor before the controller connects, for
// the dialect the server named (which also spares the look-up of a TCP
// peer's process), else for the newest, used if the controller turns
// out to be of that release (RATIONALE.md, "orcrt-executor serve").
func (w *process) buildAhead() (*executor.Executor, error) {
	w.pinned = w.args.LLVM != ""
	w.ahead = dialect.Latest
	if w.pinned {
		d, ev, err := dialect.Choose(w.args.LLVM, 0)
		if err != nil {
			return nil, err
		}
		w.ahead, w.how = d, ev.How
	}
	w.ss.dialect = w.ahead
	return executor.New(w.ss.options())
}

// serve serves the worker's one connection and returns the exit status.
func (w *process) serve(acc *accepted, built *executor.Executor, closeListeners, cancel func()) int {
	if !acc.handed {
		acc.id = atomic.AddUint64(w.ids, 1)
	}
	if w.args.OutputDir != "" {
		if err := openOutputs(w.args.OutputDir, acc.id); err != nil {
			_ = acc.conn.Close()
			return w.fail(fmt.Errorf("session %d: output: %w", acc.id, err))
		}
	}
	conn := acc.conn
	w.pid = acc.peer.PID
	// The server learns of the session once Setup is out and the
	// controller has read it: at its first message (or end of file), or
	// watchDelay after Setup, or as the worker ends if it never gets that
	// far. Earlier, the server's wake-up would compete with the
	// controller for the CPU while it reads Setup.
	report := sync.OnceFunc(func() {
		pr := acc.peer
		_ = w.ctl.SendMsg(wire.Started{PID: w.pid, Dialect: w.ss.dialect.Name, How: w.how, ID: acc.id, Accepted: acc.start,
			Network: pr.Network, Addr: pr.Addr, UID: pr.UID, GID: pr.GID}.Encode())
		w.unmapIDs()
	})
	defer report()
	if err := applyRlimits(w.args); err != nil {
		_ = conn.Close()
		return w.fail(fmt.Errorf("session %d: %w", acc.id, err))
	}
	w.ss.executor = built
	if err := w.chooseDialect(conn, built); err != nil {
		_ = conn.Close()
		return w.fail(err)
	}
	// Serve watches a loopback controller's socket (the
	// -oop-executor-connect exit) from the start, and its first look
	// scans /proc, CPU taken from the Setup write. Serve gets a wrapper
	// instead, and the watch starts once the controller has sent its
	// first message.
	sc := &sessionConn{Conn: conn, idle: w.idle, report: report, setupOut: closeListeners}
	defer sc.stopWatch()
	w.ss.wrap = func(simpleremote.Conn) simpleremote.Conn {
		time.AfterFunc(watchDelay, func() { // a controller that never sends
			report()
			sc.startWatch()
		})
		return sc
	}
	w.watchLimits(cancel)
	return w.ss.Serve(w.argv0, conn)
}

// chooseDialect chooses the dialect for the controller on conn, unless
// the server pinned it; an executor built ahead for another one is
// dropped, and Session.Serve builds one.
func (w *process) chooseDialect(conn simpleremote.Conn, built *executor.Executor) error {
	if w.pinned {
		return nil
	}
	if w.pid <= 0 {
		w.pid = simpleremote.PeerPID(conn)
	}
	d, ev, err := dialect.Choose("", w.pid)
	if err != nil {
		return err
	}
	if d != w.ahead {
		built.Close()
		w.ss.executor = nil
	}
	w.ss.dialect, w.how = d, ev.How
	return nil
}

// watchLimits ends the session at the idle timeout (cancel) and at the
// CPU limit's SIGXCPU (the worker kills itself), telling the server why.
func (w *process) watchLimits(cancel func()) {
	if w.idle != nil {
		w.idle.touch()
		go w.idle.watch(w.ss.ctx, w.args.IdleTimeout, func() {
			_ = w.ctl.Send(wire.MsgEnd, "idle-timeout")
			cancel()
		})
	}
	if w.args.RlimitCPU > 0 {
		xcpu := make(chan os.Signal, 1)
		signal.Notify(xcpu, syscall.SIGXCPU)
		go func() {
			<-xcpu
			_ = w.ctl.Send(wire.MsgEnd, "cpu-limit")
			_ = unix.Kill(os.Getpid(), unix.SIGKILL)
		}()
	}
}
