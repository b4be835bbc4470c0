// Package memfault is what the executor's memory accesses share for
// addresses the controller names: [Ptr] turns one into a pointer, and
// [Addr] tells a memory fault recovered under debug.SetPanicOnFault from
// any other panic, with the address it struck. Pure Go; no state.
package memfault
