//go:build cgo && linux

package main

// The executable needs the C++ runtime, the unwinder and libm (DT_NEEDED,
// before libc, in the stock executor's order), so the dynamic linker loads
// them before the Go runtime starts, while the controller waits for Setup
// anyway; executor.PrepareProcess then finds them loaded. Loaded after
// Setup instead, they delayed the controller's first calls by 1–3 ms: the
// load holds the dynamic linker's lock every dlopen/dlsym of the dylib
// manager needs, and competes with the controller for the CPU.
//
// The -l: names are the runtime libraries themselves (libstdc++6,
// libgcc-s1, always installed), so building needs no C++ development
// package.

// #cgo LDFLAGS: -Wl,--push-state,--no-as-needed -l:libstdc++.so.6 -l:libgcc_s.so.1 -lm -Wl,--pop-state
import "C"
