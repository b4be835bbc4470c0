package dialect

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// maxMapsLines bounds how much of /proc/PID/maps is read.
const maxMapsLines = 1 << 16

// ReleaseOfProcess identifies the LLVM release of the process pid, the
// cheapest evidence first: an LLVM install directory in its executable's
// path (/usr/lib/llvm-N/bin, where Debian's tools live) or the directory
// of an LLVM release tarball (LLVM-19.1.7-Linux-X64/bin), both a
// readlink; the libLLVM it maps (the shared builds of most
// distributions), a read of /proc/PID/maps; a version suffix of its
// executable's name (llvm-jitlink-19); LLVM's version text in its
// executable, a scan of the file; and last, for an executable linking
// LLVM's command-line library that none of these identified (a static
// build), what it prints when run with --version. Only that last one
// starts a process, bounded by versionRunTimeout. A release of 0 means
// nothing identified it.
//
// The path comes first because it is cheap: the kernel formats a
// controller's /proc/PID/maps (111 lines for lli 22) in about 0.22 ms on
// the 2-core test VM, which was 0.28 ms of the executor's 0.70 ms from
// main to Setup under llvm-jitlink 22.
func ReleaseOfProcess(pid int) (int, string) {
	proc := "/proc/" + strconv.Itoa(pid)
	exe, exeErr := os.Readlink(proc + "/exe")
	if exeErr == nil {
		if r := releaseInInstallDir(exe); r > 0 {
			return r, fmt.Sprintf("path of pid %d (%s)", pid, exe)
		}
		if r := releaseInReleaseDir(exe); r > 0 {
			return r, fmt.Sprintf("path of pid %d (%s)", pid, exe)
		}
	}
	if f, err := os.Open(proc + "/maps"); err == nil {
		sc := bufio.NewScanner(f)
		for n := 0; sc.Scan() && n < maxMapsLines; n++ {
			line := sc.Bytes()
			if !bytes.Contains(line, []byte("libLLVM")) {
				continue
			}
			if r := releaseInLibName(line); r > 0 {
				f.Close()
				name := line[bytes.LastIndexByte(line, '/')+1:]
				return r, fmt.Sprintf("%s mapped by pid %d", name, pid)
			}
		}
		f.Close()
	}
	if exeErr != nil {
		return 0, ""
	}
	if r := releaseInNameSuffix(exe); r > 0 {
		return r, fmt.Sprintf("path of pid %d (%s)", pid, exe)
	}
	r, linksCL := scanExecutable(proc + "/exe")
	if r > 0 {
		return r, fmt.Sprintf("version text in pid %d's executable (%s)", pid, exe)
	}
	if linksCL && mayRunVersion(proc) {
		start := time.Now()
		// /proc/PID/exe is the controller's own file even if its path now
		// names another; argv[0] is the path, as the controller had it.
		if r, line := releaseByVersionRun(proc+"/exe", exe); r > 0 {
			return r, fmt.Sprintf("--version of pid %d's executable (%s), run in %v: %q", pid, exe, time.Since(start).Round(time.Millisecond), line)
		}
	}
	return 0, ""
}

// scanExecutable maps an executable and reads it with scanImage.
func scanExecutable(path string) (release int, linksCL bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() <= 0 || st.Size() > 1<<31 {
		return 0, false
	}
	img, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return 0, false
	}
	defer unix.Munmap(img)
	return scanImage(img)
}

// versionRunEnv is set in the environment of a --version run: an orcrt
// executor that the program starts all the same then runs none in turn.
const versionRunEnv = "ORCRT_VERSION_PROBE"

// versionRunTimeout bounds a --version run: the controller waits for
// Setup meanwhile. A static llvm-jitlink answers in milliseconds.
var versionRunTimeout = 2 * time.Second

// versionOutputMax caps what is read of a --version run: LLVM's text is
// its first lines.
const versionOutputMax = 16 << 10

// mayRunVersion reports whether the executable of the process at proc
// may be run: not from inside a --version run, and only a process of this
// effective user, whose programs it could run anyway (a served peer of
// another user must not choose what this process runs).
func mayRunVersion(proc string) bool {
	if os.Getenv(versionRunEnv) != "" {
		return false
	}
	fi, err := os.Stat(proc)
	if err != nil {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// releaseByVersionRun runs path --version (argv[0] argv0), with no shell,
// standard input /dev/null, its output capped at versionOutputMax and
// its process group killed at versionRunTimeout, and reads the release
// from what it printed.
func releaseByVersionRun(path, argv0 string) (int, string) {
	cmd := exec.Command(path, "--version")
	cmd.Args[0] = argv0
	cmd.Env = append(os.Environ(), versionRunEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 100 * time.Millisecond // a child of it may hold the pipe
	out := &cappedBuffer{max: versionOutputMax}
	cmd.Stdout, cmd.Stderr = out, out
	if cmd.Start() != nil {
		return 0, ""
	}
	// No context: the group kill by hand keeps context's timers out of
	// orcrt-executor's image (cmd/orcrt-executor's TestImageDiet).
	var mu sync.Mutex
	waited := false
	kill := time.AfterFunc(versionRunTimeout, func() {
		mu.Lock()
		defer mu.Unlock()
		if !waited {
			_ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
		}
	})
	err := cmd.Wait() // the text counts whatever the exit status
	mu.Lock()
	waited = true
	mu.Unlock()
	kill.Stop()
	if errors.Is(err, exec.ErrWaitDelay) {
		// It exited, leaving a child holding the output: the group lives on.
		_ = unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
	}
	return releaseInVersionOutput(out.b)
}

var errOutputCapped = errors.New("dialect: --version output over the cap")

// cappedBuffer keeps the first max bytes written; past them a write
// fails, which closes the pipe, so a program writing on gets EPIPE.
type cappedBuffer struct {
	b   []byte
	max int
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if room := c.max - len(c.b); len(p) > room {
		c.b = append(c.b, p[:room]...)
		return room, errOutputCapped
	}
	c.b = append(c.b, p...)
	return len(p), nil
}
