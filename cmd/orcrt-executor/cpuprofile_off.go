//go:build !orcrt_cpuprofile

package main

// startCPUProfile is a no-op without -tags orcrt_cpuprofile (see
// cpuprofile.go; profiles/pgo.sh builds with it).
func startCPUProfile() (stop func()) { return func() {} }
