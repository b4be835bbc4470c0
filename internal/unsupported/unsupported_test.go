package unsupported

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
)

func TestError(t *testing.T) {
	err := fmt.Errorf("wrapped: %w", New("alloc", "shared memory"))
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Fatal("does not wrap errors.ErrUnsupported")
	}
	if want := "wrapped: alloc: shared memory: not supported on " + runtime.GOOS + "/" + runtime.GOARCH; err.Error() != want {
		t.Fatalf("got %q, want %q", err, want)
	}
}
