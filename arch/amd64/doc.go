// Package amd64 holds the x86-64 side of orcrt's cache facade: the
// instruction-cache flush, a documented no-op because x86-64 keeps
// instruction fetch coherent with data stores, and the cache-line size
// from CPUID. RATIONALE.md ("W^X") explains why cross-modifying code needs
// nothing more here.
//
// Concurrency: all functions are safe for concurrent use.
package amd64
