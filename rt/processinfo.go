package rt

import (
	"fmt"
	"os"
	"runtime"
)

// ProcessInfo describes the executor process: its LLVM target triple, its
// page size and its CPU features in LLVM subtarget-feature syntax
// ("+sse2,+avx2"). It is an immutable value, safe to copy and share.
type ProcessInfo struct {
	triple   string
	pageSize uint64
	features string
}

// NewProcessInfo returns a ProcessInfo with explicit values. The triple
// must be non-empty and the page size a power of two; features is kept
// verbatim.
func NewProcessInfo(triple string, pageSize uint64, features string) (ProcessInfo, error) {
	if triple == "" {
		return ProcessInfo{}, fmt.Errorf("rt: process info: empty target triple")
	}
	if pageSize == 0 || pageSize&(pageSize-1) != 0 {
		return ProcessInfo{}, fmt.Errorf("rt: process info: page size %d is not a power of two", pageSize)
	}
	return ProcessInfo{triple: triple, pageSize: pageSize, features: features}, nil
}

// DetectProcessInfo describes the running process: the triple LLVM's
// sys::getProcessTriple() gives for this GOOS/GOARCH (x86_64-pc-linux-gnu
// on linux/amd64, exactly as the stock llvm-jitlink-executor sends it;
// aarch64-unknown-linux-gnu on linux/arm64) and the OS page size. The CPU
// features are left empty, as the stock executor's Setup has them:
// package hostcpu detects them for hosts that send them (WithFeatures).
func DetectProcessInfo() (ProcessInfo, error) {
	triple, err := hostTriple(runtime.GOOS, runtime.GOARCH)
	if err != nil {
		return ProcessInfo{}, err
	}
	return NewProcessInfo(triple, uint64(os.Getpagesize()), "")
}

// WithFeatures returns p with the subtarget features replaced.
func (p ProcessInfo) WithFeatures(features string) ProcessInfo {
	p.features = features
	return p
}

// TargetTriple returns the LLVM target triple.
func (p ProcessInfo) TargetTriple() string { return p.triple }

// PageSize returns the page size in bytes (a power of two).
func (p ProcessInfo) PageSize() uint64 { return p.pageSize }

// CPUFeatures returns the subtarget features, "+a,+b" form.
func (p ProcessInfo) CPUFeatures() string { return p.features }

func hostTriple(goos, goarch string) (string, error) {
	switch goos + "/" + goarch {
	case "linux/amd64":
		return "x86_64-pc-linux-gnu", nil
	case "linux/arm64":
		return "aarch64-unknown-linux-gnu", nil
	case "darwin/arm64":
		return "arm64-apple-darwin", nil
	case "darwin/amd64":
		return "x86_64-apple-darwin", nil
	case "freebsd/amd64":
		return "x86_64-unknown-freebsd", nil
	case "freebsd/arm64":
		return "aarch64-unknown-freebsd", nil
	}
	return "", fmt.Errorf("rt: no LLVM target triple known for %s/%s", goos, goarch)
}
