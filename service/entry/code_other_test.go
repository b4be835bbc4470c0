//go:build cgo && !amd64 && !arm64

package entry_test

var retEmpty []byte
