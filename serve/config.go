package serve

import "time"

// Config is what Run serves and how; orcrt-executor serve's flags set it.
type Config struct {
	// Addrs are the listening addresses: unix=<path>, listen=<host>:<port>
	// (or tcp:listen=), and systemd, the sockets systemd passes.
	Addrs []string
	// Pool is how many idle workers are kept ready (orcrt-executor's
	// default is 2; 0: each connection waits for a worker to start).
	Pool int
	// MaxSessions bounds the sessions at once; more are refused. At
	// least 1.
	MaxSessions int
	// AllowUIDs and AllowGIDs are accepted besides the serving uid
	// (groups count on Unix sockets only); AllowRemote accepts TCP peers
	// on other hosts.
	AllowUIDs, AllowGIDs []int
	AllowRemote          bool
	// RlimitAS (bytes) and RlimitCPU limit each session's worker;
	// IdleTimeout ends a session whose controller sent nothing for that
	// long while no call runs. Zero: no limit.
	RlimitAS    uint64
	RlimitCPU   time.Duration
	IdleTimeout time.Duration
	// DrainTimeout is how long sessions may go on once draining begins
	// before their process groups are killed.
	DrainTimeout time.Duration
	// StatusPath, if set, is a Unix socket (mode 0600) that ReadStatus
	// reads, for the serving user and root.
	StatusPath string
	// OutputDir, if set, receives each session's stdout and stderr as
	// session-<id>.stdout and .stderr.
	OutputDir string
	// Logger gets the server's log: one Info line per session, refusals
	// as Warn, workers' start and hand-over as Debug. nil: no log.
	Logger Logger
	// WorkerPath is the binary a worker runs: one whose main calls
	// MaybeRunWorker first (the default: os.Executable()), or
	// orcrt-executor.
	WorkerPath string
	// Signals makes SIGTERM and SIGINT drain as ctx's end does, and
	// SIGUSR1 log the status, as orcrt-executor serve does.
	Signals bool
}

// Logger is the server's log, in log/slog's manner: msg, then key-value
// pairs. *slog.Logger is one.
type Logger interface {
	Debug(msg string, args ...any)
	Info(msg string, args ...any)
	Warn(msg string, args ...any)
	Error(msg string, args ...any)
}

// WorkerArg, as a binary's first argument, makes it a serve worker
// (MaybeRunWorker, RunWorker).
const WorkerArg = "__orcrt-serve-worker"
