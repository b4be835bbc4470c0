// Package hostcpu names the host CPU's features as LLVM subtarget
// features ("+sse2,+avx2"), for hosts that put them in their bootstrap
// values (rt.ProcessInfo.WithFeatures, rt.SubtargetFeaturesKey). It is a
// package of its own so that only programs that want the features pay
// for detecting them: klauspost/cpuid queries every CPUID leaf in its
// init, about 0.9 ms of hypervisor traps on a virtual machine, at every
// start of a process that links it. orcrt-executor does not link it: the
// stock executor sends no features. Safe for concurrent use.
package hostcpu
