//go:build cgo

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/orcgo/orcrt/executor"
	"github.com/orcgo/orcrt/serve"
	"github.com/orcgo/orcrt/serve/worker"
)

const serveUsage = `Usage:
  orcrt-executor serve [flags] <addr>...
  orcrt-executor status <status-socket>

<addr> is unix=<path>, listen=<host>:<port> (tcp:listen= too) or
systemd (the sockets systemd passes, LISTEN_FDS; also the default when
no address is given and LISTEN_FDS is set).

Flags:
`

// parseServe parses serve's arguments, and the environment for its
// sessions' executors; verbose is its -v.
func parseServe(args []string, stderr io.Writer) (cfg serve.Config, verbose bool, err error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		io.WriteString(stderr, serveUsage)
		fs.PrintDefaults()
	}
	fs.IntVar(&cfg.Pool, "pool", 2, "idle worker processes kept ready")
	fs.IntVar(&cfg.MaxSessions, "max-sessions", 64, "sessions at once; more connections are refused")
	uids := fs.String("allow-uid", "", "also accept these users (comma-separated uids or names)")
	gids := fs.String("allow-gid", "", "also accept members of these groups (Unix sockets; gids or names)")
	fs.BoolVar(&cfg.AllowRemote, "allow-remote", false, "accept TCP peers on other hosts (anyone who can reach the port runs code as this user)")
	as := fs.String("rlimit-as", "", "address-space limit per session (RLIMIT_AS; bytes, or with K, M, G)")
	fs.DurationVar(&cfg.RlimitCPU, "rlimit-cpu", 0, "CPU-time limit per session (RLIMIT_CPU, whole seconds)")
	fs.DurationVar(&cfg.IdleTimeout, "idle-timeout", 0, "end a session whose controller sent nothing for this long while no call runs")
	fs.DurationVar(&cfg.DrainTimeout, "drain-timeout", 30*time.Second, "on SIGTERM or SIGINT, how long sessions may go on before they are killed")
	fs.StringVar(&cfg.StatusPath, "status", "", "Unix socket at `PATH` (mode 0600) that 'orcrt-executor status PATH' reads")
	fs.StringVar(&cfg.OutputDir, "output", "", "write each session's stdout and stderr to `DIR`/session-<id>.{stdout,stderr} (default: the server's own)")
	fs.BoolVar(&verbose, "v", false, "log workers' start and hand-over too")
	if err := fs.Parse(args); err != nil {
		return cfg, verbose, err
	}
	cfg.Addrs = fs.Args()
	if len(cfg.Addrs) == 0 && os.Getenv("LISTEN_FDS") != "" {
		cfg.Addrs = []string{"systemd"}
	}
	if len(cfg.Addrs) == 0 {
		return cfg, verbose, errors.New("serve: no address (unix=<path>, listen=<host>:<port> or systemd)")
	}
	if cfg.Pool < 0 || cfg.MaxSessions < 1 {
		return cfg, verbose, errors.New("serve: -pool must be at least 0 and -max-sessions at least 1")
	}
	if cfg.AllowUIDs, err = serve.UserIDs(*uids); err != nil {
		return cfg, verbose, fmt.Errorf("serve: -allow-uid: %w", err)
	}
	if cfg.AllowGIDs, err = serve.GroupIDs(*gids); err != nil {
		return cfg, verbose, fmt.Errorf("serve: -allow-gid: %w", err)
	}
	if cfg.RlimitAS, err = serve.ParseSize(*as); err != nil {
		return cfg, verbose, fmt.Errorf("serve: -rlimit-as: %w", err)
	}
	env := readSessionEnv()
	cfg.SessionDrainTimeout, cfg.MaxMessageSize, cfg.LLVM = env.drainTimeout, env.maxMessageSize, env.llvm
	return cfg, verbose, nil
}

// serveAction runs the serve and status commands and the serve worker
// (done is false for anything else).
func serveAction(argv0 string, args []string, verbose bool) (code int, done bool) {
	if len(args) == 0 {
		return 0, false
	}
	if runtime.GOOS != "linux" && (args[0] == "serve" || args[0] == "status") {
		// Workers use epoll, SCM_RIGHTS, SO_PEERCRED and sock_diag.
		fmt.Fprintf(os.Stderr, "%s: %s: %v\n", argv0, args[0], fmt.Errorf("orcrt-executor serve needs Linux: %w", errors.ErrUnsupported))
		return 1, true
	}
	switch args[0] {
	case worker.WorkerArg:
		var trace executor.Logger
		if os.Getenv("ORCRT_LOG") == "debug" {
			trace = newTextLogger(os.Stderr, levelDebug)
		}
		return worker.RunWorker(argv0, args[1:], trace), true
	case "status":
		if len(args) != 2 {
			fmt.Fprintf(os.Stderr, "%s: usage: orcrt-executor status <status-socket>\n", argv0)
			return 2, true
		}
		if err := serve.ReadStatus(os.Stdout, args[1]); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, err)
			return 1, true
		}
		return 0, true
	case "serve":
		cfg, v, err := parseServe(args[1:], os.Stderr)
		if errors.Is(err, flag.ErrHelp) {
			return 0, true
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, err)
			return 2, true
		}
		level := levelInfo
		if v || verbose {
			level = levelDebug
		}
		cfg.Logger, cfg.Signals = newTextLogger(os.Stderr, level), true
		if err := serve.Run(context.Background(), cfg); err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", argv0, err)
			return 1, true
		}
		return 0, true
	}
	return 0, false
}
