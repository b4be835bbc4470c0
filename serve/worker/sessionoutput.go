//go:build cgo && linux

package worker

import (
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openOutputs makes dir/session-<id>.stdout and .stderr this process's
// stdout and stderr (serve -output).
func openOutputs(dir string, id uint64) error {
	for i, ext := range []string{"stdout", "stderr"} {
		fd, err := unix.Open(filepath.Join(dir, fmt.Sprintf("session-%d.%s", id, ext)), unix.O_WRONLY|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o600)
		if err != nil {
			return err
		}
		err = unix.Dup3(fd, i+1, 0)
		_ = unix.Close(fd)
		if err != nil {
			return err
		}
	}
	return nil
}
