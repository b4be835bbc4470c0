//go:build cgo && linux

package serve_test

import (
	"context"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/orcgo/orcrt/serve"
	"github.com/orcgo/orcrt/serve/worker"
)

// The main of a program that serves LLVM ORC controllers (llvm-jitlink
// -oop-executor-connect=127.0.0.1:7000, say) beside its own work: it is
// its own worker binary, so MaybeRunWorker comes first, and it drains
// on SIGTERM through the context. TestRunServesJITLink runs this with an
// llvm-jitlink 22 client.
func Example() {
	worker.MaybeRunWorker(nil) // a worker serves its session here and exits

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	err := serve.Run(ctx, serve.Config{
		Addrs:        []string{"listen=127.0.0.1:7000", "unix=/run/user/1000/orcrt.sock"},
		Pool:         2,
		MaxSessions:  16,
		DrainTimeout: 30 * time.Second,
		StatusPath:   "/run/user/1000/orcrt-status.sock", // serve.ReadStatus reads it
		Logger:       slog.Default(),
	})
	if err != nil {
		log.Fatal(err)
	}
}
