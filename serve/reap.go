//go:build cgo && linux

package serve

import (
	"os"
	"slices"
	"strconv"
	"syscall"
	"time"
)

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
