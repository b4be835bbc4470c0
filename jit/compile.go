//go:build linux && cgo

package jit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// Language is the source language of [JIT.AddSource].
type Language string

// The languages clang compiles for a JIT.
const (
	C   Language = "c"
	CXX Language = "c++"
)

// stdinName is what clang calls source read from its standard input; it
// is replaced by the module's name in diagnostics.
const stdinName = "<stdin>"

// baseFlags come before the caller's, which may override them: JITLink
// places code anywhere, so it must be position-independent.
var baseFlags = []string{"-c", "-fPIC", "-O2"}

// compile runs clang on src and returns the object it writes.
func compile(ctx context.Context, clang string, lang Language, name, src string, flags []string) ([]byte, error) {
	args := append(append(append([]string{}, baseFlags...), flags...), "-x", string(lang), "-o", "-", "-")
	cmd := exec.CommandContext(ctx, clang, args...)
	cmd.Stdin = strings.NewReader(src)
	var obj, diag bytes.Buffer
	cmd.Stdout, cmd.Stderr = &obj, &diag
	err := cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("jit: compiling %s: %w", name, ctx.Err())
	}
	if err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			return nil, fmt.Errorf("jit: compiling %s: %w", name, err)
		}
		out := strings.ReplaceAll(diag.String(), stdinName, name)
		return nil, &CompileError{Module: name, Tool: clang, Diagnostics: parseDiagnostics(out), Output: out}
	}
	return obj.Bytes(), nil
}

var diagLine = regexp.MustCompile(`^(.+?):(\d+):(\d+): (error|fatal error|warning|note): (.*)$`)

// parseDiagnostics reads the "file:line:col: severity: message" lines of
// clang's and LLVM's output; other lines (source, carets) are skipped.
func parseDiagnostics(out string) []Diagnostic {
	var ds []Diagnostic
	for line := range strings.Lines(out) {
		m := diagLine.FindStringSubmatch(strings.TrimRight(line, "\r\n"))
		if m == nil {
			continue
		}
		ln, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		ds = append(ds, Diagnostic{File: m[1], Line: ln, Column: col, Severity: m[4], Message: m[5]})
	}
	return ds
}

// irError returns the CompileError of IR the controller could not parse
// (LLVM's "name:line:col: error: ..." with the source line), or nil.
func irError(name string, kind uint8, err error) *CompileError {
	if kind != kindIR {
		return nil
	}
	msg := err.Error()
	ds := parseDiagnostics(msg)
	if len(ds) == 0 || ds[0].File != name {
		return nil
	}
	return &CompileError{Module: name, Tool: "llvm", Diagnostics: ds, Output: msg}
}
