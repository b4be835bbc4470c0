package jit

import (
	"errors"
	"fmt"
	"strings"
)

var (
	// ErrControllerGone is wrapped by the error of every request made after
	// the controller process exited (see [ControllerExitError]). Code
	// loaded before keeps running; [JIT.Restart] starts a new controller.
	ErrControllerGone = errors.New("jit: the controller has exited")
	// ErrClosed is returned by requests made after [JIT.Close].
	ErrClosed = errors.New("jit: closed")
	// ErrRemoved is returned by requests on a removed [Module].
	ErrRemoved = errors.New("jit: the module has been removed")
)

// ControllerExitError says how the controller process ended and what it
// last wrote to its standard error. It wraps [ErrControllerGone].
type ControllerExitError struct {
	State  string // "signal: killed", "exit status 1", ...
	Stderr string // the end of its standard error output
}

func (e *ControllerExitError) Error() string {
	msg := "jit: the controller has exited (" + e.State + ")"
	if s := strings.TrimSpace(e.Stderr); s != "" {
		msg += ": " + s
	}
	return msg
}

func (e *ControllerExitError) Unwrap() error { return ErrControllerGone }

// Diagnostic is one message of a compiler: clang's or LLVM's IR parser's.
type Diagnostic struct {
	File         string
	Line, Column int
	Severity     string // "error", "fatal error", "warning", "note"
	Message      string
}

func (d Diagnostic) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", d.File, d.Line, d.Column, d.Severity, d.Message)
}

// CompileError is a module that did not compile: C or C++ that clang
// rejected, or LLVM IR the controller could not parse. Its Error text is
// the first error diagnostic. (Warnings of a module that compiles are not
// returned.)
type CompileError struct {
	Module      string
	Tool        string       // "clang" for C and C++, "llvm" for IR
	Diagnostics []Diagnostic // the "file:line:col: severity: message" lines, in order
	Output      string       // everything the tool printed, source lines and carets too
}

func (e *CompileError) Error() string {
	first := strings.TrimSpace(e.Output)
	for _, d := range e.Diagnostics {
		if strings.Contains(d.Severity, "error") {
			first = d.String()
			break
		}
	}
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	return fmt.Sprintf("jit: compiling %s: %s", e.Module, first)
}

// NotFoundError names the symbols a lookup did not find in a module.
type NotFoundError struct {
	Module string
	Names  []string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("jit: module %s defines no %s", e.Module, strings.Join(e.Names, ", "))
}

// LinkError is a module that compiled but did not link, because code in
// it uses symbols that nothing it sees defines: neither it, the modules
// it was linked to (JIT.LinkedTo), this process, Options.HostSymbols
// nor a library. Adding it fails as a whole: nothing of it stays, so
// there is nothing to remove.
type LinkError struct {
	Module  string
	Missing []string // the undefined symbols, as the linker spells them, in LLVM's order
	Err     error    // LLVM's report
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("jit: linking %s: undefined symbols: %s", e.Module, strings.Join(e.Missing, ", "))
}

func (e *LinkError) Unwrap() error { return e.Err }

// linkError returns the LinkError LLVM's report err describes ("Symbols
// not found: [ a, b ]"), or nil.
func linkError(module string, err error) *LinkError {
	const marker = "Symbols not found: ["
	msg := err.Error()
	i := strings.Index(msg, marker)
	if i < 0 {
		return nil
	}
	list, _, ok := strings.Cut(msg[i+len(marker):], "]")
	if !ok {
		return nil
	}
	le := &LinkError{Module: module, Err: err}
	for _, name := range strings.Split(list, ",") {
		if name = strings.TrimSpace(name); name != "" {
			le.Missing = append(le.Missing, name)
		}
	}
	return le
}

// InUseError is the error of Remove of a module that other modules
// link against (JIT.LinkedTo): remove them first.
type InUseError struct {
	Module string
	Users  []string // the loaded modules linked against it, by name
	Adding int      // adds in flight linking against it
}

func (e *InUseError) Error() string {
	who := strings.Join(e.Users, ", ")
	if e.Adding > 0 {
		if who != "" {
			who += " and "
		}
		who += fmt.Sprintf("%d module(s) being added", e.Adding)
	}
	return fmt.Sprintf("jit: module %s is linked against by %s: remove them first", e.Module, who)
}
