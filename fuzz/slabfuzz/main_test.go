package slabfuzz

import (
	"testing"

	"github.com/orcgo/orcrt/internal/fuzzmin"
)

func TestMain(m *testing.M) { fuzzmin.Main(m) }
