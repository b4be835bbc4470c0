//go:build cgo && !linux

package main

import (
	"errors"
	"fmt"
	"os"
)

// serveAction: serve, status and the serve worker need Linux (workers
// accepting on inherited sockets with epoll, SCM_RIGHTS, SO_PEERCRED,
// sock_diag).
func serveAction(argv0 string, args []string, _ bool) (code int, done bool) {
	if len(args) == 0 || (args[0] != "serve" && args[0] != "status") {
		return 0, false
	}
	fmt.Fprintf(os.Stderr, "%s: %s: %v\n", argv0, args[0], fmt.Errorf("orcrt-executor serve needs Linux: %w", errors.ErrUnsupported))
	return 1, true
}
