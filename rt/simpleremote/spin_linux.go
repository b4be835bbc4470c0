package simpleremote

import (
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// readSpinner polls a non-blocking input descriptor for a short while
// before its reader parks in Go's poller (RATIONALE.md, "Polling before
// parking"). A zero readSpinner never polls.
type readSpinner struct {
	rc     syscall.RawConn
	budget atomic.Int64 // nanoseconds; <= 0: never poll
	busy   atomic.Bool  // a read is polling; a concurrent one reads plainly
	warm   bool         // the last wait ended within budget
	poll   func(uintptr) bool

	// One read's state, owned by the holder of busy: poll is bound
	// once, so a read allocates nothing.
	p     []byte
	n     int
	errno error
	start time.Time
	limit time.Duration
}

// init lets set make s poll rc's descriptor, if that descriptor is
// non-blocking and the process may run on more than one CPU (on one, the
// controller could not answer while the executor polls).
func (s *readSpinner) init(rc syscall.RawConn) {
	if runtime.NumCPU() < 2 {
		return
	}
	nonblock := false
	if err := rc.Control(func(fd uintptr) {
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nonblock = err == nil && fl&unix.O_NONBLOCK != 0
	}); err != nil || !nonblock {
		return
	}
	s.rc = rc
	s.poll = s.pollOnce
	s.warm = true
}

// set changes the budget; zero or negative never polls.
func (s *readSpinner) set(budget time.Duration) { s.budget.Store(int64(budget)) }

// read reads into p by polling. With ok it read n bytes or failed with
// errno, which the caller wraps as its ordinary Read would; without, the
// caller reads as usual: polling is off or busy, the descriptor is
// closed or past a deadline, or the input ended (a second read then
// sees the same).
func (s *readSpinner) read(p []byte) (n int, errno error, ok bool) {
	if s.rc == nil || len(p) == 0 {
		return 0, nil, false
	}
	budget := time.Duration(s.budget.Load())
	if budget <= 0 || !s.busy.CompareAndSwap(false, true) { // off (the default) costs one load
		return 0, nil, false
	}
	defer s.busy.Store(false)
	s.p, s.n, s.errno, s.start, s.limit = p, 0, nil, time.Now(), 0
	if s.warm {
		s.limit = budget
	}
	err := s.rc.Read(s.poll)
	s.warm = time.Since(s.start) <= budget
	n, errno = s.n, s.errno
	s.p = nil
	if err != nil || (errno == nil && n <= 0) {
		return 0, nil, false
	}
	return n, errno, true
}

// pollOnce is the RawConn.Read callback: it reads until data, end of
// input or an error, or until the limit passes (false: park in the
// poller until the descriptor is readable, then run again). It also
// stops while a Writer waits for its descriptor, which only the poller
// can report. Between attempts it lets other goroutines, then other
// threads on this CPU, run: the controller, pinned to the same CPU,
// answers meanwhile.
func (s *readSpinner) pollOnce(fd uintptr) bool {
	for {
		n, err := unix.Read(int(fd), s.p)
		switch err {
		case nil:
			s.n = n
			return true
		case unix.EINTR:
			continue
		case unix.EAGAIN:
		default:
			s.errno = err
			return true
		}
		if time.Since(s.start) >= s.limit || writesWaiting.Load() > 0 {
			return false
		}
		runtime.Gosched()
		_, _, _ = unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
	}
}
