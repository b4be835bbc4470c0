package simpleremote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// The TCP sockets are made here with system calls and handed to package
// net as files, so that nothing reaches net's resolver, which would add
// some 280 KB to every executor image, resident in full (RATIONALE.md,
// "A binary without log/slog and Go's resolver"). Host names go through
// lookupTCP: libc's getaddrinfo, as the stock executor, in cgo builds.

// listenTCP listens on the first of host:port's addresses (IPv4 first,
// as net.Listen) that binds.
func listenTCP(ctx context.Context, host, port string) (net.Listener, error) {
	addrs, err := resolveTCP(ctx, host, port)
	if err != nil {
		return nil, err
	}
	var first error
	for _, ap := range preferIPv4(addrs) {
		l, err := listenOne(ap)
		if err == nil {
			return l, nil
		}
		first = firstErr(first, err)
	}
	return nil, first
}

func listenOne(ap netip.AddrPort) (net.Listener, error) {
	fd, sa, err := tcpSocket(ap)
	if err != nil {
		return nil, err
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		unix.Close(fd)
		return nil, sockErr("setsockopt", ap, err)
	}
	if ap.Addr().Is6() && ap.Addr().IsUnspecified() { // every interface: both families, as net.Listen
		_ = unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 0)
	}
	if err := unix.Bind(fd, sa); err != nil {
		unix.Close(fd)
		return nil, sockErr("bind", ap, err)
	}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		unix.Close(fd)
		return nil, sockErr("listen", ap, err)
	}
	f := os.NewFile(uintptr(fd), "tcp-listener")
	defer f.Close()
	return net.FileListener(f)
}

// dialTCP connects to host:port's addresses in turn until one accepts.
func dialTCP(ctx context.Context, host, port string) (net.Conn, error) {
	addrs, err := resolveTCP(ctx, host, port)
	if err != nil {
		return nil, err
	}
	var first error
	for _, ap := range addrs {
		c, err := dialOne(ctx, ap)
		if err == nil {
			return c, nil
		}
		if ctx.Err() != nil {
			return nil, err
		}
		first = firstErr(first, err)
	}
	return nil, first
}

func dialOne(ctx context.Context, ap netip.AddrPort) (net.Conn, error) {
	fd, sa, err := tcpSocket(ap)
	if err != nil {
		return nil, err
	}
	err = unix.Connect(fd, sa)
	if err != nil && err != unix.EINPROGRESS && err != unix.EINTR {
		unix.Close(fd)
		return nil, sockErr("connect", ap, err)
	}
	f := os.NewFile(uintptr(fd), "tcp-connection") // registers fd with the poller
	defer f.Close()
	if err != nil {
		if err := awaitConnect(ctx, f); err != nil {
			return nil, sockErr("connect", ap, err)
		}
	}
	return net.FileConn(f)
}

// awaitConnect waits for f's non-blocking connect to end, or ctx to.
func awaitConnect(ctx context.Context, f *os.File) error {
	// Only ctx's end sets the deadline, so ctx.Err is set when it hits.
	stop := context.AfterFunc(ctx, func() { _ = f.SetWriteDeadline(time.Unix(1, 0)) })
	defer stop()
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var cerr error
	err = rc.Write(func(fd uintptr) bool {
		n, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_ERROR)
		if err != nil {
			cerr = err
			return true
		}
		switch e := unix.Errno(n); e {
		case unix.EINPROGRESS, unix.EALREADY, unix.EINTR:
			return false
		case 0, unix.EISCONN:
			if _, err := unix.Getpeername(int(fd)); err != nil {
				return false // not connected yet
			}
			cerr = nil
		default:
			cerr = e
		}
		return true
	})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	return cerr
}

func tcpSocket(ap netip.AddrPort) (int, unix.Sockaddr, error) {
	family, sa := unix.AF_INET, unix.Sockaddr(&unix.SockaddrInet4{Port: int(ap.Port()), Addr: ap.Addr().As4()})
	if a := ap.Addr(); a.Is6() && !a.Is4In6() {
		family = unix.AF_INET6
		sa6 := &unix.SockaddrInet6{Port: int(ap.Port()), Addr: a.As16()}
		if z := a.Zone(); z != "" {
			n, err := strconv.ParseUint(z, 10, 32)
			if err != nil {
				return -1, nil, fmt.Errorf("socket %s: zone %q is not an interface index", ap, z)
			}
			sa6.ZoneId = uint32(n)
		}
		sa = sa6
	} else if a.Is4In6() {
		sa = &unix.SockaddrInet4{Port: int(ap.Port()), Addr: a.Unmap().As4()}
	}
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, nil, sockErr("socket", ap, err)
	}
	return fd, sa, nil
}

// resolveTCP returns host:port's addresses: numeric ones as they are,
// names through lookupTCP.
func resolveTCP(ctx context.Context, host, port string) ([]netip.AddrPort, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		if p, err := strconv.ParseUint(port, 10, 16); err == nil {
			return []netip.AddrPort{netip.AddrPortFrom(a, uint16(p))}, nil
		}
	}
	addrs, err := lookupTCP(ctx, host, port)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", net.JoinHostPort(host, port), err)
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("resolving %s: no address", net.JoinHostPort(host, port))
	}
	return addrs, nil
}

func preferIPv4(addrs []netip.AddrPort) []netip.AddrPort {
	out := make([]netip.AddrPort, 0, len(addrs))
	for _, ap := range addrs {
		if ap.Addr().Unmap().Is4() {
			out = append(out, ap)
		}
	}
	for _, ap := range addrs {
		if !ap.Addr().Unmap().Is4() {
			out = append(out, ap)
		}
	}
	return out
}

func sockErr(op string, ap netip.AddrPort, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s %s: %w", op, ap, err)
	}
	return fmt.Errorf("%s %s: %w", op, ap, os.NewSyscallError(op, err))
}

// firstErr keeps the first error.
func firstErr(first, err error) error {
	if first != nil {
		return first
	}
	return err
}
