//go:build cgo && linux

package serve

import (
	"syscall"
	"time"
)

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
	for _, ch := range s.idle {
		_ = ch.ctl.CloseWrite()
	}
	s.idle = nil
	s.kick()
	s.changed.Broadcast()
	s.mu.Unlock()
	<-s.acceptDone
	s.spawning.Wait() // a child being started holds the listeners' files
	s.closeListeners()
	deadline := time.AfterFunc(s.cfg.DrainTimeout, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, ch := range s.children {
			if ch.sess != nil {
				ch.killed = true
			}
			_ = syscall.Kill(-ch.pid, syscall.SIGKILL)
			_ = syscall.Kill(ch.pid, syscall.SIGKILL)
		}
	})
	defer deadline.Stop()
	s.mu.Lock()
	for len(s.children) > 0 || s.starting > 0 {
		s.changed.Wait()
	}
	ended := s.ended
	s.mu.Unlock()
	s.reapers.Wait() // their session lines come before this one
	s.log.Info("drained", "sessions", ended, "uptime", time.Since(s.start).Round(time.Millisecond))
}
