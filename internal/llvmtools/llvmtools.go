// Package llvmtools says what a test does when an LLVM tool it drives
// (a release's llvm-jitlink, lli, clang-repl, stock executor or ORC
// runtime) is not installed: it skips, except under ORCRT_REQUIRE_LLVM=1
// (make test, CI), where .ci/deps.sh has installed them all and a missing
// one is a failure, so that a broken install never passes as a skip.
// Safe for concurrent use.
package llvmtools

import (
	"fmt"
	"os"
	"testing"
)

// RequireEnv is the variable that turns a missing tool into a failure.
const RequireEnv = "ORCRT_REQUIRE_LLVM"

// Required reports whether RequireEnv is "1".
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Missing ends t: a failure when Required, a skip otherwise; the message
// says what is missing.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("%s=1 but %s", RequireEnv, msg)
	}
	t.Skip(msg)
}
