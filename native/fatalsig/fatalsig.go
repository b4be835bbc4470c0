package fatalsig

/*
#cgo CFLAGS: -I${SRCDIR}/../jitsyms
#include "fatalsig.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync"
	"syscall"

	_ "github.com/orcgo/orcrt/native/jitsyms" // the C reader the handler names JIT'd code with
)

var (
	once       sync.Once
	installErr error
)

// Install completes the setup the constructor began: the fatal handler
// for SIGILL and SIGTRAP, and SIGABRT made default-fatal (also when sent
// by another process). It must run after the Go runtime started (any time
// in main) and is idempotent.
func Install() error {
	once.Do(func() {
		if C.orcrt_fatalsig_constructor_ran() == 0 {
			installErr = errors.New("fatalsig: the C constructor could not install the SIGSEGV/SIGBUS/SIGFPE handlers")
			return
		}
		for _, sig := range []syscall.Signal{syscall.SIGILL, syscall.SIGTRAP} {
			if C.orcrt_fatalsig_take(C.int(sig)) != 0 {
				installErr = fmt.Errorf("fatalsig: installing the %v handler failed", sig)
				return
			}
		}
		// The default action, not os/signal: signal.Notify starts a
		// thread of its own, 0.1 ms of the executor's start-up.
		if C.orcrt_fatalsig_default(C.int(syscall.SIGABRT)) != 0 {
			installErr = errors.New("fatalsig: restoring SIGABRT's default action failed")
		}
	})
	return installErr
}

// Exit ends the process as the stock executor's return from main does:
// libc exit(code), which runs the atexit handlers and flushes stdio. A
// handler that crashes because its JIT'd code was released kills the
// process by the signal, silently, as with the stock executor
// (docs/protocol.md §8.4). Deferred Go functions do not run.
func Exit(code int) {
	C.orcrt_fatalsig_exit(C.int(code))
	panic("unreachable")
}
