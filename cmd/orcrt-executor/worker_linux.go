//go:build cgo && linux

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/native/fatalsig"
	"github.com/orcgo/orcrt/rt"
	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
)

// workerArg starts a serve worker: the server re-executes its own binary
// with it, the control socket as descriptor ctlFD, the session counter
// as idsFD and its listening sockets from listenFD on.
const (
	workerArg = "__orcrt-serve-worker"
	ctlFD     = 3
	idsFD     = 4
	listenFD  = 5
)

// Control messages on the worker's SOCK_SEQPACKET socketpair, one per
// packet, fields separated by NUL. Worker to server: "ready"; "started"
// once Setup is out (peer pid, dialect, evidence, session id, accept
// time, and for a connection the worker accepted itself the peer's
// network, address, uid and gid); "refused" (kind, network, address,
// uid, pid, why) for a peer the policy turned away; "end" (reason).
// Server to worker: "accept" (wait on the listening sockets too),
// "session" (id) with a connection the server accepted, as SCM_RIGHTS;
// the end of the stream lets the worker go. A worker opens its session's
// output files (-output) itself.
const (
	msgReady   = "ready"
	msgAccept  = "accept"
	msgSession = "session"
	msgStarted = "started"
	msgRefused = "refused"
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
// connects, it tells the server it is ready and waits for one
// connection: accepted on the listening sockets itself once the server
// arms it, its peer checked against the policy, or handed over by the
// server. It serves it as `socket:adopt=` would (choosing the dialect
// per connection), then exits. The server closing the control socket
// first ends it with status 0.
func workerMain(argv0 string, args []string) int {
	fs := flag.NewFlagSet(workerArg, flag.ContinueOnError)
	var (
		lim              workerLimits
		nls              int
		uids, gids, outd string
	)
	pol := policy{self: os.Geteuid()}
	fs.Uint64Var(&lim.as, "as", 0, "")
	fs.DurationVar(&lim.cpu, "cpu", 0, "")
	fs.DurationVar(&lim.idle, "idle", 0, "")
	fs.IntVar(&nls, "listeners", 0, "")
	fs.StringVar(&uids, "allow-uid", "", "")
	fs.StringVar(&gids, "allow-gid", "", "")
	fs.BoolVar(&pol.allowRemote, "allow-remote", false, "")
	fs.StringVar(&outd, "output", "", "")
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "%s: serve worker: %v\n", argv0, err)
		return 1
	}
	if err := fs.Parse(args); err != nil {
		return fail(err)
	}
	var err error
	if pol.uids, err = parseIDs(uids, lookupUser); err != nil {
		return fail(err)
	}
	if pol.gids, err = parseIDs(gids, lookupGroup); err != nil {
		return fail(err)
	}
	inherited := []int{ctlFD, idsFD}
	for i := range nls {
		inherited = append(inherited, listenFD+i)
	}
	for _, fd := range inherited {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil {
			return fail(fmt.Errorf("descriptor %d: %w", fd, err))
		}
	}
	ids, unmapIDs, err := mapCounter(idsFD)
	if err != nil {
		return fail(err)
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
		ss.logger = newTextLogger(os.Stderr, levelDebug)
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
	// Go's poller starts with the first descriptor it polls, the
	// connection: start it now (epoll_create, an eventfd), not between
	// accept and Setup. Serve's GOMAXPROCS stops the world after Setup,
	// as the controller reads it: a worker has nothing running yet.
	if r, w, err := os.Pipe(); err == nil {
		r.Close()
		w.Close()
	}
	if n := ss.options().MaxProcs; n > 0 && os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(n)
	}
	warmUp(built, ss.options().Wire, inherited[2:], pol)
	ctl := ctlSock(ctlFD)
	wt, err := newWaiter(ctl, listenFD, nls, pol)
	if err != nil {
		return fail(err)
	}
	if err := ctl.send(msgReady); err != nil {
		return fail(err)
	}
	acc, err := wt.wait()
	if err != nil || acc == nil {
		wt.close()
		if err != nil {
			return fail(err)
		}
		return 0 // the server let this worker go
	}
	// One connection per worker: the listening sockets go once Setup is
	// out (the reader's first Read), before any call can arrive, so
	// neither this session's JIT'd code nor what it forks holds them.
	closeListeners := sync.OnceFunc(wt.close)
	defer closeListeners()
	if !acc.handed {
		acc.id = atomic.AddUint64(ids, 1)
	}
	if outd != "" {
		if err := openOutputs(outd, acc.id); err != nil {
			_ = acc.conn.Close()
			return fail(fmt.Errorf("session %d: output: %w", acc.id, err))
		}
	}
	conn := acc.conn
	pid := acc.peer.pid
	// The server learns of the session once Setup is out and the
	// controller has read it: at its first message (or end of file), or
	// watchDelay after Setup, or as the worker ends if it never gets that
	// far. Earlier, the server's wake-up would compete with the
	// controller for the CPU while it reads Setup.
	report := sync.OnceFunc(func() {
		pr := acc.peer
		_ = ctl.send(msgStarted, strconv.Itoa(pid), ss.dialect.Name, how,
			strconv.FormatUint(acc.id, 10), strconv.FormatInt(acc.start.UnixNano(), 10),
			pr.network, pr.addr, strconv.Itoa(pr.uid), strconv.Itoa(pr.gid))
		unmapIDs()
	})
	defer report()
	if err := lim.apply(); err != nil {
		_ = conn.Close()
		return fail(fmt.Errorf("session %d: %w", acc.id, err))
	}
	ss.executor = built
	if !pinned {
		if pid <= 0 {
			pid = simpleremote.PeerPID(conn)
		}
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
	// Serve watches a loopback controller's socket (the
	// -oop-executor-connect exit) from the start, and its first look
	// scans /proc, CPU taken from the Setup write. Serve gets a wrapper
	// instead, and the watch starts once the controller has sent its
	// first message.
	wc := &workerConn{Conn: conn, act: act, report: report, setupOut: closeListeners}
	defer wc.stopWatch()
	ss.wrap = func(simpleremote.Conn) simpleremote.Conn {
		time.AfterFunc(watchDelay, func() { // a controller that never sends
			report()
			wc.startWatch()
		})
		return wc
	}
	if act != nil {
		act.touch()
		go act.watch(ctx, lim.idle, func() {
			_ = ctl.send(msgEnd, "idle-timeout")
			cancel()
		})
	}
	if lim.cpu > 0 {
		xcpu := make(chan os.Signal, 1)
		signal.Notify(xcpu, syscall.SIGXCPU)
		go func() {
			<-xcpu
			_ = ctl.send(msgEnd, "cpu-limit")
			_ = unix.Kill(os.Getpid(), unix.SIGKILL)
		}()
	}
	return runSession(argv0, conn, ss)
}

// mapCounter maps the session counter the server shares (a memfd) and
// closes fd: a worker takes the next session id from it when it accepts
// a connection, so ids follow the order of acceptance whoever accepts.
func mapCounter(fd int) (ctr *uint64, unmap func(), err error) {
	mem, err := unix.Mmap(fd, 0, 8, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	_ = unix.Close(fd)
	if err != nil {
		return nil, nil, fmt.Errorf("session counter: %w", err)
	}
	return (*uint64)(unsafe.Pointer(&mem[0])), sync.OnceFunc(func() { _ = unix.Munmap(mem) }), nil
}

// openOutputs makes dir/session-<id>.stdout and .stderr this process's
// stdout and stderr (serve -output).
func openOutputs(dir string, id uint64) error {
	for i, ext := range []string{"stdout", "stderr"} {
		fd, err := unix.Open(filepath.Join(dir, fmt.Sprintf("session-%d.%s", id, ext)), unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return err
		}
		err = unix.Dup3(fd, i+1, 0)
		_ = unix.Close(fd)
		if err != nil {
			return err
		}
	}
	return nil
}

// accepted is a worker's one connection.
type accepted struct {
	conn   simpleremote.Conn
	peer   peer // the worker's own check (handed: unknown, network "")
	id     uint64
	start  time.Time
	handed bool // by the server, with the session id
}

// waiter is an idle worker's wait for its connection: one epoll set
// holds the control socket and, once the server arms the worker
// (msgAccept), the listening sockets, each with EPOLLEXCLUSIVE so that a
// connection wakes one waiting worker, not all of them. accept4 on the
// shared non-blocking sockets decides who takes it: EAGAIN means
// another worker did.
type waiter struct {
	ctl   ctlSock
	ep    int
	ls    []int  // listening sockets; -1 once dropped
	unix  []bool // ls[i] is a Unix-domain socket
	pol   policy
	armed bool
}

func newWaiter(ctl ctlSock, first, n int, pol policy) (*waiter, error) {
	ep, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("epoll: %w", err)
	}
	w := &waiter{ctl: ctl, ep: ep, pol: pol}
	for i := range n {
		fam, _ := unix.GetsockoptInt(first+i, unix.SOL_SOCKET, unix.SO_DOMAIN)
		w.ls = append(w.ls, first+i)
		w.unix = append(w.unix, fam == unix.AF_UNIX)
	}
	if err := unix.EpollCtl(ep, unix.EPOLL_CTL_ADD, int(ctl), &unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(ctl)}); err != nil {
		_ = unix.Close(ep)
		return nil, fmt.Errorf("epoll: control socket: %w", err)
	}
	return w, nil
}

// arm adds the listening sockets to the set.
func (w *waiter) arm() error {
	if w.armed {
		return nil
	}
	w.armed = true
	for _, fd := range w.ls {
		if fd < 0 {
			continue
		}
		ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLEXCLUSIVE, Fd: int32(fd)}
		err := unix.EpollCtl(w.ep, unix.EPOLL_CTL_ADD, fd, &ev)
		if errors.Is(err, unix.EINVAL) { // before Linux 4.5: every waiter wakes, one accepts
			ev.Events = unix.EPOLLIN
			err = unix.EpollCtl(w.ep, unix.EPOLL_CTL_ADD, fd, &ev)
		}
		if err != nil {
			return fmt.Errorf("epoll: listening socket %d: %w", fd, err)
		}
	}
	return nil
}

// drop stops waiting on listening socket i and closes it (serve shut it
// down: draining).
func (w *waiter) drop(i int) {
	if w.armed {
		_ = unix.EpollCtl(w.ep, unix.EPOLL_CTL_DEL, w.ls[i], nil)
	}
	_ = unix.Close(w.ls[i])
	w.ls[i] = -1
}

// close closes the listening sockets and the epoll set.
func (w *waiter) close() {
	for i, fd := range w.ls {
		if fd >= 0 {
			_ = unix.Close(fd)
			w.ls[i] = -1
		}
	}
	if w.ep >= 0 {
		_ = unix.Close(w.ep)
		w.ep = -1
	}
}

// wait returns the worker's connection: one it accepted whose peer the
// policy allows, or one the server handed over; nil when the server lets
// the worker go. A refused peer is reported to the server, closed, and
// the wait goes on.
func (w *waiter) wait() (*accepted, error) {
	var evs [8]unix.EpollEvent
	for {
		n, err := unix.EpollWait(w.ep, evs[:], -1)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("epoll_wait: %w", err)
		}
		if slices.ContainsFunc(evs[:n], func(ev unix.EpollEvent) bool { return ev.Fd == int32(w.ctl) }) {
			// The server first: being let go (draining) wins over a
			// connection, which another worker or the server may take
			// (level-triggered, it is reported again).
			acc, done, err := w.control()
			if done || err != nil {
				return acc, err
			}
			continue
		}
		for _, ev := range evs[:n] {
			if acc := w.accept(int(ev.Fd), ev.Events); acc != nil {
				return acc, nil
			}
		}
	}
}

// control reads one message from the server: done with nil when the
// server closed the socket, with a connection for "session"; "accept"
// arms the worker.
func (w *waiter) control() (acc *accepted, done bool, err error) {
	msg, fds, err := w.ctl.recv()
	if errors.Is(err, unix.EAGAIN) {
		return nil, false, nil
	}
	if err != nil {
		return nil, true, err
	}
	kind, rest, _ := cutField(msg)
	switch {
	case msg == "" && len(fds) == 0:
		return nil, true, nil
	case kind == msgAccept && len(fds) == 0:
		return nil, false, w.arm()
	case kind == msgSession && len(fds) == 1:
		id, perr := strconv.ParseUint(rest, 10, 64)
		if perr != nil {
			break
		}
		conn, err := simpleremote.AdoptSocket(fds[0])
		if err != nil {
			return nil, true, fmt.Errorf("session %d: %w", id, err)
		}
		return &accepted{conn: conn, peer: peer{uid: -1, gid: -1, pid: -1}, id: id, start: time.Now(), handed: true}, true, nil
	}
	for _, fd := range fds {
		_ = unix.Close(fd)
	}
	return nil, true, fmt.Errorf("control socket: unexpected message %q with %d descriptors", msg, len(fds))
}

// accept takes a connection from listening socket fd if one is there
// and checks its peer: the connection if allowed, else nil.
func (w *waiter) accept(fd int, events uint32) *accepted {
	i := slices.Index(w.ls, fd)
	if i < 0 {
		return nil
	}
	if events&(unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		w.drop(i) // shut down: the server is draining
		return nil
	}
	// A Unix-domain connection becomes an *os.File in Go's poller
	// (non-blocking); a TCP one goes through AdoptSocket, whose
	// os.NewFile needs it blocking to keep it out (Linux's accept4 does
	// not copy the listener's O_NONBLOCK).
	isUnix := w.unix[i]
	flags := unix.SOCK_CLOEXEC
	if isUnix {
		flags |= unix.SOCK_NONBLOCK
	}
	nfd, _, err := unix.Accept4(fd, flags)
	switch {
	case err == nil:
	case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EINTR), errors.Is(err, unix.ECONNABORTED):
		return nil // another worker took it, or it went away
	case errors.Is(err, unix.EMFILE), errors.Is(err, unix.ENFILE), errors.Is(err, unix.ENOBUFS), errors.Is(err, unix.ENOMEM):
		time.Sleep(50 * time.Millisecond)
		return nil
	default:
		w.drop(i) // not listening any more
		return nil
	}
	start := time.Now()
	if isUnix {
		return w.acceptUnix(nfd, start)
	}
	conn, err := simpleremote.AdoptSocket(nfd)
	if err != nil {
		fmt.Fprintf(os.Stderr, "orcrt-executor: serve worker: %v\n", err)
		return nil
	}
	nc, ok := conn.(net.Conn)
	if !ok {
		_ = conn.Close()
		return nil
	}
	pr, err := w.pol.check(nc)
	if err != nil {
		w.refuse(pr, err, conn.Close)
		return nil
	}
	return &accepted{conn: conn, peer: pr, start: start}
}

// acceptUnix checks the peer of fd, an accepted Unix-domain connection,
// and makes it the session's connection: a FileConn on one non-blocking
// file, which shuts the socket down on Close as AdoptSocket's does,
// without net.FileConn's duplicate descriptor and address look-ups (40
// of the 175 microseconds from accept to Setup).
func (w *waiter) acceptUnix(fd int, start time.Time) *accepted {
	pr, err := unixPeerFD(fd)
	if err == nil {
		err = w.pol.allow(pr)
	}
	if err != nil {
		w.refuse(pr, err, func() error { return unix.Close(fd) })
		return nil
	}
	f := os.NewFile(uintptr(fd), "unix-socket")
	return &accepted{conn: simpleremote.NewFileConn(f, f), peer: pr, start: start}
}

// refuse reports a peer the policy turned away, then closes its
// connection: the server has counted the refusal by the time the peer
// sees its end of file.
func (w *waiter) refuse(pr peer, why error, closeConn func() error) {
	_ = w.ctl.send(msgRefused, refusalKind(why), pr.network, pr.addr, strconv.Itoa(pr.uid), strconv.Itoa(pr.pid), why.Error())
	_ = closeConn()
}

// ctlSock is a worker's end of its control socket.
type ctlSock int

// send sends one control message to the server.
func (c ctlSock) send(fields ...string) error {
	b := []byte(fields[0])
	for _, f := range fields[1:] {
		b = append(append(b, 0), f...)
	}
	for {
		_, err := unix.Write(int(c), b)
		if !errors.Is(err, unix.EINTR) {
			if err != nil {
				return fmt.Errorf("control socket: %w", err)
			}
			return nil
		}
	}
}

// recv reads one message from the server without blocking (EAGAIN if
// none), with the descriptors it carries; "" and none at the end of the
// stream.
func (c ctlSock) recv() (msg string, fds []int, err error) {
	buf := make([]byte, 128)
	oob := make([]byte, unix.CmsgSpace(3*4))
	var n, oobn int
	for {
		n, oobn, _, _, err = unix.Recvmsg(int(c), buf, oob, unix.MSG_DONTWAIT|unix.MSG_CMSG_CLOEXEC)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		if errors.Is(err, unix.EAGAIN) {
			return "", nil, err
		}
		return "", nil, fmt.Errorf("control socket: %w", err)
	}
	scms, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return "", nil, fmt.Errorf("control socket: %w", err)
	}
	for _, scm := range scms {
		got, err := unix.ParseUnixRights(&scm)
		if err != nil {
			for _, fd := range fds {
				_ = unix.Close(fd)
			}
			return "", nil, fmt.Errorf("control socket: %w", err)
		}
		fds = append(fds, got...)
	}
	return string(buf[:n]), fds, nil
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

// workerConn is the connection Serve gets in a worker: its first read
// (which follows the Setup write) closes the listening sockets and
// reports the session to the server once it returns; every read that
// brings data counts as activity (with an idle timeout), and the first
// (or watchDelay) starts the watch for a controller that closes without
// a shutdown.
type workerConn struct {
	simpleremote.Conn
	act      *activity
	setupOut func() // once, at the first Read
	report   func() // once
	first    sync.Once
	mu       sync.Mutex
	stop     func()
	stopped  bool
}

// SetReadSpin passes Options.ReadSpin on to the connection.
func (c *workerConn) SetReadSpin(d time.Duration) {
	if rs, ok := c.Conn.(interface{ SetReadSpin(time.Duration) }); ok {
		rs.SetReadSpin(d)
	}
}

// KernelReads passes the connection's on: Read only adds bookkeeping.
func (c *workerConn) KernelReads() bool {
	kr, ok := c.Conn.(simpleremote.KernelReader)
	return ok && kr.KernelReads()
}

func (c *workerConn) Read(p []byte) (int, error) {
	if c.setupOut != nil {
		c.setupOut()
	}
	n, err := c.Conn.Read(p)
	if c.report != nil {
		c.report()
	}
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
