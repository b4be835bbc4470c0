//go:build cgo && linux

package serve

import (
	"slices"

	"github.com/orcgo/orcrt/serve/internal/peer"
	"github.com/orcgo/orcrt/serve/internal/wire"
)

// read handles the reports of ch's worker on its control socket until
// the socket ends.
func (s *server) read(ch *child) {
	defer close(ch.reader)
	buf := make([]byte, 4096)
	for {
		n, err := ch.ctl.Read(buf)
		if err != nil || n == 0 {
			return
		}
		f := wire.Fields(buf[:n])
		var accepted *sessionInfo
		var refused *wire.Refused
		s.mu.Lock()
		switch {
		case f[0] == wire.MsgReady && !ch.ready:
			ch.ready = true
			s.starting--
			s.failures = 0
			if s.draining {
				_ = ch.ctl.CloseWrite()
			} else {
				s.idle = append(s.idle, ch)
				s.balance()
				s.changed.Broadcast()
			}
		case f[0] == wire.MsgStarted:
			m, ok := wire.ParseStarted(f)
			if !ok {
				break
			}
			if ch.sess == nil {
				// A connection the worker accepted itself.
				if m.Network == "" {
					break
				}
				pr := peer.Peer{Network: m.Network, Addr: m.Addr, UID: m.UID, GID: m.GID, PID: -1}
				accepted = &sessionInfo{id: m.ID, peer: pr, start: m.Accepted, pid: -1}
				ch.sess = accepted
				if i := slices.Index(s.idle, ch); i >= 0 {
					s.idle = slices.Delete(s.idle, i, i+1)
				}
				if ch.armed {
					ch.armed = false
					s.armed--
				}
				s.accepted++
			}
			if m.PID > 0 {
				ch.sess.pid = m.PID
			}
			ch.sess.dialect, ch.sess.how = m.Dialect, m.How
			// The replacement starts now that Setup is out: on a busy
			// machine its exec would compete with the session's start.
			s.refill()
			s.balance()
			s.changed.Broadcast()
		case f[0] == wire.MsgRefused:
			if m, ok := wire.ParseRefused(f); ok {
				s.refusals[m.Kind]++
				refused = &m
			}
		case f[0] == wire.MsgEnd && len(f) == 2:
			ch.reason = f[1]
		}
		s.mu.Unlock()
		if accepted != nil {
			s.log.Debug("accepted", "session", accepted.id, "worker", ch.pid, "peer", accepted.peer.Addr)
		}
		if refused != nil {
			s.log.Warn("refused", "peer", refused.Addr, "uid", refused.UID, "pid", refused.PID, "why", refused.Why)
		}
	}
}
