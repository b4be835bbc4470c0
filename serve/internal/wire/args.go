//go:build cgo && linux

package wire

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The descriptors a worker inherits: the control socket, the session
// counter, and the listening sockets from ListenFD on.
const (
	CtlFD    = 3
	IDsFD    = 4
	ListenFD = 5
)

// Args is what the server tells a worker on its command line.
type Args struct {
	RlimitAS    uint64        // RLIMIT_AS in bytes (0: unlimited)
	RlimitCPU   time.Duration // RLIMIT_CPU (0: unlimited)
	IdleTimeout time.Duration // end a session without traffic this long (0: never)
	Listeners   int           // listening sockets inherited from ListenFD on

	AllowUIDs, AllowGIDs []int // the peer policy besides the serving uid
	AllowRemote          bool

	OutputDir string // each session's stdout and stderr go here (absolute)

	// The session's executor: DrainTimeout as executor.Options'
	// (0: its default, negative: for ever), MaxMessageSize (0: the
	// default) and LLVM, the dialect's release ("": chosen per
	// controller).
	DrainTimeout   time.Duration
	MaxMessageSize uint64
	LLVM           string
}

// CommandLine is a worker's arguments: WorkerArg, then a's flags.
func (a Args) CommandLine() []string {
	flags := [...]struct{ k, v string }{
		{"as", strconv.FormatUint(a.RlimitAS, 10)},
		{"cpu", a.RlimitCPU.String()},
		{"idle", a.IdleTimeout.String()},
		{"listeners", strconv.Itoa(a.Listeners)},
		{"allow-uid", joinIDs(a.AllowUIDs)},
		{"allow-gid", joinIDs(a.AllowGIDs)},
		{"allow-remote", strconv.FormatBool(a.AllowRemote)},
		{"output", a.OutputDir},
		{"drain", a.DrainTimeout.String()},
		{"max-message", strconv.FormatUint(a.MaxMessageSize, 10)},
		{"llvm", a.LLVM},
	}
	s := []string{WorkerArg}
	for _, f := range flags {
		if f.v != "" {
			s = append(s, "-"+f.k+"="+f.v)
		}
	}
	return s
}

// ParseArgs reads the flags CommandLine writes (those after WorkerArg).
func ParseArgs(args []string) (Args, error) {
	var a Args
	for _, arg := range args {
		k, v, _ := strings.Cut(strings.TrimPrefix(arg, "-"), "=")
		var err error
		switch k {
		case "as":
			a.RlimitAS, err = strconv.ParseUint(v, 10, 64)
		case "cpu":
			a.RlimitCPU, err = time.ParseDuration(v)
		case "idle":
			a.IdleTimeout, err = time.ParseDuration(v)
		case "listeners":
			a.Listeners, err = strconv.Atoi(v)
		case "allow-uid":
			a.AllowUIDs, err = splitIDs(v)
		case "allow-gid":
			a.AllowGIDs, err = splitIDs(v)
		case "allow-remote":
			a.AllowRemote, err = strconv.ParseBool(v)
		case "output":
			a.OutputDir = v
		case "drain":
			a.DrainTimeout, err = time.ParseDuration(v)
		case "max-message":
			a.MaxMessageSize, err = strconv.ParseUint(v, 10, 64)
		case "llvm":
			a.LLVM = v
		default:
			err = errors.New("unknown flag")
		}
		if err != nil {
			return a, fmt.Errorf("%s: %w", arg, err)
		}
	}
	return a, nil
}

// joinIDs is splitIDs' input for ids.
func joinIDs(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, ",")
}

// splitIDs parses a comma-separated list of numeric ids.
func splitIDs(list string) ([]int, error) {
	var ids []int
	for _, f := range strings.Split(list, ",") {
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, err
		}
		ids = append(ids, n)
	}
	return ids, nil
}
