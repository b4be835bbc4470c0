//go:build cgo && linux

package worker

import (
	"errors"
	"sync"
	"syscall"
	"time"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/rt/simpleremote"
)

// sessionConn is the connection Serve gets in a worker: its first read
// (which follows the Setup write) closes the listening sockets and
// reports the session to the server once it returns; every read that
// brings data counts as activity (with an idle timeout), and the first
// (or watchDelay) starts the watch for a controller that closes without
// a shutdown.
type sessionConn struct {
	simpleremote.Conn
	idle     *idleWatch
	setupOut func() // once, at the first Read
	report   func() // once
	first    sync.Once
	mu       sync.Mutex
	stop     func()
	stopped  bool
}

// SetReadSpin passes Options.ReadSpin on to the connection.
func (c *sessionConn) SetReadSpin(d time.Duration) {
	if rs, ok := c.Conn.(interface{ SetReadSpin(time.Duration) }); ok {
		rs.SetReadSpin(d)
	}
}

// KernelReads passes the connection's on: Read only adds bookkeeping.
func (c *sessionConn) KernelReads() bool {
	kr, ok := c.Conn.(simpleremote.KernelReader)
	return ok && kr.KernelReads()
}

func (c *sessionConn) Read(p []byte) (int, error) {
	if c.setupOut != nil {
		c.setupOut()
	}
	n, err := c.Conn.Read(p)
	if c.report != nil {
		c.report()
	}
	if n > 0 {
		if c.idle != nil {
			c.idle.touch()
		}
		c.startWatch()
	}
	return n, err
}

// watchDelay is when the peer watch starts if the controller has sent
// nothing by then: Setup is long written.
const watchDelay = 20 * time.Millisecond

func (c *sessionConn) startWatch() {
	c.first.Do(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if !c.stopped {
			c.stop = simpleremote.WatchPeerClose(c.Conn, executor.PeerWatchInterval, nil)
		}
	})
}

func (c *sessionConn) stopWatch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	if c.stop != nil {
		c.stop()
	}
}

// SyscallConn keeps the writev path of the wrapped socket.
func (c *sessionConn) SyscallConn() (syscall.RawConn, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil, errors.New("serve worker: connection has no raw descriptor")
	}
	return sc.SyscallConn()
}
