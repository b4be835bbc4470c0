//go:build cgo && linux

package serve

import (
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/orcgo/orcrt/serve/internal/peer"
)

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
	fmt.Fprintf(&b, "pool idle=%d starting=%d size=%d accepting=%d\n", len(s.idle), s.starting, s.cfg.Pool, s.armed)
	fmt.Fprintf(&b, "sessions active=%d waiting=%d max=%d accepted=%d ended=%d\n", s.active(), s.waiting, s.cfg.MaxSessions, s.accepted, s.ended)
	kinds := make([]string, 0, len(s.refusals))
	var total uint64
	for k, n := range s.refusals {
		kinds = append(kinds, fmt.Sprintf("%s=%d", k, n))
		total += n
	}
	slices.Sort(kinds)
	fmt.Fprintf(&b, "refused total=%d %s\n", total, strings.Join(kinds, " "))
	var ss []*child
	for _, ch := range s.children {
		if ch.sess != nil {
			ss = append(ss, ch)
		}
	}
	slices.SortFunc(ss, func(a, b *child) int { return int(a.sess.id) - int(b.sess.id) })
	for _, ch := range ss {
		si := ch.sess
		fmt.Fprintf(&b, "session id=%d worker=%d network=%s peer=%s uid=%d pid=%d dialect=%q age=%s\n",
			si.id, ch.pid, si.peer.Network, si.peer.Addr, si.peer.UID, si.pid, si.dialect, time.Since(si.start).Round(time.Millisecond))
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
		pr, err := peer.Unix(c)
		if err == nil && pr.UID != s.pol.Self && pr.UID != 0 {
			err = fmt.Errorf("uid %d", pr.UID)
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

// ReadStatus copies to w what the status socket at path (Config.StatusPath)
// says: the server, its pool, sessions and refusals, a line each.
func ReadStatus(w io.Writer, path string) error {
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
