//go:build linux && cgo

package jit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// Where the parts are found when Options leaves them empty.
const (
	// ControllerEnv names the controller program, before PATH is searched.
	ControllerEnv = "ORCRT_JIT_CONTROLLER"
	// ControllerName is the program searched for on PATH.
	ControllerName = "orcrt-jit-controller"
	// ORCRuntimeEnv names LLVM 22's ORC runtime archive, before
	// /usr/lib/llvm-22 is searched.
	ORCRuntimeEnv = "ORCRT_ORC_RUNTIME"
)

const installController = "build it with `make jit-controller` in the orcrt repository (needs apt-get install llvm-22-dev libclang-22-dev clang-22), then set Options.Controller or " + ControllerEnv + ", or put it on PATH"

// findController returns the controller program: opt, else ControllerEnv,
// else ControllerName on PATH.
func findController(opt string) (string, error) {
	for _, p := range []string{opt, os.Getenv(ControllerEnv)} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("jit: controller %s: %w; %s", p, err, installController)
		}
		return p, nil
	}
	p, err := exec.LookPath(ControllerName)
	if err != nil {
		return "", fmt.Errorf("jit: %s not found: %s", ControllerName, installController)
	}
	return p, nil
}

// findORCRuntime returns LLVM 22's ORC runtime for this architecture, or
// "" if it is not installed.
func findORCRuntime(opt string) (string, error) {
	for _, p := range []string{opt, os.Getenv(ORCRuntimeEnv)} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("jit: ORC runtime: %w", err)
		}
		return p, nil
	}
	arch := map[string]string{"amd64": "x86_64", "arm64": "aarch64"}[runtime.GOARCH]
	m, _ := filepath.Glob("/usr/lib/llvm-22/lib/clang/*/lib/linux/liborc_rt-" + arch + ".a")
	if len(m) == 0 {
		return "", nil
	}
	return m[len(m)-1], nil
}
