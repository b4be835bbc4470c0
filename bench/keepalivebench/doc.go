// Package keepalivebench measures the keepalive group of
// [github.com/orcgo/orcrt/rt/keepalive] against three references measured
// in the same run:
//
//   - impl=atomic-pair: one atomic add and one atomic subtract on a single
//     word — the floor for any counter with a shared word;
//   - impl=mutex-group: a faithful Go port of upstream orc-rt's TaskGroup
//     (one mutex, a closed flag, a count and a callback slice), the design
//     orcrt replaces;
//   - impl=sharded-floor: padded per-stripe counters with the same stripe
//     selection as orcrt but no close protocol — the floor for a striped
//     design.
//
// Each runs in mode=serial (one goroutine) and mode=parallel
// (b.RunParallel; run with -cpu=1,2). The package has no non-test code
// besides the references; it holds no goroutines and owns no memory that
// outlives a benchmark.
package keepalivebench
