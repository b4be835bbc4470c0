package dialect

import (
	"bytes"
	"strconv"
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

// releaseInImage finds LLVM's version text in an executable image.
func releaseInImage(img []byte) int {
	for off := 0; ; {
		i := bytes.Index(img[off:], versionMarker)
		if i < 0 {
			return 0
		}
		off += i + len(versionMarker)
		if n := majorAfter(img[off:]); n > 0 {
			return n
		}
	}
}
