//go:build cgo && linux

package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/orcgo/orcrt/rt/simpleremote"
)

// listener is a listening socket, kept out of Go's poller: the accept
// loop and the workers poll it themselves, and every connection would
// otherwise wake the server.
type listener struct {
	fd   int      // non-blocking (shared with the workers' copies)
	file *os.File // fd, for the workers' ExtraFiles
	name string
	path string // unix=: the socket file
	own  bool   // not systemd's: shut down at drain
}

// listen opens the listeners of one serve address.
func listen(addr string) ([]*listener, error) {
	if addr == "systemd" {
		return systemdListeners()
	}
	spec, err := simpleremote.ParseSpec(addr)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	switch spec.Mode {
	case simpleremote.ModeUnix:
		// Mode 0666: the peer check, not the file mode, decides, and
		// every refusal is logged (RATIONALE.md, "orcrt-executor serve").
		l, err := listenUnix(spec.Path, 0o666)
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		ln, err := rawListener(l, "unix="+spec.Path)
		if err != nil {
			_ = os.Remove(spec.Path)
			return nil, err
		}
		ln.path, ln.own = spec.Path, true
		return []*listener{ln}, nil
	case simpleremote.ModeListen:
		host := spec.Host
		if host == "" {
			host = simpleremote.LoopbackHost
		}
		l, err := simpleremote.NetListenTCP(context.Background(), host, spec.Port)
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		ln, err := rawListener(l, "listen="+l.Addr().String())
		if err != nil {
			return nil, err
		}
		ln.own = true
		return []*listener{ln}, nil
	}
	return nil, fmt.Errorf("serve: %q is not unix=<path>, listen=<host>:<port> or systemd", addr)
}

// listenUnix listens at path, replacing a stale socket file (one nobody
// listens on) but nothing else.
func listenUnix(path string, mode os.FileMode) (net.Listener, error) {
	addr := &net.UnixAddr{Name: path, Net: "unix"}
	l, err := net.ListenUnix("unix", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		if fi, serr := os.Lstat(path); serr == nil && fi.Mode()&os.ModeSocket != 0 {
			if c, derr := net.DialUnix("unix", nil, addr); derr == nil {
				c.Close()
			} else if errors.Is(derr, syscall.ECONNREFUSED) {
				_ = os.Remove(path)
				l, err = net.ListenUnix("unix", addr)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, mode); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// systemdListeners adopts the listening sockets systemd passes (fds 3
// on, LISTEN_PID and LISTEN_FDS), as duplicates: workers get them as
// descriptors of their own, not as LISTEN_FDS.
func systemdListeners() ([]*listener, error) {
	pid, _ := strconv.Atoi(os.Getenv("LISTEN_PID"))
	n, err := strconv.Atoi(os.Getenv("LISTEN_FDS"))
	if pid != os.Getpid() || err != nil || n < 1 {
		return nil, errors.New("serve: systemd: LISTEN_PID is not this process or LISTEN_FDS is not set")
	}
	for _, v := range []string{"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"} {
		os.Unsetenv(v)
	}
	var ls []*listener
	for fd := 3; fd < 3+n; fd++ {
		f := os.NewFile(uintptr(fd), "systemd-socket")
		l, err := net.FileListener(f)
		f.Close()
		if err != nil {
			for _, l := range ls {
				l.file.Close()
			}
			return nil, fmt.Errorf("serve: systemd socket %d: %w", fd, err)
		}
		ln, err := rawListener(l, "systemd="+l.Addr().Network()+":"+l.Addr().String())
		if err != nil {
			return nil, err
		}
		ls = append(ls, ln)
	}
	return ls, nil
}

// rawListener takes l's socket out of Go's poller: it returns a
// close-on-exec, non-blocking duplicate and closes l (leaving a Unix
// socket's file in place).
func rawListener(l net.Listener, name string) (*listener, error) {
	fd := -1
	var err error
	if sc, ok := l.(syscall.Conn); !ok {
		err = errors.New("no descriptor")
	} else if rc, rerr := sc.SyscallConn(); rerr != nil {
		err = rerr
	} else if cerr := rc.Control(func(u uintptr) { fd, err = unix.FcntlInt(u, unix.F_DUPFD_CLOEXEC, 0) }); cerr != nil {
		err = cerr
	}
	if ul, ok := l.(*net.UnixListener); ok {
		ul.SetUnlinkOnClose(false)
	}
	l.Close()
	if err != nil {
		if fd >= 0 {
			_ = unix.Close(fd)
		}
		return nil, fmt.Errorf("serve: %s: %w", name, err)
	}
	// os.NewFile would register a non-blocking descriptor with Go's
	// poller, and exec would then make it blocking (for every copy) when
	// it passes it to a worker: wrap it while blocking, then make it
	// non-blocking for good.
	if err := unix.SetNonblock(fd, false); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("serve: %s: %w", name, err)
	}
	f := os.NewFile(uintptr(fd), name)
	if err := unix.SetNonblock(fd, true); err != nil {
		f.Close()
		return nil, fmt.Errorf("serve: %s: %w", name, err)
	}
	return &listener{fd: fd, file: f, name: name}, nil
}

// closeListeners closes the listening sockets (serve's own ones shut
// down first, which stops them listening in the workers' copies too) and
// the status socket.
func (s *server) closeListeners() {
	for _, l := range s.ls {
		if l.own {
			_ = unix.Shutdown(l.fd, unix.SHUT_RDWR)
		}
		if l.path != "" {
			_ = os.Remove(l.path)
		}
		l.file.Close()
	}
	if s.statusLis != nil {
		s.statusLis.Close()
	}
}
