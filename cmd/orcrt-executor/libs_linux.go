//go:build cgo && linux

package main

// The C++ runtime, the unwinder and libm are DT_NEEDED, in the stock
// executor's order, so they are loaded before Go starts (RATIONALE.md,
// "Linking the C++ runtime"). The -l: names need no -dev package.

// #cgo LDFLAGS: -Wl,--push-state,--no-as-needed -l:libstdc++.so.6 -l:libgcc_s.so.1 -lm -Wl,--pop-state
import "C"
