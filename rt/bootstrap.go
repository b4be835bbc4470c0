package rt

import (
	"bytes"
	"maps"
	"slices"

	"github.com/orcgo/orcrt/rt/dialect"
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

	setup setupCache
}

// setupCache is the last payload SetupPayload encoded and what it was
// encoded from.
type setupCache struct {
	payload []byte
	dialect *dialect.Dialect
	gen     uint64
	values  map[string][]byte // a deep copy
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
	syms := bi.Symbols.Symbols() // sorted
	out.Symbols = make([]sps.BootstrapSymbol, len(syms))
	for i, s := range syms {
		out.Symbols[i] = sps.BootstrapSymbol{Name: s.Name, Addr: s.Addr}
	}
	return out
}

// SetupPayload returns SetupInfo encoded as the Session's dialect sends
// it: the payload of the Setup message a ControllerAccess writes in
// Connect. The payload is kept and returned again while the dialect,
// Symbols and Values are unchanged, so a process that prepares a session
// before its controller connects (orcrt-executor serve's workers) can
// encode it ahead: the first encoding of a process costs tens of
// microseconds of first uses. The result must not be modified.
func (bi *BootstrapInfo) SetupPayload() []byte {
	d, gen, c := bi.session.Dialect(), bi.Symbols.generation(), &bi.setup
	if c.payload != nil && c.dialect == d && c.gen == gen && maps.EqualFunc(c.values, bi.Values, bytes.Equal) {
		return c.payload
	}
	info := bi.SetupInfo()
	codec := d.SetupCodec()
	values := make(map[string][]byte, len(bi.Values))
	for k, v := range bi.Values {
		values[k] = bytes.Clone(v)
	}
	*c = setupCache{payload: codec.Append(make([]byte, 0, codec.Size(info)), info), dialect: d, gen: gen, values: values}
	return c.payload
}
