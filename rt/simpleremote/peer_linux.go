package simpleremote

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
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
// /proc/net/tcp{,6}, then the process holding it: among the processes
// of the socket's owner only, newest (highest pid) first, since the
// controller has just connected. Reading every process's descriptors
// cost ~10 ms with 70 processes, all of it before Setup.
func tcpPeerPID(local, remote *net.TCPAddr) int {
	inode, uid := "", -1
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		if inode, uid = socketInode(table, remote.Port, local.Port); inode != "" {
			break
		}
	}
	if inode == "" {
		return 0
	}
	want := "socket:[" + inode + "]"
	self := os.Getpid()
	for _, pid := range pidsNewestFirst() {
		if pid == self || !ownedBy(pid, uid) {
			continue
		}
		fdDir := "/proc/" + strconv.Itoa(pid) + "/fd"
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

// pidsNewestFirst lists the processes in /proc, highest pid first.
func pidsNewestFirst() []int {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	pids := make([]int, 0, len(names))
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil {
			pids = append(pids, pid)
		}
	}
	slices.SortFunc(pids, func(a, b int) int { return b - a })
	return pids
}

// ownedBy reports whether process pid runs as uid (-1: any).
func ownedBy(pid, uid int) bool {
	if uid < 0 {
		return true
	}
	var st syscall.Stat_t
	if syscall.Stat("/proc/"+strconv.Itoa(pid), &st) != nil {
		return false
	}
	return int(st.Uid) == uid
}

// socketInode returns the inode and owner uid of the table's connection
// from port localPort to port remotePort ("", -1 if none).
func socketInode(table string, localPort, remotePort int) (inode string, uid int) {
	f, err := os.Open(table)
	if err != nil {
		return "", -1
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
		uid, err := strconv.Atoi(fields[7])
		if err != nil {
			uid = -1
		}
		return fields[9], uid
	}
	return "", -1
}
