//go:build cgo && linux

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/native/fatalsig"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
)

// workerArg starts a serve worker: the server re-executes its own binary
// with it and the control socket as descriptor ctlFD.
const (
	workerArg = "__orcrt-serve-worker"
	ctlFD     = 3
)

// Control messages on the worker's SOCK_SEQPACKET socketpair, one per
// packet, fields separated by NUL: worker to server "ready", "started"
// (peer pid, dialect, evidence) and "end" (reason); server to worker
// "session" (id) with the connection, and optionally the session's
// stdout and stderr, as SCM_RIGHTS.
const (
	msgReady   = "ready"
	msgSession = "session"
	msgStarted = "started"
	msgEnd     = "end"
)

// workerLimits is what the server passes a worker on its command line.
type workerLimits struct {
	as   uint64        // RLIMIT_AS in bytes (0: unlimited)
	cpu  time.Duration // RLIMIT_CPU (0: unlimited)
	idle time.Duration // end the session after this long without traffic (0: never)
}

func (l workerLimits) args() []string {
	return []string{workerArg,
		"-as=" + strconv.FormatUint(l.as, 10),
		"-cpu=" + l.cpu.String(),
		"-idle=" + l.idle.String()}
}

// workerMain is a serve worker: initialised before any controller
// connects, it tells the server it is ready, waits for one connection on
// the control socket and serves it as `socket:adopt=` would (choosing
// the dialect per connection), then exits. The server closing the
// control socket first ends it with status 0.
func workerMain(argv0 string, args []string) int {
	fs := flag.NewFlagSet(workerArg, flag.ContinueOnError)
	var lim workerLimits
	fs.Uint64Var(&lim.as, "as", 0, "")
	fs.DurationVar(&lim.cpu, "cpu", 0, "")
	fs.DurationVar(&lim.idle, "idle", 0, "")
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "%s: serve worker: %v\n", argv0, err)
		return 1
	}
	if err := fs.Parse(args); err != nil {
		return fail(err)
	}
	if _, err := unix.FcntlInt(ctlFD, unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
		return fail(fmt.Errorf("control socket: %w", err))
	}
	if err := fatalsig.Install(); err != nil {
		return fail(err)
	}
	// What a spawned executor does after Setup happens here, before any
	// controller waits (RATIONALE.md, "orcrt-executor serve").
	if err := executor.PrepareProcess(); err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ss := session{ctx: ctx}
	if os.Getenv("ORCRT_LOG") == "debug" {
		ss.logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	var act *activity
	if lim.idle > 0 {
		act = &activity{}
		ss.dispatcher = act
	}
	// The executor is built before the controller connects, for the
	// dialect ORCRT_LLVM names (which also spares the look-up of a TCP
	// peer's process), else for the newest, used if the controller turns
	// out to be of that release (RATIONALE.md, "orcrt-executor serve").
	var how string
	pinned := os.Getenv("ORCRT_LLVM") != ""
	ahead := dialect.Latest
	if pinned {
		d, ev, err := dialect.Choose(os.Getenv("ORCRT_LLVM"), 0)
		if err != nil {
			return fail(err)
		}
		ahead, how = d, ev.How
	}
	ss.dialect = ahead
	built, err := executor.New(ss.options())
	if err != nil {
		return fail(err)
	}
	if err := sendCtl(msgReady); err != nil {
		return fail(err)
	}
	id, fds, err := recvSession()
	if err != nil {
		return fail(err)
	}
	if fds == nil {
		return 0 // the server let this worker go
	}
	if len(fds) == 3 {
		for i, fd := range fds[1:] {
			if err := unix.Dup3(fd, i+1, 0); err != nil {
				return fail(fmt.Errorf("session %d: output: %w", id, err))
			}
			_ = unix.Close(fd)
		}
	}
	if err := lim.apply(); err != nil {
		return fail(fmt.Errorf("session %d: %w", id, err))
	}
	conn, err := simpleremote.AdoptSocket(fds[0])
	if err != nil {
		return fail(fmt.Errorf("session %d: %w", id, err))
	}
	pid := 0
	ss.executor = built
	if !pinned {
		pid = simpleremote.PeerPID(conn)
		d, ev, err := dialect.Choose("", pid)
		if err != nil {
			_ = conn.Close()
			return fail(err)
		}
		if d != ahead {
			built.Close()
			ss.executor = nil // runSession builds it for d
		}
		ss.dialect, how = d, ev.How
	}
	ss.started = func(*executor.Executor) {
		_ = sendCtl(msgStarted, strconv.Itoa(pid), ss.dialect.Name, how)
	}
	// Serve watches a loopback controller's socket (the
	// -oop-executor-connect exit) from the start, and its first look
	// scans /proc, CPU taken from the Setup write. Serve gets a wrapper
	// instead, and the watch starts once the controller has sent its
	// first message.
	wc := &workerConn{Conn: conn, act: act}
	defer wc.stopWatch()
	ss.wrap = func(simpleremote.Conn) simpleremote.Conn {
		time.AfterFunc(watchDelay, wc.startWatch) // a controller that never sends
		return wc
	}
	if act != nil {
		act.touch()
		go act.watch(ctx, lim.idle, func() {
			_ = sendCtl(msgEnd, "idle-timeout")
			cancel()
		})
	}
	if lim.cpu > 0 {
		xcpu := make(chan os.Signal, 1)
		signal.Notify(xcpu, syscall.SIGXCPU)
		go func() {
			<-xcpu
			_ = sendCtl(msgEnd, "cpu-limit")
			_ = unix.Kill(os.Getpid(), unix.SIGKILL)
		}()
	}
	return runSession(argv0, conn, ss)
}

// apply sets the session's resource limits on this process.
func (l workerLimits) apply() error {
	if l.as > 0 {
		if err := unix.Setrlimit(unix.RLIMIT_AS, &unix.Rlimit{Cur: l.as, Max: l.as}); err != nil {
			return fmt.Errorf("RLIMIT_AS: %w", err)
		}
	}
	if l.cpu > 0 {
		// The soft limit's SIGXCPU is reported, then the worker kills
		// itself; the hard limit a second later is the backstop.
		sec := uint64((l.cpu + time.Second - 1) / time.Second)
		if err := unix.Setrlimit(unix.RLIMIT_CPU, &unix.Rlimit{Cur: sec, Max: sec + 1}); err != nil {
			return fmt.Errorf("RLIMIT_CPU: %w", err)
		}
	}
	return nil
}

// sendCtl sends one control message to the server.
func sendCtl(fields ...string) error {
	b := []byte(fields[0])
	for _, f := range fields[1:] {
		b = append(append(b, 0), f...)
	}
	for {
		_, err := unix.Write(ctlFD, b)
		if !errors.Is(err, unix.EINTR) {
			if err != nil {
				return fmt.Errorf("control socket: %w", err)
			}
			return nil
		}
	}
}

// recvSession waits for the server's session message and returns its id
// and descriptors (the connection first); nil descriptors mean the
// server closed the control socket.
func recvSession() (id uint64, fds []int, err error) {
	buf := make([]byte, 128)
	oob := make([]byte, unix.CmsgSpace(3*4))
	var n, oobn int
	for {
		n, oobn, _, _, err = unix.Recvmsg(ctlFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return 0, nil, fmt.Errorf("control socket: %w", err)
	}
	if n == 0 && oobn == 0 {
		return 0, nil, nil
	}
	scms, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return 0, nil, fmt.Errorf("control socket: %w", err)
	}
	for _, scm := range scms {
		got, err := unix.ParseUnixRights(&scm)
		if err != nil {
			return 0, nil, fmt.Errorf("control socket: %w", err)
		}
		fds = append(fds, got...)
	}
	kind, rest, _ := cutField(string(buf[:n]))
	id, perr := strconv.ParseUint(rest, 10, 64)
	if kind != msgSession || perr != nil || (len(fds) != 1 && len(fds) != 3) {
		for _, fd := range fds {
			_ = unix.Close(fd)
		}
		return 0, nil, fmt.Errorf("control socket: unexpected message %q with %d descriptors", buf[:n], len(fds))
	}
	return id, fds, nil
}

// cutField splits a control message at its first NUL.
func cutField(s string) (head, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// activity tracks a session's traffic and its calls in flight, for the
// idle timeout: a session is idle when the controller has sent nothing
// for the timeout and no call of its runs (a long JIT'd main is busy, not
// idle). As the Dispatcher it runs each call on its own goroutine, as
// the stock executor's thread per call.
type activity struct {
	last atomic.Int64 // unix nanoseconds of the last read or call end
	busy atomic.Int64 // calls in flight
}

func (a *activity) touch() { a.last.Store(time.Now().UnixNano()) }

// Dispatch runs t, counting it in flight.
func (a *activity) Dispatch(t *rt.Task) {
	a.busy.Add(1)
	go func() {
		defer a.touch()
		defer a.busy.Add(-1)
		t.Run()
	}()
}

// watch calls idle once the session has been idle for d, or returns when
// ctx ends.
func (a *activity) watch(ctx context.Context, d time.Duration, idle func()) {
	tick := time.NewTicker(min(d/4, time.Second))
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if a.busy.Load() == 0 && time.Since(time.Unix(0, a.last.Load())) >= d {
			idle()
			return
		}
	}
}

// workerConn is the connection Serve gets in a worker: every read that
// brings data counts as activity (with an idle timeout), and the first
// (or watchDelay) starts the watch for a controller that closes without
// a shutdown.
type workerConn struct {
	simpleremote.Conn
	act     *activity
	first   sync.Once
	mu      sync.Mutex
	stop    func()
	stopped bool
}

func (c *workerConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		if c.act != nil {
			c.act.touch()
		}
		c.startWatch()
	}
	return n, err
}

// watchDelay is when the peer watch starts if the controller has sent
// nothing by then: Setup is long written.
const watchDelay = 20 * time.Millisecond

func (c *workerConn) startWatch() {
	c.first.Do(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.stopped {
			c.stop = simpleremote.WatchPeerClose(c.Conn, executor.PeerWatchInterval, nil)
		}
	})
}

func (c *workerConn) stopWatch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	if c.stop != nil {
		c.stop()
	}
}

// SyscallConn keeps the writev path of the wrapped socket.
func (c *workerConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("orcrt-executor: serve worker: connection has no raw descriptor")
	}
	return sc.SyscallConn()
}
