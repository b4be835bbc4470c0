package hostcpu

import (
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/cpuid/v2"
	"github.com/stretchr/testify/assert"
)

func TestFeatureFormat(t *testing.T) {
	has := map[cpuid.FeatureID]bool{cpuid.SSE2: true, cpuid.AVX2: true, cpuid.AESNI: true, cpuid.AESARM: true}
	got := formatFeatures(func(id cpuid.FeatureID) bool { return has[id] })
	assert.Equal(t, "+sse2,+aes,+avx2", got, "LLVM names, each once, table order")
	assert.Equal(t, "", formatFeatures(func(cpuid.FeatureID) bool { return false }))
	f := Features()
	if runtime.GOARCH == "amd64" {
		assert.Contains(t, strings.Split(f, ","), "+sse2", "every amd64 CPU has SSE2")
	}
	for _, f := range strings.Split(f, ",") {
		assert.True(t, strings.HasPrefix(f, "+"), "feature %q", f)
	}
}
