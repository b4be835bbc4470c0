//go:build !amd64 && !arm64

package codemap_test

var retEmpty []byte // no machine code for this architecture: those tests skip
