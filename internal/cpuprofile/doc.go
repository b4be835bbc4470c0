// Package cpuprofile writes orcrt-executor's CPU profile for the PGO
// build (profiles/pgo.sh): built with -tags orcrt_cpuprofile only, so
// the default build links no runtime/pprof.
package cpuprofile
