// Package dialect is the table of what differs between the LLVM releases
// orcrt speaks to: one [Dialect] per release, holding the texts orcrt sends
// to that release's controller. Services implement behaviour once and read
// the wire-visible details from the Session's Dialect, which the executor
// chooses once, before Setup (docs/protocol.md §9). LLVM 23's and main's
// dialects come from LLVM's sources, not from binaries (§9.5): [Choose]
// gives a controller nothing identifies LLVM 23's ([Unidentified], which
// 22's controllers also read) and one of a release newer than any orcrt
// knows main's ([Newest]), with [Evidence] saying so. [ReleaseOfProcess]
// identifies a controller from /proc, cheapest evidence first (its
// directory, the libLLVM it maps, its name, its file), and runs its
// executable with --version only for a static LLVM tool that nothing
// else identified (README.md, "Which LLVM").
//
// Concurrency: Dialects are immutable values; share them freely.
package dialect
