//go:build linux && cgo

package jit

import (
	"fmt"

	"github.com/orcgo/orcrt/native/faultreport"
	"github.com/orcgo/orcrt/native/jitsyms"
)

// crashPrefix starts the line a fault in JIT'd code prints.
const crashPrefix = "orcrt jit: "

// installCrashReport installs the crash report's signal handlers
// (native/faultreport), once per process, unless opts.NoCrashReport.
func installCrashReport(opts *Options) error {
	if opts.NoCrashReport {
		return nil
	}
	if err := faultreport.Install(crashPrefix); err != nil {
		return fmt.Errorf("jit: crash report: %w", err)
	}
	return nil
}

// registerCode names the module's functions, with its name, for the
// crash report (and jitsyms.EnableProfiling). The memory's deinitialize
// drops them (alloc.SharedMemoryMapper), before the range can hold other
// code.
func (m *Module) registerCode() {
	for i := range m.code {
		m.code[i].Module = m.name
	}
	jitsyms.AddAll(m.code)
}
