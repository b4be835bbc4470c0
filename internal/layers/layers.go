package layers

// Rank gives each top-level folder its layer, bottom (0) to top. Folders
// of equal rank are one layer. README.md draws the same table.
var Rank = map[string]int{
	"internal": 0, // system calls and test plumbing
	"sps":      1, // the SPS codec, the out-of-band error
	"arch":     1, // page size, instruction-cache maintenance
	"slab":     2, // executable memory
	"native":   3, // cgo: native calls, code map, fatal signals, JIT'd names, host CPU
	"rt":       4, // Session, keepalive, wire protocol, dialects
	"service":  5, // bootstrap services other than memory
	"alloc":    6, // memory manager, allocation actions, shared memory
	"call":     7, // calling JIT'd code from Go: Func and its typed forms
	"executor": 8, // the composition root Go hosts use
	"jit":      9, // a Go host drives LLVM's ORC in a sidecar controller
	"serve":    9, // many controllers served by one process
	"cmd":      10,
	"examples": 10,
	"fuzz":     10,
	"bench":    10,
}

// InnerRank ranks the packages inside a top folder, bottom (0) to top,
// by import path below the module; every package of a folder listed here
// must have a rank. Inside the folder the top level's rule holds: a
// package imports only packages of its own inner rank or a lower one.
// README.md's table lists them in this order.
var InnerRank = map[string]map[string]int{
	"native": {
		"native":                   0, // calls into C, dlopen, malloc
		"native/jitsyms":           0, // JIT'd function names for the signal handlers
		"native/hostcpu":           0, // the host CPU's features, for tests
		"native/internal/crashers": 0, // native code that crashes, for the signal handlers' tests
		"native/codemap":           1, // is this address code? (calls through native)
		"native/fatalsig":          1, // fatal signals kill executables (names code with jitsyms)
		"native/faultreport":       1, // fatal signals in Go hosts: a line, then Go's crash (jitsyms)
	},
	"rt": {
		"rt/keepalive":             0, // the keepalive group
		"rt/dialect":               0, // what differs between LLVM releases
		"rt":                       1, // the Session core
		"rt/simpleremote":          2, // the wire protocol and transports
		"rt/simpleremote/wiretest": 2, // its test controller (simpleremote's tests use it)
		"rt/svctest":               3, // a Session on a loopback, for service tests
	},
	"serve": {
		"serve/internal/wire": 0, // the server-worker protocol: command line, descriptors, messages
		"serve/internal/peer": 0, // who the peer is, and the policy
		"serve/worker":        1, // the worker process: one session each
		"serve":               2, // the server: listeners, pool, drain, status
	},
}

// Allowed lists every package of the module a package's non-test code may
// import, where the layers allow more than its design does ("p/..." is p
// and the packages below it). jit reaches the executor through
// executor's port (Options.ControllerCalls, Wrappers, ServeFiles), never
// the Session or the wire beneath it.
var Allowed = map[string][]string{
	"jit": {"jit/...", "executor", "call", "sps", "native/faultreport", "native/jitsyms"},
}
