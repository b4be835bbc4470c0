//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The suite runs for one target per process, chosen by ORCRT_E2E_TARGET:
//
//   - x86_64 (the default): objects for the host, the executors run
//     natively.
//   - aarch64: objects compiled with --target=aarch64-linux-gnu, the
//     executors are arm64 binaries run by QEMU user mode (qemu-aarch64)
//     from wrapper scripts given to llvm-jitlink as -oop-executor, with
//     ORCRT_E2E_ARM64_ROOT as their sysroot (Debian's arm64 libc,
//     libstdc++, ..., its arm64 llvm-jitlink-executor as the reference and
//     liborc_rt-aarch64.a; .ci/arm64-deps.sh builds it). The controller is
//     still the host's x86-64 llvm-jitlink, which learns the target from the
//     executor's Setup message. ORCRT_E2E_EXECUTOR, if set, is a prebuilt
//     arm64 orcrt-executor; otherwise the suite cross-builds one with
//     aarch64-linux-gnu-gcc.
//
// The test binary itself always runs on the host (amd64).
const (
	targetEnv  = "ORCRT_E2E_TARGET"
	arm64Root  = "ORCRT_E2E_ARM64_ROOT"
	qemuARM64  = "qemu-aarch64"
	arm64Cross = "aarch64-linux-gnu-gcc"
)

// targetName is "x86_64" or "aarch64".
var targetName = "x86_64"

// targetCFlags are added to every clang command that builds code for the
// executor (objects, archives' members, shared libraries).
var targetCFlags []string

// targetCase is what changes in a case on a target (e2eCase.onTarget).
type targetCase struct {
	want          expect
	stderrDiffers string // if set, replaces the case's
	teardownRace  bool   // if set, replaces the case's
}

// forTarget returns tc as it applies to the target being tested: the
// expectation written for the target replaces the default; both
// executors must still agree with each other.
func forTarget(tc e2eCase) e2eCase {
	if o, ok := tc.onTarget[targetName]; ok {
		tc.want = o.want
		if o.stderrDiffers != "" {
			tc.stderrDiffers = o.stderrDiffers
		}
		if o.teardownRace {
			tc.teardownRace = true
		}
	}
	return tc
}

// setupTarget reads ORCRT_E2E_TARGET and points the suite's tool paths at
// the target's. It runs before the tools are checked.
func setupTarget() error {
	switch t := os.Getenv(targetEnv); t {
	case "", "x86_64":
		return nil
	case "aarch64":
		root := os.Getenv(arm64Root)
		if root == "" {
			return fmt.Errorf("%s=aarch64 needs %s, the arm64 root made by .ci/arm64-deps.sh", targetEnv, arm64Root)
		}
		root, err := filepath.Abs(root)
		if err != nil {
			return err
		}
		targetName = t
		// Outline atomics call helpers that only the static libgcc has;
		// the executors resolve symbols in their own process.
		targetCFlags = []string{"--target=aarch64-linux-gnu", "-mno-outline-atomics"}
		stockExecutor = filepath.Join(root, "usr/lib/llvm-22/bin/llvm-jitlink-executor")
		orcRuntime = filepath.Join(root, "usr/lib/llvm-22/lib/clang/22/lib/linux/liborc_rt-aarch64.a")
		// The root's libstdc++ (the one both executors already have
		// loaded), through the libstdc++.so link .ci/arm64-deps.sh makes
		// where Debian's arm64 libstdc++-12-dev would.
		gccLibDir = filepath.Join(root, "usr/lib/gcc/aarch64-linux-gnu/12")
		emuRoot = root
		return nil
	default:
		return fmt.Errorf("%s=%q: want x86_64 or aarch64", targetEnv, t)
	}
}

// emuRoot is the arm64 root when the executors run under QEMU.
var emuRoot string

// targetTools lists what the target needs beyond the host's LLVM.
func targetTools() []string {
	if emuRoot == "" {
		return nil
	}
	return []string{qemuARM64, arm64Cross, filepath.Join(gccLibDir, "libstdc++.so")}
}

// targetBuildEnv is the environment for building orcrt-executor for the
// target (nil: this process's, for the host).
func targetBuildEnv() []string {
	if emuRoot == "" {
		return nil
	}
	return append(os.Environ(), "GOOS=linux", "GOARCH=arm64", "CGO_ENABLED=1", "CC="+arm64Cross)
}

// wrapExecutors replaces the two executors by QEMU wrapper scripts in dir
// when the target is emulated. QEMU's -0 gives the executor the script's
// path as argv[0], so everything it prints about itself reads as if the
// script were the executor (as llvm-jitlink sees it). Core dumps are off:
// a guest that dies by a signal would otherwise dump QEMU's whole address
// space.
func wrapExecutors(dir string) error {
	if emuRoot == "" {
		return nil
	}
	wrap := func(name, bin string) (string, error) {
		p := filepath.Join(dir, name)
		script := fmt.Sprintf("#!/bin/sh\nulimit -c 0\nexec %s -L %s -0 \"$0\" %s \"$@\"\n",
			qemuARM64, shellQuote(emuRoot), shellQuote(bin))
		return p, os.WriteFile(p, []byte(script), 0o755)
	}
	var err error
	if stockExecutor, err = wrap("llvm-jitlink-executor-aarch64", stockExecutor); err != nil {
		return err
	}
	orcrtExecutor, err = wrap("orcrt-executor-aarch64", orcrtExecutor)
	return err
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
