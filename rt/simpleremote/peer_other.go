//go:build !linux

package simpleremote

import "time"

// PeerPID knows no controller process off Linux.
func PeerPID(Conn) int { return 0 }

// WatchPeerClose watches nothing off Linux.
func WatchPeerClose(Conn, time.Duration, func()) (stop func()) { return func() {} }
