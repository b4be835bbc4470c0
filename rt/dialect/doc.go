// Package dialect is the table of what differs between the LLVM releases
// orcrt speaks to: one [Dialect] per release, holding the texts orcrt sends
// to that release's controller. Services implement behaviour once and read
// the wire-visible details from the Session's Dialect, which the executor
// chooses once, before Setup (docs/protocol.md §9).
//
// Concurrency: Dialects are immutable values; share them freely.
package dialect
