//go:build cgo && linux

package serve

import (
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"
)

// reap waits for ch's exit, logs its session and refills the pool.
func (s *server) reap(ch *child) {
	err := ch.cmd.Wait()
	// The control socket ends when the worker does, unless something
	// JIT'd code forked still holds it.
	_ = ch.ctl.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
	<-ch.reader
	ch.ctl.Close()
	st := ch.cmd.ProcessState
	s.mu.Lock()
	delete(s.children, ch.pid)
	if i := slices.Index(s.idle, ch); i >= 0 {
		s.idle = slices.Delete(s.idle, i, i+1)
	}
	if ch.armed {
		ch.armed = false
		s.armed--
	}
	if !ch.ready {
		s.starting--
		if !s.draining {
			s.failures++
			s.log.Error("a worker exited before it was ready", "worker", ch.pid, "status", exitText(st, err))
		}
	}
	si := ch.sess
	if si != nil {
		s.ended++
	}
	s.refill()
	s.balance()
	s.changed.Broadcast()
	s.mu.Unlock()
	if si == nil {
		s.log.Debug("worker exited", "worker", ch.pid, "status", exitText(st, err))
		return
	}
	reason := ch.reason
	switch {
	case ch.killed:
		reason = "killed at the drain deadline"
	case reason != "":
	case st != nil && st.Success():
		reason = "ended"
	case st != nil && st.Exited():
		reason = "exited" // a protocol error, or exit() in JIT'd code
	default:
		reason = "crashed"
	}
	s.log.Info("session", "id", si.id, "network", si.peer.Network, "peer", si.peer.Addr, "uid", si.peer.UID,
		"pid", si.pid, "dialect", si.dialect, "how", si.how, "worker", ch.pid,
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
