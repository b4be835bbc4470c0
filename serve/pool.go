//go:build cgo && linux

package serve

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

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
	if s.ids, s.unmapIDs, err = mapCounter(dup); err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	wake, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		return fmt.Errorf("serve: eventfd: %w", err)
	}
	s.wake = wake
	s.acceptDone = make(chan struct{})
	s.wargs = append(s.lim.args(), "-listeners="+strconv.Itoa(len(s.ls)))
	p := s.pol
	if len(p.uids) > 0 {
		s.wargs = append(s.wargs, "-allow-uid="+joinIDs(p.uids))
	}
	if len(p.gids) > 0 {
		s.wargs = append(s.wargs, "-allow-gid="+joinIDs(p.gids))
	}
	if p.allowRemote {
		s.wargs = append(s.wargs, "-allow-remote")
	}
	if s.cfg.OutputDir != "" {
		dir, err := filepath.Abs(s.cfg.OutputDir)
		if err != nil {
			return fmt.Errorf("serve: -output: %w", err)
		}
		s.wargs = append(s.wargs, "-output="+dir)
	}
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
	for _, w := range s.idle {
		if n+s.armed >= s.cfg.MaxSessions {
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
	s.reapers.Add(1)
	go func() {
		defer s.reapers.Done()
		s.reap(w)
	}()
	return w, nil
}

// joinIDs is parseIDs' input for ids, as a worker's command line has it.
func joinIDs(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ",")
}
