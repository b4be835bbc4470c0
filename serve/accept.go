//go:build cgo && linux

package serve

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/serve/internal/peer"
	"github.com/orcgo/orcrt/serve/internal/wire"
)

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
	pr, err := s.pol.Check(c)
	s.mu.Lock()
	s.checking--
	if err == nil && s.active()+s.armed+s.waiting >= s.cfg.MaxSessions {
		err = fmt.Errorf("%w: %d sessions already (serve -max-sessions)", peer.ErrRefused, s.cfg.MaxSessions)
	}
	if err == nil && s.draining {
		err = fmt.Errorf("%w: draining", peer.ErrRefused)
	}
	if err != nil {
		s.refusals[peer.Kind(err)]++
		s.balance()
		s.mu.Unlock()
		s.log.Warn("refused", "peer", pr.Addr, "uid", pr.UID, "pid", pr.PID, "why", err.Error())
		return
	}
	s.waiting++
	si := &sessionInfo{id: atomic.AddUint64(s.ids, 1), peer: pr, start: time.Now(), pid: pr.PID}
	s.refill()
	s.mu.Unlock()
	for attempt := 0; ; attempt++ {
		ch := s.take(si)
		if ch == nil {
			s.mu.Lock()
			s.refusals["draining"]++
			s.mu.Unlock()
			s.log.Warn("refused", "peer", pr.Addr, "uid", pr.UID, "why", "draining")
			return
		}
		err := s.hand(ch, c, si)
		if err == nil {
			return
		}
		s.log.Warn("hand-over failed", "worker", ch.pid, "session", si.id, "err", err)
		_ = syscall.Kill(ch.pid, syscall.SIGKILL)
		if attempt == 2 {
			return
		}
		s.mu.Lock()
		s.waiting++
		s.refill()
		s.mu.Unlock()
	}
}

// take waits for an idle worker that is not armed (nil once draining),
// makes si its session and counts the connection as no longer waiting,
// all at once: a refill or an arming in between would start or arm one
// worker too many.
func (s *server) take(si *sessionInfo) *child {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := -1
	for !s.draining {
		if i = slices.IndexFunc(s.idle, func(ch *child) bool { return !ch.armed }); i >= 0 {
			break
		}
		s.changed.Wait()
	}
	s.waiting--
	if s.draining {
		return nil
	}
	ch := s.idle[i]
	s.idle = slices.Delete(s.idle, i, i+1)
	ch.sess = si
	s.balance()
	return ch
}

// hand sends c to ch, whose session si is (take); on failure it is not.
// The worker opens the session's output files itself, as it does for a
// connection it accepts.
func (s *server) hand(ch *child, c net.Conn, si *sessionInfo) error {
	rc, err := c.(syscall.Conn).SyscallConn()
	if err == nil {
		var werr error
		err = rc.Control(func(fd uintptr) {
			_, _, werr = ch.ctl.WriteMsgUnix(wire.Encode(wire.MsgSession, strconv.FormatUint(si.id, 10)), unix.UnixRights(int(fd)), nil)
		})
		if err == nil {
			err = werr
		}
	}
	s.mu.Lock()
	if err != nil {
		ch.sess = nil
	} else {
		s.accepted++
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	s.log.Debug("handed over", "session", si.id, "worker", ch.pid, "peer", si.peer.Addr)
	return nil
}
