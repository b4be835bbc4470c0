// Package memfault is what the executor's memory accesses share for
// addresses the controller names: [Ptr] turns one into a pointer, [Run]
// runs an access under debug.SetPanicOnFault and reports the address a
// fault struck, and [Addr] tells such a fault, recovered, from any other
// panic. Pure Go; no state.
package memfault
