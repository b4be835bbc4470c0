//go:build !orcrt_cpuprofile

package cpuprofile

// Start is a no-op without -tags orcrt_cpuprofile (see cpuprofile.go;
// profiles/pgo.sh builds with it).
func Start() (stop func()) { return func() {} }
