package rt

import (
	"maps"
	"slices"
	"strings"

	"github.com/orcgo/orcrt/sps"
)

// Bootstrap names.
const (
	// SessionInstanceSymbol is bound by DefaultBootstrapInfo to the
	// Session's own instance address.
	SessionInstanceSymbol = "orc_rt_Session_Instance"
	// SubtargetFeaturesKey is the bootstrap value holding the executor's
	// CPU features string.
	SubtargetFeaturesKey = "orc-rt.Executor.SubtargetFeatures"
)

// BootstrapInfo is what a ControllerAccess sends the controller at
// connect time: the process description, initial symbols (name ->
// executor address) and named values. Symbols and Values may be changed
// until Attach; a ControllerAccess reads them in Connect. BootstrapInfo is
// not itself synchronised (Symbols is).
type BootstrapInfo struct {
	session *Session
	Symbols *SymbolTable
	Values  map[string][]byte
}

// NewBootstrapInfo returns bootstrap info for s with the given symbols and
// values (nil means empty; both are used, not copied).
func NewBootstrapInfo(s *Session, symbols *SymbolTable, values map[string][]byte) *BootstrapInfo {
	if symbols == nil {
		symbols = NewSymbolTable()
	}
	if values == nil {
		values = map[string][]byte{}
	}
	return &BootstrapInfo{session: s, Symbols: symbols, Values: values}
}

// DefaultBootstrapInfo returns bootstrap info holding
// CName(SessionInstanceSymbol) -> s.InstanceAddr() and
// SubtargetFeaturesKey -> the CPU features string, then lets addSymbols
// and addValues (either may be nil) add more. Their errors are returned
// as is.
func DefaultBootstrapInfo(s *Session, addSymbols func(*Session, *SymbolTable) error, addValues func(*Session, map[string][]byte) error) (*BootstrapInfo, error) {
	bi := NewBootstrapInfo(s, nil, nil)
	if err := bi.Symbols.Add(CName(SessionInstanceSymbol), s.InstanceAddr()); err != nil {
		return nil, err
	}
	if addSymbols != nil {
		if err := addSymbols(s, bi.Symbols); err != nil {
			return nil, err
		}
	}
	bi.Values[SubtargetFeaturesKey] = []byte(s.ProcessInfo().CPUFeatures())
	if addValues != nil {
		if err := addValues(s, bi.Values); err != nil {
			return nil, err
		}
	}
	return bi, nil
}

// Session returns the Session the info belongs to.
func (bi *BootstrapInfo) Session() *Session { return bi.session }

// ProcessInfo returns the Session's process info.
func (bi *BootstrapInfo) ProcessInfo() ProcessInfo { return bi.session.ProcessInfo() }

// SetupInfo returns the SimpleRemote Setup payload for bi: triple, page
// size, values and symbols, each sorted by name so the encoding is
// deterministic. Value slices alias bi.Values.
func (bi *BootstrapInfo) SetupInfo() sps.SetupInfo {
	pi := bi.ProcessInfo()
	out := sps.SetupInfo{Triple: pi.TargetTriple(), PageSize: pi.PageSize()}
	for _, k := range slices.Sorted(maps.Keys(bi.Values)) {
		out.Values = append(out.Values, sps.BootstrapValue{Name: k, Value: bi.Values[k]})
	}
	for _, s := range bi.Symbols.Symbols() {
		out.Symbols = append(out.Symbols, sps.BootstrapSymbol{Name: s.Name, Addr: s.Addr})
	}
	slices.SortFunc(out.Symbols, func(a, b sps.BootstrapSymbol) int { return strings.Compare(a.Name, b.Name) })
	return out
}
