//go:build linux && cgo

package jit_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test closes its JIT: no goroutine of a controller or of its
// executor session may outlive it.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
