package dialect

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// maxMapsLines bounds how much of /proc/PID/maps is read.
const maxMapsLines = 1 << 16

// ReleaseOfProcess identifies the LLVM release of the process pid: from
// an LLVM install directory in its executable's path (/usr/lib/llvm-N/bin,
// where Debian's tools live), from the libLLVM it maps (the shared builds
// of most distributions), from a version suffix of its executable's name
// (llvm-jitlink-19), or, for a static build, from the version text in its
// executable. It reads only /proc; a release of 0 means nothing
// identified it.
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
	if r := releaseInFile(proc + "/exe"); r > 0 {
		return r, fmt.Sprintf("version text in pid %d's executable (%s)", pid, exe)
	}
	return 0, ""
}

// releaseInFile maps an executable and looks for LLVM's version text.
func releaseInFile(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() <= 0 || st.Size() > 1<<31 {
		return 0
	}
	img, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return 0
	}
	defer unix.Munmap(img)
	return releaseInImage(img)
}
