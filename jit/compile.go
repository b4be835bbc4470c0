//go:build linux && cgo

package jit

import (
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

// compileError returns the CompileError of source or IR the controller
// could not compile (clang's or LLVM's "name:line:col: error: ..." with
// the source line and a caret), or nil for another error.
func compileError(name, tool string, err error) *CompileError {
	msg := err.Error()
	ds := parseDiagnostics(msg)
	if len(ds) == 0 || ds[0].File != name {
		return nil
	}
	return &CompileError{Module: name, Tool: tool, Diagnostics: ds, Output: msg}
}
