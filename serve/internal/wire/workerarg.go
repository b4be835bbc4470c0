package wire

// WorkerArg, as a binary's first argument, makes it a serve worker; the
// worker's flags ([Args.CommandLine]) follow it.
const WorkerArg = "__orcrt-serve-worker"
