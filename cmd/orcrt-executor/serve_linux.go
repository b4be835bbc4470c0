//go:build cgo && linux

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/rt/simpleremote"
)

// serveConfig is the serve command line.
type serveConfig struct {
	addrs        []string
	pool         int
	maxSessions  int
	policy       policy
	limits       workerLimits
	drainTimeout time.Duration
	statusPath   string
	outputDir    string
	verbose      bool
}

const serveUsage = `Usage:
  orcrt-executor serve [flags] <addr>...
  orcrt-executor status <status-socket>

<addr> is unix=<path>, listen=<host>:<port> (tcp:listen= too) or
systemd (the sockets systemd passes, LISTEN_FDS; also the default when
no address is given and LISTEN_FDS is set).

Flags:
`

// parseServe parses serve's arguments.
func parseServe(args []string, stderr io.Writer) (serveConfig, error) {
	cfg := serveConfig{policy: policy{self: os.Geteuid()}}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		io.WriteString(stderr, serveUsage)
		fs.PrintDefaults()
	}
	fs.IntVar(&cfg.pool, "pool", 2, "idle worker processes kept ready")
	fs.IntVar(&cfg.maxSessions, "max-sessions", 64, "sessions at once; more connections are refused")
	uids := fs.String("allow-uid", "", "also accept these users (comma-separated uids or names)")
	gids := fs.String("allow-gid", "", "also accept members of these groups (Unix sockets; gids or names)")
	fs.BoolVar(&cfg.policy.allowRemote, "allow-remote", false, "accept TCP peers on other hosts (anyone who can reach the port runs code as this user)")
	as := fs.String("rlimit-as", "", "address-space limit per session (RLIMIT_AS; bytes, or with K, M, G)")
	fs.DurationVar(&cfg.limits.cpu, "rlimit-cpu", 0, "CPU-time limit per session (RLIMIT_CPU, whole seconds)")
	fs.DurationVar(&cfg.limits.idle, "idle-timeout", 0, "end a session whose controller sent nothing for this long while no call runs")
	fs.DurationVar(&cfg.drainTimeout, "drain-timeout", 30*time.Second, "on SIGTERM or SIGINT, how long sessions may go on before they are killed")
	fs.StringVar(&cfg.statusPath, "status", "", "Unix socket at `PATH` (mode 0600) that 'orcrt-executor status PATH' reads")
	fs.StringVar(&cfg.outputDir, "output", "", "write each session's stdout and stderr to `DIR`/session-<id>.{stdout,stderr} (default: the server's own)")
	fs.BoolVar(&cfg.verbose, "v", false, "log workers' start and hand-over too")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	cfg.addrs = fs.Args()
	if len(cfg.addrs) == 0 && os.Getenv("LISTEN_FDS") != "" {
		cfg.addrs = []string{"systemd"}
	}
	if len(cfg.addrs) == 0 {
		return cfg, errors.New("serve: no address (unix=<path>, listen=<host>:<port> or systemd)")
	}
	if cfg.pool < 0 || cfg.maxSessions < 1 {
		return cfg, errors.New("serve: -pool must be at least 0 and -max-sessions at least 1")
	}
	var err error
	if cfg.policy.uids, err = parseIDs(*uids, lookupUser); err != nil {
		return cfg, fmt.Errorf("serve: -allow-uid: %w", err)
	}
	if cfg.policy.gids, err = parseIDs(*gids, lookupGroup); err != nil {
		return cfg, fmt.Errorf("serve: -allow-gid: %w", err)
	}
	if cfg.limits.as, err = parseSize(*as); err != nil {
		return cfg, fmt.Errorf("serve: -rlimit-as: %w", err)
	}
	return cfg, nil
}

// parseSize parses "", a byte count, or one with a K, M, G or T suffix
// (powers of 1024).
func parseSize(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	mult := uint64(1)
	if i := strings.IndexAny(s, "KkMmGgTt"); i >= 0 && i == len(s)-1 {
		mult = 1 << (10 * (1 + strings.IndexByte("KMGT", strings.ToUpper(s[i:])[0])))
		s = s[:i]
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, err
	}
	return n * mult, nil
}

// serveAction runs the serve and status commands and the serve worker
// (done is false for anything else).
func serveAction(argv0 string, args []string, verbose bool) (code int, done bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case workerArg:
		return workerMain(argv0, args[1:]), true
	case "status":
		if len(args) != 2 {
			fmt.Fprintf(os.Stderr, "%s: usage: orcrt-executor status <status-socket>\n", argv0)
			return 2, true
		}
		if err := printStatus(os.Stdout, args[1]); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, err)
			return 1, true
		}
		return 0, true
	case "serve":
		cfg, err := parseServe(args[1:], os.Stderr)
		if errors.Is(err, flag.ErrHelp) {
			return 0, true
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, err)
			return 2, true
		}
		cfg.verbose = cfg.verbose || verbose
		if err := serve(cfg); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, err)
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// server keeps a pool of worker processes that accept controllers on
// its listening sockets themselves; it accepts only while no worker
// does (the pool is dry, or -max-sessions is reached), and hands such a
// connection to a worker.
type server struct {
	cfg        serveConfig
	log        *textLogger
	exe        string
	env        []string
	wargs      []string // a worker's command line
	start      time.Time
	ls         []*listener
	ids        *uint64  // the session counter, shared with the workers
	idsFile    *os.File // its memfd
	wake       int      // eventfd: ends the accept loop's poll
	acceptDone chan struct{}

	mu        sync.Mutex
	changed   *sync.Cond // idle, armed, workers or draining changed
	idle      []*worker  // ready, without a session; armed or not
	armed     int        // idle workers accepting on the listeners
	polling   bool       // the accept loop is in poll
	starting  int
	checking  int // connections the server accepted, their peer not yet checked
	waiting   int // connections the server admitted, not yet handed over
	workers   map[int]*worker
	draining  bool
	failures  int // consecutive workers that died before ready
	accepted  uint64
	ended     uint64
	refusals  map[string]uint64
	statusLis net.Listener
}

// listener is a listening socket, kept out of Go's poller: the accept
// loop and the workers poll it themselves, and every connection would
// otherwise wake the server.
type listener struct {
	fd   int      // non-blocking (shared with the workers' copies)
	file *os.File // fd, for the workers' ExtraFiles
	name string
	path string // unix=: the socket file
	own  bool   // not systemd's: shut down at drain
}

// worker is one worker process and its control socket.
type worker struct {
	pid    int
	cmd    *exec.Cmd
	ctl    *net.UnixConn
	ready  bool
	armed  bool         // accepting on the listeners
	sess   *sessionInfo // nil while idle
	reason string       // the worker's own "end" report
	killed bool         // by the drain deadline
	reader chan struct{}
}

// sessionInfo is one session, for its log line and the status view.
type sessionInfo struct {
	id      uint64
	peer    peer
	start   time.Time
	pid     int
	dialect string
	how     string
}

// serve runs the server until SIGTERM or SIGINT, then drains.
func serve(cfg serveConfig) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if env := os.Getenv("ORCRT_LLVM"); env != "" {
		if _, _, err := dialect.Choose(env, 0); err != nil { // else every worker fails
			return fmt.Errorf("serve: ORCRT_LLVM: %w", err)
		}
	}
	s := &server{cfg: cfg, exe: exe, start: time.Now(), workers: map[int]*worker{}, refusals: map[string]uint64{}}
	s.changed = sync.NewCond(&s.mu)
	level := levelInfo
	if cfg.verbose {
		level = levelDebug
	}
	s.log = newTextLogger(os.Stderr, level)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LISTEN_") {
			s.env = append(s.env, kv)
		}
	}
	if cfg.outputDir != "" {
		if err := os.MkdirAll(cfg.outputDir, 0o700); err != nil {
			return fmt.Errorf("serve: -output: %w", err)
		}
	}
	for _, a := range cfg.addrs {
		ls, err := listen(a)
		if err != nil {
			s.closeListeners()
			return err
		}
		s.ls = append(s.ls, ls...)
	}
	if err := s.prepareWorkers(); err != nil {
		s.closeListeners()
		return err
	}
	if cfg.statusPath != "" {
		l, err := listenUnix(cfg.statusPath, 0o600)
		if err != nil {
			s.closeListeners()
			return fmt.Errorf("serve: -status: %w", err)
		}
		s.statusLis = l
		go s.serveStatus(l)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGUSR1)
	defer signal.Stop(sigs)

	s.mu.Lock()
	s.refill()
	s.mu.Unlock()
	go s.acceptLoop()
	names := make([]string, len(s.ls))
	for i, l := range s.ls {
		names[i] = l.name
	}
	s.log.Info("serving", "listen", strings.Join(names, " "), "pool", cfg.pool, "max_sessions", cfg.maxSessions, "pid", os.Getpid())
	for sig := range sigs {
		if sig == syscall.SIGUSR1 {
			for _, line := range strings.Split(strings.TrimSpace(s.status()), "\n") {
				s.log.Info("status", "line", line)
			}
			continue
		}
		s.log.Info("draining", "signal", sig.String(), "sessions", s.active(), "deadline", cfg.drainTimeout)
		break
	}
	s.drain()
	return nil
}

// listen opens the listeners of one serve address.
func listen(addr string) ([]*listener, error) {
	if addr == "systemd" {
		return systemdListeners()
	}
	spec, err := simpleremote.ParseSpec(addr)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	switch spec.Mode {
	case simpleremote.ModeUnix:
		// Mode 0666: the peer check, not the file mode, decides, and
		// every refusal is logged (RATIONALE.md, "orcrt-executor serve").
		l, err := listenUnix(spec.Path, 0o666)
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		ln, err := rawListener(l, "unix="+spec.Path)
		if err != nil {
			_ = os.Remove(spec.Path)
			return nil, err
		}
		ln.path, ln.own = spec.Path, true
		return []*listener{ln}, nil
	case simpleremote.ModeListen:
		host := spec.Host
		if host == "" {
			host = simpleremote.LoopbackHost
		}
		l, err := simpleremote.NetListenTCP(context.Background(), host, spec.Port)
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		ln, err := rawListener(l, "listen="+l.Addr().String())
		if err != nil {
			return nil, err
		}
		ln.own = true
		return []*listener{ln}, nil
	}
	return nil, fmt.Errorf("serve: %q is not unix=<path>, listen=<host>:<port> or systemd", addr)
}

// listenUnix listens at path, replacing a stale socket file (one nobody
// listens on) but nothing else.
func listenUnix(path string, mode os.FileMode) (net.Listener, error) {
	addr := &net.UnixAddr{Name: path, Net: "unix"}
	l, err := net.ListenUnix("unix", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		if fi, serr := os.Lstat(path); serr == nil && fi.Mode()&os.ModeSocket != 0 {
			if c, derr := net.DialUnix("unix", nil, addr); derr == nil {
				c.Close()
			} else if errors.Is(derr, syscall.ECONNREFUSED) {
				_ = os.Remove(path)
				l, err = net.ListenUnix("unix", addr)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, mode); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// systemdListeners adopts the listening sockets systemd passes (fds 3
// on, LISTEN_PID and LISTEN_FDS), as duplicates: workers get them as
// descriptors of their own, not as LISTEN_FDS.
func systemdListeners() ([]*listener, error) {
	pid, _ := strconv.Atoi(os.Getenv("LISTEN_PID"))
	n, err := strconv.Atoi(os.Getenv("LISTEN_FDS"))
	if pid != os.Getpid() || err != nil || n < 1 {
		return nil, errors.New("serve: systemd: LISTEN_PID is not this process or LISTEN_FDS is not set")
	}
	for _, v := range []string{"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"} {
		os.Unsetenv(v)
	}
	var ls []*listener
	for fd := 3; fd < 3+n; fd++ {
		f := os.NewFile(uintptr(fd), "systemd-socket")
		l, err := net.FileListener(f)
		f.Close()
		if err != nil {
			for _, l := range ls {
				l.file.Close()
			}
			return nil, fmt.Errorf("serve: systemd socket %d: %w", fd, err)
		}
		ln, err := rawListener(l, "systemd="+l.Addr().Network()+":"+l.Addr().String())
		if err != nil {
			return nil, err
		}
		ls = append(ls, ln)
	}
	return ls, nil
}

// rawListener takes l's socket out of Go's poller: it returns a
// close-on-exec, non-blocking duplicate and closes l (leaving a Unix
// socket's file in place).
func rawListener(l net.Listener, name string) (*listener, error) {
	fd := -1
	var err error
	if sc, ok := l.(syscall.Conn); !ok {
		err = errors.New("no descriptor")
	} else if rc, rerr := sc.SyscallConn(); rerr != nil {
		err = rerr
	} else if cerr := rc.Control(func(u uintptr) { fd, err = unix.FcntlInt(u, unix.F_DUPFD_CLOEXEC, 0) }); cerr != nil {
		err = cerr
	}
	if ul, ok := l.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	l.Close()
	if err != nil {
		if fd >= 0 {
			_ = unix.Close(fd)
		}
		return nil, fmt.Errorf("serve: %s: %w", name, err)
	}
	// os.NewFile would register a non-blocking descriptor with Go's
	// poller, and exec would then make it blocking (for every copy) when
	// it passes it to a worker: wrap it while blocking, then make it
	// non-blocking for good.
	if err := unix.SetNonblock(fd, false); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("serve: %s: %w", name, err)
	}
	f := os.NewFile(uintptr(fd), name)
	if err := unix.SetNonblock(fd, true); err != nil {
		f.Close()
		return nil, fmt.Errorf("serve: %s: %w", name, err)
	}
	return &listener{fd: fd, file: f, name: name}, nil
}

// closeListeners closes the listening sockets (serve's own ones shut
// down first, which stops them listening in the workers' copies too) and
// the status socket.
func (s *server) closeListeners() {
	for _, l := range s.ls {
		if l.own {
			_ = unix.Shutdown(l.fd, unix.SHUT_RDWR)
		}
		if l.path != "" {
			_ = os.Remove(l.path)
		}
		l.file.Close()
	}
	if s.statusLis != nil {
		s.statusLis.Close()
	}
}

// prepareWorkers makes what every worker gets: the session counter, and
// the command line (limits, the peer policy, the number of listeners).
func (s *server) prepareWorkers() error {
	fd, err := unix.MemfdCreate("orcrt-serve-ids", unix.MFD_CLOEXEC)
	if err != nil {
		return fmt.Errorf("serve: session counter: %w", err)
	}
	s.idsFile = os.NewFile(uintptr(fd), "orcrt-serve-ids")
	if err := unix.Ftruncate(fd, 8); err != nil {
		return fmt.Errorf("serve: session counter: %w", err)
	}
	dup, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("serve: session counter: %w", err)
	}
	if s.ids, _, err = mapCounter(dup); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	if s.wake, err = unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK); err != nil {
		return fmt.Errorf("serve: eventfd: %w", err)
	}
	s.acceptDone = make(chan struct{})
	s.wargs = append(s.cfg.limits.args(), "-listeners="+strconv.Itoa(len(s.ls)))
	p := s.cfg.policy
	if len(p.uids) > 0 {
		s.wargs = append(s.wargs, "-allow-uid="+joinIDs(p.uids))
	}
	if len(p.gids) > 0 {
		s.wargs = append(s.wargs, "-allow-gid="+joinIDs(p.gids))
	}
	if p.allowRemote {
		s.wargs = append(s.wargs, "-allow-remote")
	}
	if s.cfg.outputDir != "" {
		dir, err := filepath.Abs(s.cfg.outputDir)
		if err != nil {
			return fmt.Errorf("serve: -output: %w", err)
		}
		s.wargs = append(s.wargs, "-output="+dir)
	}
	return nil
}

func joinIDs(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ",")
}

// acceptLoop accepts on the listening sockets while no worker is armed:
// when the pool is dry (the connection then waits for a worker, handed
// over with SCM_RIGHTS) or -max-sessions is reached (to refuse it). A
// worker is armed only with s.mu held, and this loop's accept4 runs
// with s.mu held and no worker armed, so the server and the workers
// never accept at the same time.
func (s *server) acceptLoop() {
	defer close(s.acceptDone)
	pfds := []unix.PollFd{{Fd: int32(s.wake), Events: unix.POLLIN}}
	for _, l := range s.ls {
		pfds = append(pfds, unix.PollFd{Fd: int32(l.fd), Events: unix.POLLIN})
	}
	for {
		s.mu.Lock()
		for s.armed > 0 && !s.draining {
			s.changed.Wait()
		}
		if s.draining {
			s.mu.Unlock()
			return
		}
		s.polling = true
		s.mu.Unlock()
		_, perr := unix.Poll(pfds, -1)
		if pfds[0].Revents != 0 {
			var b [8]byte
			_, _ = unix.Read(s.wake, b[:])
		}
		var errs []error
		s.mu.Lock()
		s.polling = false
		for i := 1; perr == nil && s.armed == 0 && !s.draining && i < len(pfds); i++ {
			switch ev := pfds[i].Revents; {
			case ev&unix.POLLIN != 0:
				fd, _, err := unix.Accept4(int(pfds[i].Fd), unix.SOCK_CLOEXEC)
				switch {
				case err == nil:
					s.checking++
					go s.handle(fd)
				case errors.Is(err, unix.EAGAIN), errors.Is(err, unix.EINTR), errors.Is(err, unix.ECONNABORTED):
				default:
					errs = append(errs, fmt.Errorf("%s: %w", s.ls[i-1].name, err))
				}
			case ev&(unix.POLLHUP|unix.POLLERR|unix.POLLNVAL) != 0:
				pfds[i].Fd = -1 // poll skips it
			}
		}
		s.mu.Unlock()
		if perr != nil && !errors.Is(perr, unix.EINTR) {
			errs = append(errs, fmt.Errorf("poll: %w", perr))
		}
		for _, err := range errs {
			s.log.Warn("accept", "err", err)
		}
		if len(errs) > 0 {
			time.Sleep(50 * time.Millisecond) // EMFILE and the like
		}
	}
}

// kick ends the accept loop's poll. Called with s.mu held.
func (s *server) kick() {
	if s.polling {
		_, _ = unix.Write(s.wake, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	}
}

// balance arms idle workers (they then accept on the listening sockets)
// while the sessions allow it: armed workers, sessions and the
// connections the server holds never exceed -max-sessions, so a worker
// that accepts may always keep its connection. While the server holds
// connections, new workers go to them instead. Called with s.mu held.
func (s *server) balance() {
	if s.draining || s.checking > 0 || s.waiting > 0 {
		return
	}
	n := s.active()
	for _, w := range s.idle {
		if n+s.armed >= s.cfg.maxSessions {
			return
		}
		if w.armed {
			continue
		}
		if _, err := w.ctl.Write([]byte(msgAccept)); err != nil {
			continue // it is exiting: its reap follows
		}
		w.armed = true
		s.armed++
		s.kick()
	}
}

// handle checks the peer of a connection the server accepted (fd) and
// hands it to an idle worker.
func (s *server) handle(fd int) {
	f := os.NewFile(uintptr(fd), "serve-conn")
	c, err := net.FileConn(f)
	f.Close()
	if err != nil {
		s.mu.Lock()
		s.checking--
		s.balance()
		s.mu.Unlock()
		s.log.Warn("accept", "err", err)
		return
	}
	defer c.Close() // the worker holds its own descriptor
	pr, err := s.cfg.policy.check(c)
	s.mu.Lock()
	s.checking--
	if err == nil && s.active()+s.armed+s.waiting >= s.cfg.maxSessions {
		err = fmt.Errorf("%w: %d sessions already (serve -max-sessions)", errRefused, s.cfg.maxSessions)
	}
	if err == nil && s.draining {
		err = fmt.Errorf("%w: draining", errRefused)
	}
	if err != nil {
		s.refusals[refusalKind(err)]++
		s.balance()
		s.mu.Unlock()
		s.log.Warn("refused", "peer", pr.addr, "uid", pr.uid, "pid", pr.pid, "why", err.Error())
		return
	}
	s.waiting++
	si := &sessionInfo{id: atomic.AddUint64(s.ids, 1), peer: pr, start: time.Now(), pid: pr.pid}
	s.refill()
	s.mu.Unlock()
	for attempt := 0; ; attempt++ {
		w := s.take(si)
		if w == nil {
			s.mu.Lock()
			s.refusals["draining"]++
			s.mu.Unlock()
			s.log.Warn("refused", "peer", pr.addr, "uid", pr.uid, "why", "draining")
			return
		}
		err := s.hand(w, c, si)
		if err == nil {
			return
		}
		s.log.Warn("hand-over failed", "worker", w.pid, "session", si.id, "err", err)
		_ = syscall.Kill(w.pid, syscall.SIGKILL)
		if attempt == 2 {
			return
		}
		s.mu.Lock()
		s.waiting++
		s.refill()
		s.mu.Unlock()
	}
}

func refusalKind(err error) string {
	m := err.Error()
	switch {
	case strings.Contains(m, "not allowed"):
		return "uid"
	case strings.Contains(m, "loopback"):
		return "remote"
	case strings.Contains(m, "-max-sessions"):
		return "max-sessions"
	case strings.Contains(m, "draining"):
		return "draining"
	}
	return "other"
}

// take waits for an idle worker that is not armed (nil once draining),
// makes si its session and counts the connection as no longer waiting,
// all at once: a refill or an arming in between would start or arm one
// worker too many.
func (s *server) take(si *sessionInfo) *worker {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := -1
	for !s.draining {
		if i = slices.IndexFunc(s.idle, func(w *worker) bool { return !w.armed }); i >= 0 {
			break
		}
		s.changed.Wait()
	}
	s.waiting--
	if s.draining {
		return nil
	}
	w := s.idle[i]
	s.idle = slices.Delete(s.idle, i, i+1)
	w.sess = si
	s.balance()
	return w
}

// hand sends c to w, whose session si is (take); on failure it is not.
// The worker opens the session's output files itself, as it does for a
// connection it accepts.
func (s *server) hand(w *worker, c net.Conn, si *sessionInfo) error {
	rc, err := c.(syscall.Conn).SyscallConn()
	if err == nil {
		var werr error
		err = rc.Control(func(fd uintptr) {
			_, _, werr = w.ctl.WriteMsgUnix([]byte(msgSession+"\x00"+strconv.FormatUint(si.id, 10)), unix.UnixRights(int(fd)), nil)
		})
		if err == nil {
			err = werr
		}
	}
	s.mu.Lock()
	if err != nil {
		w.sess = nil
	} else {
		s.accepted++
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.log.Debug("handed over", "session", si.id, "worker", w.pid, "peer", si.peer.addr)
	return nil
}

// refillDelay is how long a replacement worker waits to start while idle
// ones remain.
const refillDelay = 5 * time.Millisecond

// refill starts workers until the idle and starting ones cover the pool
// and the connections waiting. Called with s.mu held.
func (s *server) refill() {
	if s.draining {
		return
	}
	for len(s.idle)+s.starting < s.cfg.pool+s.waiting {
		s.starting++
		delay := time.Duration(0)
		if len(s.idle) >= s.waiting {
			// An idle worker takes each waiting connection: called once
			// a session's Setup is out ("started"), start the
			// replacement a little later still, not beside the session's
			// first requests (a Go process's start costs milliseconds of
			// CPU, on the core the session needs).
			delay = refillDelay
		}
		if s.failures > 0 {
			delay = min(time.Duration(1<<min(s.failures, 6))*50*time.Millisecond, 3*time.Second)
		}
		time.AfterFunc(delay, s.spawn)
	}
}

// spawn starts one worker.
func (s *server) spawn() {
	w, err := s.startWorker()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.starting--
		s.failures++
		s.log.Error("starting a worker", "err", err)
		s.refill()
		return
	}
	s.workers[w.pid] = w
	s.changed.Broadcast()
}

func (s *server) startWorker() (*worker, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("serve: socketpair: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "serve-ctl"), os.NewFile(uintptr(fds[1]), "serve-ctl-worker")
	defer theirs.Close()
	fc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return nil, fmt.Errorf("serve: control socket: %w", err)
	}
	cmd := exec.Command(s.exe, s.wargs...)
	cmd.Env = s.env
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	// ctlFD, idsFD, then the listening sockets from listenFD on.
	cmd.ExtraFiles = []*os.File{theirs, s.idsFile}
	for _, l := range s.ls {
		cmd.ExtraFiles = append(cmd.ExtraFiles, l.file)
	}
	// Its own process group: a terminal's Ctrl-C reaches the server only
	// (which drains), and the drain deadline kills what JIT'd code forked.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fc.Close()
		return nil, fmt.Errorf("serve: starting a worker: %w", err)
	}
	w := &worker{pid: cmd.Process.Pid, cmd: cmd, ctl: fc.(*net.UnixConn), reader: make(chan struct{})}
	go s.read(w)
	go s.reap(w)
	return w, nil
}

// read handles w's control messages until the socket ends.
func (s *server) read(w *worker) {
	defer close(w.reader)
	buf := make([]byte, 4096)
	for {
		n, err := w.ctl.Read(buf)
		if err != nil || n == 0 {
			return
		}
		f := strings.Split(string(buf[:n]), "\x00")
		var accepted *sessionInfo
		var refused []string
		s.mu.Lock()
		switch {
		case f[0] == msgReady && !w.ready:
			w.ready = true
			s.starting--
			s.failures = 0
			if s.draining {
				_ = w.ctl.CloseWrite()
			} else {
				s.idle = append(s.idle, w)
				s.balance()
				s.changed.Broadcast()
			}
		case f[0] == msgStarted && len(f) == 10:
			if w.sess == nil {
				// A connection the worker accepted itself.
				if accepted = startedSession(f); accepted == nil {
					break
				}
				w.sess = accepted
				if i := slices.Index(s.idle, w); i >= 0 {
					s.idle = slices.Delete(s.idle, i, i+1)
				}
				if w.armed {
					w.armed = false
					s.armed--
				}
				s.accepted++
			}
			if pid, err := strconv.Atoi(f[1]); err == nil && pid > 0 {
				w.sess.pid = pid
			}
			w.sess.dialect, w.sess.how = f[2], f[3]
			// The replacement starts now that Setup is out: on a busy
			// machine its exec would compete with the session's start.
			s.refill()
			s.balance()
			s.changed.Broadcast()
		case f[0] == msgRefused && len(f) == 7:
			s.refusals[f[1]]++
			refused = f
		case f[0] == msgEnd && len(f) == 2:
			w.reason = f[1]
		}
		s.mu.Unlock()
		if accepted != nil {
			s.log.Debug("accepted", "session", accepted.id, "worker", w.pid, "peer", accepted.peer.addr)
		}
		if refused != nil {
			uid, _ := strconv.Atoi(refused[4])
			pid, _ := strconv.Atoi(refused[5])
			s.log.Warn("refused", "peer", refused[3], "uid", uid, "pid", pid, "why", refused[6])
		}
	}
}

// startedSession is the session of a worker's "started" report for a
// connection it accepted (nil if malformed): pid, dialect, how, id,
// accept time, network, address, uid, gid.
func startedSession(f []string) *sessionInfo {
	id, err1 := strconv.ParseUint(f[4], 10, 64)
	ns, err2 := strconv.ParseInt(f[5], 10, 64)
	uid, err3 := strconv.Atoi(f[8])
	gid, err4 := strconv.Atoi(f[9])
	if err := errors.Join(err1, err2, err3, err4); err != nil || f[6] == "" {
		return nil
	}
	pr := peer{network: f[6], addr: f[7], uid: uid, gid: gid, pid: -1}
	return &sessionInfo{id: id, peer: pr, start: time.Unix(0, ns), pid: -1}
}

// reap waits for w's exit, logs its session and refills the pool.
func (s *server) reap(w *worker) {
	err := w.cmd.Wait()
	// The control socket ends when the worker does, unless something
	// JIT'd code forked still holds it.
	_ = w.ctl.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	<-w.reader
	w.ctl.Close()
	st := w.cmd.ProcessState
	s.mu.Lock()
	delete(s.workers, w.pid)
	if i := slices.Index(s.idle, w); i >= 0 {
		s.idle = slices.Delete(s.idle, i, i+1)
	}
	if w.armed {
		w.armed = false
		s.armed--
	}
	if !w.ready {
		s.starting--
		if !s.draining {
			s.failures++
			s.log.Error("a worker exited before it was ready", "worker", w.pid, "status", exitText(st, err))
		}
	}
	si := w.sess
	if si != nil {
		s.ended++
	}
	s.refill()
	s.balance()
	s.changed.Broadcast()
	s.mu.Unlock()
	if si == nil {
		s.log.Debug("worker exited", "worker", w.pid, "status", exitText(st, err))
		return
	}
	reason := w.reason
	switch {
	case w.killed:
		reason = "killed at the drain deadline"
	case reason != "":
	case st != nil && st.Success():
		reason = "ended"
	case st != nil && st.Exited():
		reason = "exited" // a protocol error, or exit() in JIT'd code
	default:
		reason = "crashed"
	}
	s.log.Info("session", "id", si.id, "network", si.peer.network, "peer", si.peer.addr, "uid", si.peer.uid,
		"pid", si.pid, "dialect", si.dialect, "how", si.how, "worker", w.pid,
		"duration", time.Since(si.start).Round(time.Microsecond), "exit", exitText(st, err), "reason", reason)
}

// exitText is a worker's exit status: "0", "1", "signal: segmentation
// fault".
func exitText(st *os.ProcessState, err error) string {
	if st == nil {
		return err.Error()
	}
	if ws, ok := st.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "signal: " + ws.Signal().String()
	}
	return strconv.Itoa(st.ExitCode())
}

// active counts the sessions being served. Called with s.mu held.
func (s *server) active() int {
	n := 0
	for _, w := range s.workers {
		if w.sess != nil {
			n++
		}
	}
	return n
}

// drain stops accepting, lets idle workers go, waits for the sessions up
// to the drain deadline, kills what is left and waits for every worker.
//
// Idle workers are let go first (their control socket shut down): an
// armed one sees that before a connection that arrives at the same time
// (one it has already accepted becomes a session like any other). Then
// the listening sockets close: serve's own are shut down, which ends
// their listening in every worker's copy at once (a connection still in
// a queue is reset); a systemd socket stays systemd's, connections
// queued on it wait for the next serve.
func (s *server) drain() {
	s.mu.Lock()
	s.draining = true
	for _, w := range s.idle {
		_ = w.ctl.CloseWrite()
	}
	s.idle = nil
	s.kick()
	s.changed.Broadcast()
	s.mu.Unlock()
	<-s.acceptDone
	s.closeListeners()
	deadline := time.AfterFunc(s.cfg.drainTimeout, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, w := range s.workers {
			if w.sess != nil {
				w.killed = true
			}
			_ = syscall.Kill(-w.pid, syscall.SIGKILL)
			_ = syscall.Kill(w.pid, syscall.SIGKILL)
		}
	})
	defer deadline.Stop()
	s.mu.Lock()
	for len(s.workers) > 0 || s.starting > 0 {
		s.changed.Wait()
	}
	ended := s.ended
	s.mu.Unlock()
	s.log.Info("drained", "sessions", ended, "uptime", time.Since(s.start).Round(time.Millisecond))
}

// status is the text the status socket and SIGUSR1 give.
func (s *server) status() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	names := make([]string, len(s.ls))
	for i, l := range s.ls {
		names[i] = l.name
	}
	fmt.Fprintf(&b, "server pid=%d uptime=%s listen=%q draining=%t\n", os.Getpid(), time.Since(s.start).Round(time.Second), strings.Join(names, " "), s.draining)
	fmt.Fprintf(&b, "pool idle=%d starting=%d size=%d accepting=%d\n", len(s.idle), s.starting, s.cfg.pool, s.armed)
	fmt.Fprintf(&b, "sessions active=%d waiting=%d max=%d accepted=%d ended=%d\n", s.active(), s.waiting, s.cfg.maxSessions, s.accepted, s.ended)
	kinds := make([]string, 0, len(s.refusals))
	var total uint64
	for k, n := range s.refusals {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
		total += n
	}
	slices.Sort(kinds)
	fmt.Fprintf(&b, "refused total=%d %s\n", total, strings.Join(kinds, " "))
	var ss []*worker
	for _, w := range s.workers {
		if w.sess != nil {
			ss = append(ss, w)
		}
	}
	slices.SortFunc(ss, func(a, b *worker) int { return int(a.sess.id) - int(b.sess.id) })
	for _, w := range ss {
		si := w.sess
		fmt.Fprintf(&b, "session id=%d worker=%d network=%s peer=%s uid=%d pid=%d dialect=%q age=%s\n",
			si.id, w.pid, si.peer.network, si.peer.addr, si.peer.uid, si.pid, si.dialect, time.Since(si.start).Round(time.Millisecond))
	}
	return b.String()
}

// serveStatus answers each connection to the status socket with the
// status text, for the serving user and root only.
func (s *server) serveStatus(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		pr, err := unixPeer(c)
		if err == nil && pr.uid != s.cfg.policy.self && pr.uid != 0 {
			err = fmt.Errorf("uid %d", pr.uid)
		}
		if err != nil {
			s.log.Warn("status refused", "why", err.Error())
		} else {
			_ = c.SetWriteDeadline(time.Now().Add(time.Second))
			io.WriteString(c, s.status())
		}
		c.Close()
	}
}

// printStatus prints what the status socket at path says.
func printStatus(w io.Writer, path string) error {
	c, err := net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return fmt.Errorf("status: %w", err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(w, c); err != nil {
		return fmt.Errorf("status: %w", err)
	}
	return nil
}
