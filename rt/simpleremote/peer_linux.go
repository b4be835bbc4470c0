package simpleremote

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

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
				pid, _, _ := tcpPeer(c.LocalAddr().(*net.TCPAddr), addr)
				return pid
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

// WatchPeerClose shuts c down and then calls gone (if not nil), once,
// when the controller process at the other end of c, a loopback TCP
// connection, no longer holds its end of it. LLVM's controllers (14 to
// 22) close their socket at exit without shutting it down while their
// own reader thread blocks on it, so neither side ever reads end-of-file
// (the `-oop-executor-connect` exit hang); the shutdown gives both sides
// the end-of-file of an orderly end (no Hangup: the controller has
// already let go of its descriptor and would fail on one). It looks from
// its own goroutine, soon after the connection falls quiet (a controller
// lets go right after its last result) and then less often, at most
// interval apart (lookSchedule); stop ends the watch. Where the
// controller's process cannot be found or read (another user, not
// loopback, not TCP) it watches nothing.
func WatchPeerClose(c Conn, interval time.Duration, gone func()) (stop func()) {
	sc, ok := c.(*sockConn)
	if !ok {
		return func() {}
	}
	remote, ok := sc.RemoteAddr().(*net.TCPAddr)
	if !ok || !remote.IP.IsLoopback() {
		return func() {}
	}
	local := sc.LocalAddr().(*net.TCPAddr)
	quit := make(chan struct{})
	var once sync.Once
	shut := func() {
		shutdownFile(sc.sc, shutRDWR)
		if gone != nil {
			gone()
		}
	}
	go func() {
		pid, inode, unsure := tcpPeer(local, remote)
		switch {
		case pid == 0 && inode != "" && holds(os.Getpid(), "socket:["+inode+"]") == holdsYes:
			return // the controller is in this process: its close is seen as usual
		case pid == 0 && inode != "" && !unsure:
			shut() // a short session: let go of before the first look
			return
		case pid == 0:
			return
		}
		sched := newLookSchedule(interval)
		t := time.NewTimer(sched.interval)
		defer t.Stop()
		rc, _ := sc.sc.SyscallConn()
		lookedAt := time.Now()
		for {
			look, nap := true, sched.interval
			if q, ok := quietFor(rc); ok {
				look, nap = sched.step(q, time.Since(lookedAt))
			}
			if look {
				lookedAt = time.Now()
				switch holds(pid, "socket:["+inode+"]") {
				case holdsNot:
					shut()
					return
				case holdsUnknown: // unreadable now
					return
				}
			}
			t.Reset(nap)
			select {
			case <-quit:
				return
			case <-t.C:
			}
		}
	}()
	return func() { once.Do(func() { close(quit) }) }
}

// firstLook is how long a connection is quiet before WatchPeerClose
// first looks: LLVM 22's llvm-jitlink closes its socket within a
// millisecond of reading its last result.
const firstLook = 2 * time.Millisecond

// lookSchedule decides when WatchPeerClose looks at the controller's
// descriptors, from how long no data has moved on the connection: at
// firstLook of quiet, then at twice the quiet time of the last look up to
// interval, then every interval; data moving starts it again. Between
// looks it wakes often enough (every tenth of interval during the first
// ten intervals of quiet) to see data move, so a close right after the
// last exchange is seen within milliseconds, and an idle session costs a
// wake-up per interval; while data moves it wakes about every firstLook.
// It also looks whenever interval has passed since the last look, so a
// quiet time that never grows (under QEMU user mode TCP_INFO's times read
// 0) still gets a look every interval. Looking costs a read of
// /proc/PID/fd (tens of microseconds); a wake-up, one getsockopt.
type lookSchedule struct {
	interval time.Duration
	next     time.Duration // the quiet time at which to look next
	last     time.Duration // the quiet time seen at the last step
}

func newLookSchedule(interval time.Duration) *lookSchedule {
	interval = max(interval, time.Millisecond)
	return &lookSchedule{interval: interval, next: min(firstLook, interval), last: -1}
}

// step takes the connection's quiet time q and the time since the last
// look, and returns whether to look now and how long to wait before the
// next step.
func (s *lookSchedule) step(q, sinceLook time.Duration) (look bool, nap time.Duration) {
	if q < s.last { // data moved since the last step
		s.next = min(firstLook, s.interval)
	}
	s.last = q
	look = sinceLook >= s.interval
	if q >= s.next {
		look = true
		for s.next <= q {
			if s.next < s.interval {
				s.next = min(2*s.next, s.interval)
			} else {
				s.next += s.interval
			}
		}
	}
	wake := s.interval
	if q < 10*s.interval {
		wake = max(s.interval/10, time.Millisecond)
	}
	return look, min(s.next-q, wake)
}

// quietFor returns how long no data has moved either way on the TCP
// connection rc, from the kernel's TCP_INFO (whole milliseconds).
func quietFor(rc syscall.RawConn) (time.Duration, bool) {
	if rc == nil {
		return 0, false
	}
	var info *unix.TCPInfo
	_ = rc.Control(func(fd uintptr) {
		info, _ = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
	})
	if info == nil {
		return 0, false
	}
	return time.Duration(min(info.Last_data_recv, info.Last_data_sent)) * time.Millisecond, true
}

// What holds finds.
const (
	holdsYes = iota
	holdsNot
	holdsUnknown
)

// holds reports whether process pid has a descriptor linked to target;
// a process that has exited holds none.
func holds(pid int, target string) int {
	fdDir := "/proc/" + strconv.Itoa(pid) + "/fd"
	fds, err := os.ReadDir(fdDir)
	if errors.Is(err, fs.ErrNotExist) {
		return holdsNot
	}
	if err != nil {
		return holdsUnknown
	}
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil && l == target {
			return holdsYes
		}
	}
	return holdsNot
}

// tcpPeer finds the socket whose local end is remote (peerSocket), then
// the process holding it: among the processes
// of the socket's owner only, newest (highest pid) first, since the
// controller has just connected. Reading every process's descriptors
// cost ~10 ms with 70 processes, all of it before Setup. It returns the
// pid and the socket's inode; pid is 0 if no process holds the socket,
// and unsure is set if some candidate's descriptors could not be read.
func tcpPeer(local, remote *net.TCPAddr) (pid int, inode string, unsure bool) {
	inode, uid := peerSocket(local, remote)
	if inode == "" {
		return 0, "", true
	}
	want := "socket:[" + inode + "]"
	self := os.Getpid()
	for _, pid := range pidsNewestFirst() {
		if pid == self || !ownedBy(pid, uid) {
			continue
		}
		switch holds(pid, want) {
		case holdsYes:
			return pid, inode, false
		case holdsUnknown:
			unsure = true
		}
	}
	return 0, inode, unsure
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
