package llvmtools

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how Missing ended it: Fatalf and
// Skip stop the caller, as testing.T's do (by a panic recover catches).
type recorder struct {
	testing.TB
	fatal, skip string
}

type stopped struct{}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	panic(stopped{})
}
func (r *recorder) Skip(args ...any) {
	r.skip = fmt.Sprint(args...)
	panic(stopped{})
}

func missing(r *recorder) {
	defer func() {
		if v := recover(); v != nil && v != (stopped{}) {
			panic(v)
		}
	}()
	Missing(r, "%s not found", "lli")
}

// TestMissing: a missing tool skips, and fails when RequireEnv is 1.
func TestMissing(t *testing.T) {
	for _, tc := range []struct {
		env         string
		fail, skips bool
	}{{"", false, true}, {"0", false, true}, {"1", true, false}} {
		t.Setenv(RequireEnv, tc.env)
		var r recorder
		missing(&r)
		if (r.fatal != "") != tc.fail || (r.skip != "") != tc.skips {
			t.Errorf("%s=%q: Fatalf %q, Skip %q", RequireEnv, tc.env, r.fatal, r.skip)
		}
		if msg := r.fatal + r.skip; !strings.Contains(msg, "lli not found") {
			t.Errorf("%s=%q: message %q does not say what is missing", RequireEnv, tc.env, msg)
		}
		if tc.fail && !strings.HasPrefix(r.fatal, RequireEnv+"=1 but ") {
			t.Errorf("failure %q does not name %s", r.fatal, RequireEnv)
		}
	}
}
