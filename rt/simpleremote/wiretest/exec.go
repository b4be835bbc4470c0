package wiretest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/orcgo/orcrt/internal/crossexec"
)

// ExecOptions configure StartExecutor. The zero value starts the
// executor exactly as llvm-jitlink 22 does.
type ExecOptions struct {
	// InFD and OutFD are the executor's descriptor numbers (0: 3 and 6, as
	// llvm-jitlink 22; equal: one socketpair end). Both must be >= 3.
	InFD, OutFD int
	// Args are appended after "filedescs=IN,OUT" (llvm-jitlink passes
	// none).
	Args []string
	// SocketAdopt starts the executor as LLVM main's llvm-jitlink
	// -oop-launch does: one end of a socketpair at InFD, argv [PATH,
	// "socket:adopt=FD"] (llvm-project PRs #223941, #224632, #225075).
	SocketAdopt bool
	// Env is appended to os.Environ().
	Env []string
	// Dir is the working directory ("" = ours).
	Dir string
	// Stdout and Stderr receive copies of the executor's output streams,
	// which are also captured (see Executor.Stdout, Executor.Stderr).
	Stdout, Stderr io.Writer
	// SysProcAttr is passed to the child (nil: none).
	SysProcAttr *syscall.SysProcAttr
	// Controller configures the controller end.
	Controller *Options
}

// ExitStatus is how an executor process ended.
type ExitStatus struct {
	Code   int            // exit status, or -1 if killed by a signal
	Signal syscall.Signal // the signal, or 0
}

func (s ExitStatus) String() string {
	if s.Signal != 0 {
		return "killed by " + s.Signal.String()
	}
	return fmt.Sprintf("exit status %d", s.Code)
}

// Executor is an executor process started with StartExecutor, and the
// Controller connected to it.
type Executor struct {
	*Controller
	Cmd *exec.Cmd

	stdout, stderr SyncBuffer
	waitOnce       sync.Once
	status         ExitStatus
	waitErr        error
}

// StartExecutor starts the executor binary at path as `llvm-jitlink
// -oop-executor=PATH` does (docs/protocol.md §1.1; stdout and stderr are
// captured) and connects a Controller, which waits for Setup. On failure
// the process is killed and reaped and the error includes its stderr.
func StartExecutor(path string, opts *ExecOptions) (*Executor, error) {
	var o ExecOptions
	if opts != nil {
		o = *opts
	}
	if o.InFD == 0 && o.OutFD == 0 {
		o.InFD, o.OutFD = 3, 6
	}
	spec := fmt.Sprintf("filedescs=%d,%d", o.InFD, o.OutFD)
	if o.SocketAdopt {
		o.OutFD = o.InFD
		spec = fmt.Sprintf("socket:adopt=%d", o.InFD)
	}
	if o.InFD < 3 || o.OutFD < 3 {
		return nil, fmt.Errorf("wiretest: executor descriptors %d,%d: both must be >= 3", o.InFD, o.OutFD)
	}

	// Our ends are close-on-exec; exec.Cmd dup2s the child's.
	var childIn, childOut *os.File
	var ctl io.ReadWriteCloser
	if o.InFD == o.OutFD {
		child, ours, err := socketPair()
		if err != nil {
			return nil, err
		}
		childIn, childOut = child, child
		ctl = &sockFile{ours}
	} else {
		toR, toW, err := os.Pipe()
		if err != nil {
			return nil, fmt.Errorf("wiretest: pipe: %w", err)
		}
		fromR, fromW, err := os.Pipe()
		if err != nil {
			_, _ = toR.Close(), toW.Close()
			return nil, fmt.Errorf("wiretest: pipe: %w", err)
		}
		childIn, childOut = toR, fromW
		ctl = &PipeConn{R: fromR, W: toW}
	}
	extra := make([]*os.File, max(o.InFD, o.OutFD)-2)
	extra[o.InFD-3] = childIn
	extra[o.OutFD-3] = childOut

	e := &Executor{}
	// Under user-mode emulation (the arm64 CI job) an executor built for
	// this GOARCH is started through the emulator; natively, unchanged.
	prog, argv := crossexec.Wrap(path, append([]string{spec}, o.Args...))
	cmd := &exec.Cmd{
		Path:        prog,
		Args:        append([]string{prog}, argv...),
		Env:         append(os.Environ(), o.Env...),
		Dir:         o.Dir,
		Stdin:       os.Stdin,
		Stdout:      teeTo(&e.stdout, o.Stdout),
		Stderr:      teeTo(&e.stderr, o.Stderr),
		ExtraFiles:  extra,
		SysProcAttr: o.SysProcAttr,
	}
	e.Cmd = cmd
	err := cmd.Start()
	// The child has its copies now (or never will).
	_ = childIn.Close()
	if childOut != childIn {
		_ = childOut.Close()
	}
	if err != nil {
		_ = ctl.Close()
		return nil, fmt.Errorf("wiretest: starting %s: %w", path, err)
	}
	c, err := New(ctl, o.Controller)
	if err != nil {
		_ = cmd.Process.Kill()
		st, _ := e.Wait()
		return nil, fmt.Errorf("%w (executor %s, stderr %q)", err, st, e.Stderr())
	}
	e.Controller = c
	return e, nil
}

// Wait waits for the process to exit (end the session first) and returns
// its status; the error is for waiting itself.
func (e *Executor) Wait() (ExitStatus, error) {
	e.waitOnce.Do(func() {
		err := e.Cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
			e.status = ExitStatus{Code: 0}
		case errors.As(err, &ee):
			ws, _ := ee.Sys().(syscall.WaitStatus)
			if ws.Signaled() {
				e.status = ExitStatus{Code: -1, Signal: ws.Signal()}
			} else {
				e.status = ExitStatus{Code: ws.ExitStatus()}
			}
		default:
			e.waitErr = fmt.Errorf("wiretest: waiting for the executor: %w", err)
		}
	})
	return e.status, e.waitErr
}

// WaitTimeout is Wait with a deadline, after which the process is killed
// (the error then says so).
func (e *Executor) WaitTimeout(d time.Duration) (ExitStatus, error) {
	t := time.AfterFunc(d, func() { _ = e.Cmd.Process.Kill() })
	st, err := e.Wait()
	if !t.Stop() && err == nil {
		err = fmt.Errorf("wiretest: executor did not exit within %v; killed", d)
	}
	return st, err
}

// Stdout returns what the executor has written to its standard output.
func (e *Executor) Stdout() string { return e.stdout.String() }

// Stderr returns what the executor has written to its standard error.
func (e *Executor) Stderr() string { return e.stderr.String() }

// Kill kills the process.
func (e *Executor) Kill() error { return e.Cmd.Process.Kill() }

// sockFile is our end of a socketpair: CloseWrite shuts down writing.
type sockFile struct{ *os.File }

func (s *sockFile) CloseWrite() error {
	rc, err := s.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = shutdownWrite(fd) }); err != nil {
		return err
	}
	return serr
}

// SyncBuffer is a bytes.Buffer safe for concurrent writers and readers
// (a child process's output collected while a test polls it).
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

// Write appends p.
func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns everything written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func teeTo(buf *SyncBuffer, w io.Writer) io.Writer {
	if w == nil {
		return buf
	}
	return io.MultiWriter(buf, w)
}
