//go:build linux && cgo

package jit_test

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/orcgo/orcrt/internal/jittest"
	"github.com/orcgo/orcrt/internal/llvmtools"
	"github.com/orcgo/orcrt/jit"
)

// The examples find the controller as a host does, through
// ORCRT_JIT_CONTROLLER. Every test closes its JIT: no goroutine of a
// controller or of its executor session may outlive it.
func TestMain(m *testing.M) {
	ctl, err := jittest.ControllerPath()
	if err != nil {
		if llvmtools.Required() && !errors.Is(err, jittest.ErrEmulated) {
			fmt.Fprintln(os.Stderr, "orcrt-jit-controller:", err)
			os.Exit(1)
		}
		fmt.Println("skipping package jit: orcrt-jit-controller:", err)
		os.Exit(0)
	}
	os.Setenv(jit.ControllerEnv, ctl)
	if c := os.Getenv(crashEnv); c != "" {
		crashHost(c) // a child of TestCrashReport
	}
	goleak.VerifyTestMain(m)
}
