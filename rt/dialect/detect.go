package dialect

import (
	"bytes"
	"strconv"
	"strings"
)

// Evidence says how a dialect was chosen, for logs and for the message a
// controller's early hang-up prints.
type Evidence struct {
	// Release is the controller's LLVM major version, 0 if unknown.
	Release int
	// How names the source ("ORCRT_LLVM", "libLLVM-14.so.1 mapped by
	// pid 123", "default").
	How string
}

// majorAfter parses the decimal number at the start of b.
func majorAfter(b []byte) int {
	n := 0
	for i, c := range b {
		if c < '0' || c > '9' || i > 3 {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// releaseInLibName finds the major version in a libLLVM file name:
// libLLVM-14.so.1, libLLVM-14.0.6.so.1, libLLVM.so.19.1, libLLVM.so.22.1git.
func releaseInLibName(name []byte) int {
	if i := bytes.LastIndex(name, []byte("libLLVM-")); i >= 0 {
		return majorAfter(name[i+len("libLLVM-"):])
	}
	if i := bytes.LastIndex(name, []byte("libLLVM.so.")); i >= 0 {
		return majorAfter(name[i+len("libLLVM.so."):])
	}
	return 0
}

// releaseInInstallDir finds the major version of an LLVM install
// directory in a path: /usr/lib/llvm-14/bin/llvm-jitlink.
func releaseInInstallDir(path string) int {
	for rest := []byte(path); ; {
		i := bytes.Index(rest, []byte("/llvm-"))
		if i < 0 {
			return 0
		}
		rest = rest[i+len("/llvm-"):]
		if n := majorAfter(rest); n > 0 {
			return n
		}
	}
}

// releaseDirPrefixes begin the directory names of LLVM's own releases:
// binary tarballs (LLVM-19.1.7-Linux-X64 since 19,
// clang+llvm-18.1.8-x86_64-linux-gnu-ubuntu-18.04 before), the source
// tarball (llvm-project-19.1.7.src) and GitHub's archive of a tag
// (llvm-project-llvmorg-19.1.7).
var releaseDirPrefixes = []string{"/LLVM-", "/clang+llvm-", "/llvm-project-llvmorg-", "/llvm-project-", "/llvmorg-"}

// releaseInReleaseDir finds the major version in the name of a directory
// of the path that names an LLVM release: a prefix above, then
// MAJOR.MINOR. The last element, the executable, does not count.
func releaseInReleaseDir(path string) int {
	dir := path[:strings.LastIndexByte(path, '/')+1]
	for _, p := range releaseDirPrefixes {
		for rest := dir; ; {
			i := strings.Index(rest, p)
			if i < 0 {
				break
			}
			rest = rest[i+len(p):]
			d := 0
			for d < len(rest) && d < 4 && rest[d] >= '0' && rest[d] <= '9' {
				d++
			}
			if d > 0 && d+1 < len(rest) && rest[d] == '.' && rest[d+1] >= '0' && rest[d+1] <= '9' {
				return majorAfter([]byte(rest))
			}
		}
	}
	return 0
}

// releaseInNameSuffix finds a version suffix of a file name, as Debian
// names its tools in /usr/bin: llvm-jitlink-19. Weaker evidence than an
// install directory: any program may end in -N.
func releaseInNameSuffix(path string) int {
	b := []byte(path)
	if i := bytes.LastIndexByte(b, '-'); i >= 0 && i+1 < len(b) {
		if n, err := strconv.Atoi(string(b[i+1:])); err == nil {
			return n
		}
	}
	return 0
}

// versionMarker precedes the version in LLVM's --version text, which
// every LLVM tool and libLLVM contain ("LLVM version 19.1.7").
var versionMarker = []byte("LLVM version ")

// versionOptionDesc returns the description of llvm::cl's --version
// option, which every program linking LLVM's libraries holds (14 to 22
// alike), static or not. It is made at run time: as one constant it would
// be in orcrt's own binaries, and in every Go controller linking them.
func versionOptionDesc() []byte {
	return []byte(strings.ReplaceAll("Display_the_version_of_this_program", "_", " "))
}

// scanImage reads an executable image in one pass over its "version "s:
// LLVM's version text gives the release; llvm::cl's --version option
// (versionOptionDesc) says that running the program with --version
// likely prints that text, which a static build stores in pieces.
func scanImage(img []byte) (release int, linksCL bool) {
	word := []byte("version ")
	desc := versionOptionDesc()
	markerAt, descAt := len(versionMarker)-len(word), bytes.Index(desc, word)
	for off := 0; ; {
		i := bytes.Index(img[off:], word)
		if i < 0 {
			return 0, linksCL
		}
		i += off
		off = i + len(word)
		if i >= markerAt && bytes.HasPrefix(img[i-markerAt:], versionMarker) {
			if n := majorAfter(img[off:]); n > 0 {
				return n, true
			}
		}
		if !linksCL && i >= descAt && bytes.HasPrefix(img[i-descAt:], desc) {
			linksCL = true
		}
	}
}

// releaseInVersionOutput reads what an LLVM tool's --version prints:
// "LLVM version 19.1.7" ("Debian LLVM version 22.1.8"); it returns the
// release and that line.
func releaseInVersionOutput(out []byte) (int, string) {
	for off := 0; ; {
		i := bytes.Index(out[off:], versionMarker)
		if i < 0 {
			return 0, ""
		}
		i += off
		off = i + len(versionMarker)
		if n := majorAfter(out[off:]); n > 0 {
			start := bytes.LastIndexByte(out[:i], '\n') + 1
			for start < i && (out[start] == ' ' || out[start] == '\t') {
				start++
			}
			end := off + bytes.IndexByte(out[off:], '\n')
			if end < off {
				end = len(out)
			}
			return n, string(out[start:end])
		}
	}
}
