// Package cmem is libc memory and the empty cgo call, for tests and
// benchmarks: [Malloc], [MallocCopy] and [Free] make the buffers JIT'd
// code would hand over, [Bytes] views them, and [CallEmpty] is the floor
// of a Go→C call that native calls are measured against. It uses cgo and
// no package of the module; only tests import it.
package cmem
