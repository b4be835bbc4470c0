package sps_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/orcgo/orcrt/sps"
)

// TestOutOfBandError: the texts are protocol text and callers' text,
// byte for byte; errors.Is recognises the two transport failures through
// wrapping.
func TestOutOfBandError(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{sps.ErrDisconnected, "rt: disconnected"},
		{sps.ErrNoController, "rt: no controller attached"},
		{&sps.OutOfBandError{Msg: sps.MsgDisconnected}, "disconnected"},
		{&sps.OutOfBandError{Msg: sps.MsgNoController}, "no controller attached"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
	disc := fmt.Errorf("call: %w", &sps.OutOfBandError{Msg: "disconnected"})
	if !errors.Is(disc, sps.ErrDisconnected) || errors.Is(disc, sps.ErrNoController) {
		t.Error("a wrapped disconnect is ErrDisconnected and only that")
	}
	if errors.Is(&sps.OutOfBandError{Msg: "other"}, sps.ErrDisconnected) {
		t.Error("another message is not ErrDisconnected")
	}
}
