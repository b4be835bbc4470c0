package sps

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSetupLayouts: LLVM 14-16's Setup has no bootstrap map between the
// page size and the symbols (as recorded from llvm-jitlink-executor 14:
// triple, 0x1000, then the symbol count); 19's and 22's have one.
func TestSetupLayouts(t *testing.T) {
	info := SetupInfo{
		Triple:   "x86_64-pc-linux-gnu",
		PageSize: 4096,
		Values:   []BootstrapValue{{Name: "k", Value: []byte("v")}},
		Symbols:  []BootstrapSymbol{{Name: "s", Addr: 0x1122}},
	}
	head := "1300000000000000" + hex.EncodeToString([]byte(info.Triple)) + "0010000000000000"
	sym := "0100000000000000" + "0100000000000000" + "73" + "2211000000000000"
	noMap := Marshal(SetupInfoNoMapCodec, info)
	assert.Equal(t, head+sym, hex.EncodeToString(noMap), "14-16: the values are not sent")
	withMap := Marshal(SetupInfoCodec, info)
	assert.Equal(t, head+"0100000000000000"+"0100000000000000"+"6b"+"0100000000000000"+"76"+sym, hex.EncodeToString(withMap))

	got, err := Unmarshal(SetupInfoNoMapCodec, noMap)
	require.NoError(t, err)
	assert.Equal(t, info.Triple, got.Triple)
	assert.Nil(t, got.Values)
	assert.Equal(t, info.Symbols, got.Symbols)

	// Each layout misread as the other fails or reads nothing useful, as
	// the controllers do: why the dialect is chosen before Setup.
	if misread, err := Unmarshal(SetupInfoNoMapCodec, withMap); err == nil {
		assert.NotEqual(t, info.Symbols, misread.Symbols)
	}
	_, err = Unmarshal(SetupInfoCodec, noMap)
	assert.Error(t, err)
}
