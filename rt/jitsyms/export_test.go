//go:build cgo

package jitsyms

// Find is the C reader (orcrt_jitsyms_find), for the tests.
var Find = find
