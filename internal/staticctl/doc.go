// Package staticctl builds orcrt-static-controller for tests: a small
// llvm-jitlink (csrc/controller.cpp) linked statically against one LLVM
// release's libraries, as LLVM's default CMake build links its tools, so
// that it maps no libLLVM and its file does not hold LLVM's version text
// whole. build.sh links it (under 10 s here) once per release and source
// version into the user's cache directory; a missing llvm-N-dev skips
// the test, or fails it under ORCRT_REQUIRE_LLVM=1.
package staticctl
