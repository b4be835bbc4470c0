package serve

import (
	"os/user"
	"strconv"
	"strings"
	"time"
)

// Config is what Run serves and how; orcrt-executor serve's flags and
// environment set it. Run reads no flags and no ORCRT_ variables itself.
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
	// SessionDrainTimeout, MaxMessageSize and LLVM set each session's
	// executor, as ORCRT_DRAIN_TIMEOUT, ORCRT_MAX_MESSAGE_SIZE and
	// ORCRT_LLVM set orcrt-executor's: how long it waits for calls still
	// running once its controller has gone (executor.Options.DrainTimeout:
	// 0 is executor.DefaultDrainTimeout, negative for ever), the largest
	// message it accepts (0: 1 GiB), and the LLVM release it speaks ("":
	// the controller's, recognised per session).
	SessionDrainTimeout time.Duration
	MaxMessageSize      uint64
	LLVM                string
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
	// worker.MaybeRunWorker first (the default: os.Executable()), or
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

// UserIDs parses a comma-separated list of uids or user names (serve
// -allow-uid) for Config.AllowUIDs.
func UserIDs(list string) ([]int, error) { return parseIDs(list, lookupUser) }

// GroupIDs parses a comma-separated list of gids or group names (serve
// -allow-gid) for Config.AllowGIDs.
func GroupIDs(list string) ([]int, error) { return parseIDs(list, lookupGroup) }

// parseIDs parses a comma-separated list of numeric ids or names (looked
// up with lookup: user or group).
func parseIDs(list string, lookup func(string) (int, error)) ([]int, error) {
	var ids []int
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if n, err := strconv.Atoi(f); err == nil && n >= 0 {
			ids = append(ids, n)
			continue
		}
		n, err := lookup(f)
		if err != nil {
			return nil, err
		}
		ids = append(ids, n)
	}
	return ids, nil
}

func lookupUser(name string) (int, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return -1, err
	}
	return strconv.Atoi(u.Uid)
}

func lookupGroup(name string) (int, error) {
	g, err := user.LookupGroup(name)
	if err != nil {
		return -1, err
	}
	return strconv.Atoi(g.Gid)
}

// ParseSize parses a size for Config.RlimitAS (serve -rlimit-as): "",
// a byte count, or one with a K, M, G or T suffix (powers of 1024).
func ParseSize(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	mult := uint64(1)
	if i := strings.IndexAny(s, "KkMmGgTt"); i >= 0 && i == len(s)-1 {
		mult = 1 << (10 * (1 + strings.IndexByte("KMGT", strings.ToUpper(s[i:])[0])))
		s = s[:i]
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, err
	}
	return n * mult, nil
}
