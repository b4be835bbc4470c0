//go:build cgo && linux

package serve

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
)

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
