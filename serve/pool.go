//go:build cgo && linux

package serve

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/serve/internal/wire"
)

// prepareChildren makes what every worker gets: the session counter, and
// the command line (limits, the peer policy, the number of listeners,
// the executor's settings).
func (s *server) prepareChildren() error {
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
	if s.ids, s.unmapIDs, err = wire.MapCounter(dup); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return fmt.Errorf("serve: eventfd: %w", err)
	}
	s.wake = wake
	s.acceptDone = make(chan struct{})
	c := s.cfg
	a := wire.Args{RlimitAS: c.RlimitAS, RlimitCPU: c.RlimitCPU, IdleTimeout: c.IdleTimeout, Listeners: len(s.ls),
		AllowUIDs: c.AllowUIDs, AllowGIDs: c.AllowGIDs, AllowRemote: c.AllowRemote,
		DrainTimeout: c.SessionDrainTimeout, MaxMessageSize: c.MaxMessageSize, LLVM: c.LLVM}
	if c.OutputDir != "" {
		if a.OutputDir, err = filepath.Abs(c.OutputDir); err != nil {
			return fmt.Errorf("serve: -output: %w", err)
		}
	}
	s.wargs = a.CommandLine()
	return nil
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
	for _, ch := range s.idle {
		if n+s.armed >= s.cfg.MaxSessions {
			return
		}
		if ch.armed {
			continue
		}
		if _, err := ch.ctl.Write([]byte(wire.MsgAccept)); err != nil {
			continue // it is exiting: its reap follows
		}
		ch.armed = true
		s.armed++
		s.kick()
	}
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
	for len(s.idle)+s.starting < s.cfg.Pool+s.waiting {
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

// spawn starts one worker, unless the drain has begun: the child would
// inherit the listening sockets the drain is closing.
func (s *server) spawn() {
	s.mu.Lock()
	if s.draining {
		s.starting--
		s.changed.Broadcast()
		s.mu.Unlock()
		return
	}
	s.spawning.Add(1)
	s.mu.Unlock()
	ch, err := s.startChild()
	s.spawning.Done()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.starting--
		s.failures++
		s.log.Error("starting a worker", "err", err)
		s.refill()
		return
	}
	s.children[ch.pid] = ch
	s.changed.Broadcast()
}

// startChild starts one worker process.
func (s *server) startChild() (*child, error) {
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
	// wire.CtlFD, IDsFD, then the listening sockets from ListenFD on.
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
	ch := &child{pid: cmd.Process.Pid, cmd: cmd, ctl: fc.(*net.UnixConn), reader: make(chan struct{})}
	go s.read(ch)
	s.reapers.Add(1)
	go func() {
		defer s.reapers.Done()
		s.reap(ch)
	}()
	return ch, nil
}
