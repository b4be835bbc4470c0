// Package jitsyms is the executor's map from JIT'd code addresses to
// function and module names, kept for code that must name JIT'd code
// without the controller: the fatal-signal reports (native/fatalsig,
// native/faultreport), whose line it writes (orcrt_jitsyms_describe), and
// anything else asking "which JIT'd function is at this address"
// ([Lookup]).
//
// Names come from what the executor is told: package jit's adds (each
// function with its module), perf support's code-load records
// (service/perfjit) and the function symbols of the debug objects
// registered for debuggers (service/gdbjit; code built with -g). A range
// the memory manager or mapper releases is dropped ([RemoveRange]), so a
// name never outlives its code. Code with no name is simply not found.
//
// The table is built in Go and published to C as an immutable sorted
// array; C readers (orcrt_jitsyms_find, async-signal-safe) never block
// and a publish waits for readers of the previous table before freeing
// it. Names live for the life of the process. Every function is safe for
// concurrent use.
package jitsyms
