//go:build cgo && linux

package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/rt/dialect"
	"github.com/orcgo/orcrt/serve/internal/peer"
)

// server keeps a pool of worker processes that accept controllers on
// its listening sockets themselves; it accepts only while no worker
// does (the pool is dry, or -max-sessions is reached), and hands such a
// connection to a worker. A child is the server's record of one worker.
type server struct {
	cfg        Config
	pol        peer.Policy
	log        Logger
	exe        string
	env        []string
	wargs      []string // a worker's command line
	start      time.Time
	ls         []*listener
	ids        *uint64 // the session counter, shared with the workers
	unmapIDs   func()
	idsFile    *os.File // its memfd
	wake       int      // eventfd: ends the accept loop's poll
	acceptDone chan struct{}
	reapers    sync.WaitGroup // the reap goroutines: drain waits for their session lines
	spawning   sync.WaitGroup // spawns past their draining check: drain waits before closing the listeners

	mu        sync.Mutex
	changed   *sync.Cond // idle, armed, children or draining changed
	idle      []*child   // ready, without a session; armed or not
	armed     int        // idle workers accepting on the listeners
	polling   bool       // the accept loop is in poll
	starting  int
	checking  int            // connections the server accepted, their peer not yet checked
	waiting   int            // connections the server admitted, not yet handed over
	children  map[int]*child // by the worker's pid
	draining  bool
	failures  int // consecutive workers that died before ready
	accepted  uint64
	ended     uint64
	refusals  map[string]uint64
	statusLis net.Listener
}

// child is the server's record of one worker process and its control
// socket.
type child struct {
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
	peer    peer.Peer
	start   time.Time
	pid     int
	dialect string
	how     string
}

// Run serves cfg's addresses until ctx ends or, with cfg.Signals,
// SIGTERM or SIGINT arrives, then drains, and returns once no worker is
// left. It returns an error, at once, only when it cannot start.
func Run(ctx context.Context, cfg Config) error {
	s, err := start(cfg)
	if err != nil {
		return err
	}
	defer s.release()
	var sigs chan os.Signal
	if cfg.Signals {
		sigs = make(chan os.Signal, 4)
		signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGUSR1)
		defer signal.Stop(sigs)
	}
	s.mu.Lock()
	s.refill()
	s.mu.Unlock()
	go s.acceptLoop()
	names := make([]string, len(s.ls))
	for i, l := range s.ls {
		names[i] = l.name
	}
	s.log.Info("serving", "listen", strings.Join(names, " "), "pool", cfg.Pool, "max_sessions", cfg.MaxSessions, "pid", os.Getpid())
	s.waitForEnd(ctx, sigs)
	s.drain()
	return nil
}

// start checks cfg, opens its listeners and the status socket, and
// prepares what every worker gets.
func start(cfg Config) (*server, error) {
	if cfg.Pool < 0 || cfg.MaxSessions < 1 {
		return nil, errors.New("serve: Pool must be at least 0 and MaxSessions at least 1")
	}
	exe := cfg.WorkerPath
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
	}
	if cfg.LLVM != "" {
		if _, _, err := dialect.Choose(cfg.LLVM, 0); err != nil { // else every worker fails
			return nil, fmt.Errorf("serve: Config.LLVM: %w", err)
		}
	}
	s := &server{cfg: cfg, exe: exe, start: time.Now(), children: map[int]*child{}, refusals: map[string]uint64{}, wake: -1, log: cfg.Logger}
	s.pol = peer.Policy{Self: os.Geteuid(), UIDs: cfg.AllowUIDs, GIDs: cfg.AllowGIDs, AllowRemote: cfg.AllowRemote}
	s.changed = sync.NewCond(&s.mu)
	if s.log == nil {
		s.log = discardLogger{}
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LISTEN_") {
			s.env = append(s.env, kv)
		}
	}
	if cfg.OutputDir != "" {
		if err := os.MkdirAll(cfg.OutputDir, 0o700); err != nil {
			return nil, fmt.Errorf("serve: -output: %w", err)
		}
	}
	if err := s.open(); err != nil {
		s.closeListeners()
		s.release()
		return nil, err
	}
	return s, nil
}

// open opens the listeners, prepares the workers' descriptors and
// command line, and starts answering the status socket.
func (s *server) open() error {
	for _, a := range s.cfg.Addrs {
		ls, err := listen(a)
		if err != nil {
			return err
		}
		s.ls = append(s.ls, ls...)
	}
	if err := s.prepareChildren(); err != nil {
		return err
	}
	if s.cfg.StatusPath != "" {
		l, err := listenUnix(s.cfg.StatusPath, 0o600)
		if err != nil {
			return fmt.Errorf("serve: -status: %w", err)
		}
		s.statusLis = l
		go s.serveStatus(l)
	}
	return nil
}

// waitForEnd returns once ctx ends or a draining signal arrives; SIGUSR1
// logs the status.
func (s *server) waitForEnd(ctx context.Context, sigs <-chan os.Signal) {
	for {
		select {
		case <-ctx.Done():
			s.log.Info("draining", "cause", context.Cause(ctx).Error(), "sessions", s.sessions(), "deadline", s.cfg.DrainTimeout)
			return
		case sig := <-sigs:
			if sig == syscall.SIGUSR1 {
				for _, line := range strings.Split(strings.TrimSpace(s.status()), "\n") {
					s.log.Info("status", "line", line)
				}
				continue
			}
			s.log.Info("draining", "signal", sig.String(), "sessions", s.sessions(), "deadline", s.cfg.DrainTimeout)
			return
		}
	}
}

// release closes what start made for the workers: the session counter
// and the accept loop's eventfd.
func (s *server) release() {
	if s.unmapIDs != nil {
		s.unmapIDs()
	}
	if s.idsFile != nil {
		s.idsFile.Close()
	}
	if s.wake >= 0 {
		_ = unix.Close(s.wake)
	}
}

// discardLogger is the Logger of a Config without one.
type discardLogger struct{}

func (discardLogger) Debug(string, ...any) {}
func (discardLogger) Info(string, ...any)  {}
func (discardLogger) Warn(string, ...any)  {}
func (discardLogger) Error(string, ...any) {}

// sessions is active, taking s.mu.
func (s *server) sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.active()
}

// active counts the sessions being served. Called with s.mu held.
func (s *server) active() int {
	n := 0
	for _, ch := range s.children {
		if ch.sess != nil {
			n++
		}
	}
	return n
}
