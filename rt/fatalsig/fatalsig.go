package fatalsig

/*
#include "fatalsig.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

var (
	once       sync.Once
	installErr error
)

// Install completes the setup the constructor began: the fatal handler
// for SIGILL and SIGTRAP; and SIGABRT made default-fatal (Go's handler
// returns for a notified signal, so glibc's abort() goes on to raise it
// with the default action; a SIGABRT sent by another process is re-raised
// with the default action too). SIGPIPE needs nothing here: the
// constructor's handler, to which the Go runtime forwards SIGPIPEs raised
// in non-Go code, kills the process as a C program dies (JIT'd code
// writing to a broken stdout), while the executor's own writes to a
// controller that went away fail with EPIPE and end the session in order
// (the stock executor dies by SIGPIPE there, skipping its shutdown). It
// must run after the Go runtime started (any time in main). It is
// idempotent.
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
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGABRT)
		go func() {
			<-ch
			C.orcrt_fatalsig_die(C.int(syscall.SIGABRT))
		}()
	})
	return installErr
}

// Exit ends the process as a C program's return from main does, which is
// how the stock executor ends: libc exit(code) runs the atexit handlers
// (including C++ static destructors that JIT'd code registered with libc's
// __cxa_atexit), flushes stdio, and exits. If one of those handlers
// crashes — JIT'd code registered it, and its memory has been released
// since, as happens to the stock executor too (protocol.md §8) — the
// process dies by the signal silently, with the stock executor's wait
// status and no extra output. Deferred Go functions do not run. Exit
// does not return.
func Exit(code int) {
	C.orcrt_fatalsig_exit(C.int(code))
	panic("unreachable")
}
