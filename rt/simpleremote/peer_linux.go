package simpleremote

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// PeerPID returns the process id of the controller at the other end of
// c, or 0 if it cannot be known: for inherited descriptors the parent
// process (the controller that spawned the executor), for a Unix-domain
// socket the peer's credentials, for TCP the local process that owns the
// other end of a loopback connection.
func PeerPID(c Conn) int {
	switch c := c.(type) {
	case *FileConn:
		return os.Getppid()
	case *sockConn:
		switch addr := c.RemoteAddr().(type) {
		case *net.UnixAddr:
			return unixPeerPID(c.sc)
		case *net.TCPAddr:
			if addr.IP.IsLoopback() {
				return tcpPeerPID(c.LocalAddr().(*net.TCPAddr), addr)
			}
		}
	}
	return 0
}

func unixPeerPID(sc syscall.Conn) int {
	rc, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	pid := 0
	_ = rc.Control(func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			pid = int(cred.Pid)
		}
	})
	return pid
}

// tcpPeerPID finds the socket whose local end is remote in
// /proc/net/tcp{,6}, then the process holding it.
func tcpPeerPID(local, remote *net.TCPAddr) int {
	inode := ""
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if inode = socketInode(table, remote.Port, local.Port); inode != "" {
			break
		}
	}
	if inode == "" {
		return 0
	}
	want := "socket:[" + inode + "]"
	procs, _ := filepath.Glob("/proc/[0-9]*/fd")
	self := os.Getpid()
	for _, fdDir := range procs {
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(fdDir)))
		if pid == self {
			continue
		}
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil && l == want {
				return pid
			}
		}
	}
	return 0
}

// socketInode returns the inode of the table's connection from port
// localPort to port remotePort.
func socketInode(table string, localPort, remotePort int) string {
	f, err := os.Open(table)
	if err != nil {
		return ""
	}
	defer f.Close()
	wantLocal, wantRemote := fmt.Sprintf(":%04X", localPort), fmt.Sprintf(":%04X", remotePort)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || !strings.HasSuffix(fields[1], wantLocal) || !strings.HasSuffix(fields[2], wantRemote) {
			continue
		}
		return fields[9]
	}
	return ""
}
