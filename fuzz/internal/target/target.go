// Package target is what a fuzz target's body needs from the engine that
// runs it, so that one body serves two engines: go test's native fuzzing
// (the body gets the *testing.T of f.Fuzz) and libFuzzer (fuzz/internal/
// libfuzzer gives it a Failer, whose failures panic).
//
// A body is a func(T, []byte): it checks its invariants and reports a
// violation with T's Fatal, Fatalf or Errorf, as a test does. A body that
// bounds its heap allocation counts it with [HeapAllocs] or, one read an
// input, an [AllocMark].
package target

import (
	"fmt"
	"strings"
)

// T is the part of *testing.T a body uses.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

// Body is one fuzz target's body: the function f.Fuzz runs.
type Body func(t T, data []byte)

// Failure is the value a Failer panics with.
type Failure struct{ Msg string }

func (f Failure) Error() string { return "fuzz target failed: " + f.Msg }

// A Failer is a T outside go test: Fatal and Fatalf panic with a Failure;
// Errorf records the message and Done panics with all of them. Use one
// Failer per input. The zero value is ready to use; it is not safe for
// concurrent use (a body calls T from the goroutine that runs it).
type Failer struct{ errs []string }

// Run runs body on data with a fresh Failer and panics with a Failure if
// the body reported an error.
func Run(body Body, data []byte) {
	var f Failer
	body(&f, data)
	f.Done()
}

// Helper does nothing.
func (*Failer) Helper() {}

// Errorf records a failure; the body goes on.
func (f *Failer) Errorf(format string, args ...any) {
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

// Fatal panics with a Failure holding the earlier Errorf messages and this one.
func (f *Failer) Fatal(args ...any) { f.fail(fmt.Sprint(args...)) }

// Fatalf panics with a Failure holding the earlier Errorf messages and this one.
func (f *Failer) Fatalf(format string, args ...any) { f.fail(fmt.Sprintf(format, args...)) }

// Done panics with a Failure if Errorf was called.
func (f *Failer) Done() {
	if len(f.errs) > 0 {
		f.fail("")
	}
}

func (f *Failer) fail(msg string) {
	if msg != "" {
		f.errs = append(f.errs, msg)
	}
	panic(Failure{Msg: strings.Join(f.errs, "\n")})
}
