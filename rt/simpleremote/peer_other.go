//go:build !linux

package simpleremote

import (
	"errors"
	"fmt"
	"net"
	"time"
)

// PeerPID knows no controller process off Linux.
func PeerPID(Conn) int { return 0 }

// WatchPeerClose watches nothing off Linux.
func WatchPeerClose(Conn, time.Duration, func()) (stop func()) { return func() {} }

// LoopbackPeerUID knows no socket owners off Linux.
func LoopbackPeerUID(*net.TCPAddr, *net.TCPAddr) (int, error) {
	return -1, fmt.Errorf("simpleremote: peer socket owner: %w", errors.ErrUnsupported)
}
