package sps

import "fmt"

// AddrRange is SPSExecutorAddrRange: the half-open range [Start, End).
type AddrRange struct {
	Start, End Addr
}

// Size returns End-Start, or 0 for an inverted range.
func (r AddrRange) Size() uint64 {
	if r.End < r.Start {
		return 0
	}
	return uint64(r.End - r.Start)
}

// Empty reports whether the range holds no address.
func (r AddrRange) Empty() bool { return r.End <= r.Start }

// Contains reports whether a lies in [Start, End).
func (r AddrRange) Contains(a Addr) bool { return r.Start <= a && a < r.End }

// ContainsRange reports whether o lies entirely within r. An empty o is
// contained if its start lies within r or at its end.
func (r AddrRange) ContainsRange(o AddrRange) bool {
	return r.Start <= o.Start && o.End <= r.End && o.Start <= o.End
}

// Overlaps reports whether r and o share at least one address.
func (r AddrRange) Overlaps(o AddrRange) bool {
	return r.Start < o.End && o.Start < r.End
}

func (r AddrRange) String() string { return fmt.Sprintf("[%#x, %#x)", uint64(r.Start), uint64(r.End)) }

// JITSymbolFlags bits (the first byte of SPSJITSymbolFlags).
const (
	FlagHasError                       uint8 = 0x01
	FlagWeak                           uint8 = 0x02
	FlagCommon                         uint8 = 0x04
	FlagAbsolute                       uint8 = 0x08
	FlagExported                       uint8 = 0x10
	FlagCallable                       uint8 = 0x20
	FlagMaterializationSideEffectsOnly uint8 = 0x40
)

// SymbolFlags is SPSJITSymbolFlags: Tuple<u8 Flags, u8 TargetFlags>.
type SymbolFlags struct {
	Flags       uint8
	TargetFlags uint8
}

// SymbolDef is SPSExecutorSymbolDef: Tuple<Addr, SPSJITSymbolFlags>.
type SymbolDef struct {
	Addr  Addr
	Flags SymbolFlags
}

// LookupElement is SPSRemoteSymbolLookupSetElement: Tuple<SPSString, bool>.
// Name is a view into the decoded input.
type LookupElement struct {
	Name     []byte
	Required bool
}

// WrapperCall is SPSWrapperFunctionCall: Tuple<Addr Fn, SPSSequence<char>
// Args>. Fn == 0 means "no call". Args is a view into the decoded input.
type WrapperCall struct {
	Fn   Addr
	Args []byte
}

// IsNull reports whether the call is the null action.
func (c WrapperCall) IsNull() bool { return c.Fn == 0 }

// ActionPair is SPSAllocActionCallPair: a finalize action and the dealloc
// action that undoes it. Either half may be null.
type ActionPair struct {
	Finalize WrapperCall
	Dealloc  WrapperCall
}

// AllocGroup is SPSRemoteAllocGroup: one byte of protection and lifetime
// bits. Decoding keeps only the four defined bits, as LLVM does.
type AllocGroup uint8

// AllocGroup bits.
const (
	Read             AllocGroup = 0x01
	Write            AllocGroup = 0x02
	Exec             AllocGroup = 0x04
	FinalizeLifetime AllocGroup = 0x08
	allocGroupMask   AllocGroup = 0x0f
)

// Prot returns the protection bits (Read|Write|Exec) alone.
func (g AllocGroup) Prot() AllocGroup { return g & (Read | Write | Exec) }

func (g AllocGroup) String() string {
	b := []byte("---")
	if g&Read != 0 {
		b[0] = 'R'
	}
	if g&Write != 0 {
		b[1] = 'W'
	}
	if g&Exec != 0 {
		b[2] = 'X'
	}
	if g&FinalizeLifetime != 0 {
		return string(b) + "+finalize-lifetime"
	}
	return string(b)
}

// SegFinalizeRequest is SPSSegFinalizeRequest: Tuple<SPSRemoteAllocGroup,
// Addr, u64 Size, SPSSequence<char> Content>. Content is a view.
type SegFinalizeRequest struct {
	Group   AllocGroup
	Addr    Addr
	Size    uint64
	Content []byte
}

// FinalizeRequest is SPSFinalizeRequest: Tuple<Sequence<SegFinalizeRequest>,
// Sequence<AllocActionCallPair>>. Decode it with [FinalizeRequest.Decode] to
// reuse the slices across messages.
type FinalizeRequest struct {
	Segments []SegFinalizeRequest
	Actions  []ActionPair
}

// SharedSegFinalizeRequest is SPSSharedMemorySegFinalizeRequest:
// Tuple<SPSRemoteAllocGroup, Addr, u64 Size> (no content: the controller
// wrote it through the shared mapping).
type SharedSegFinalizeRequest struct {
	Group AllocGroup
	Addr  Addr
	Size  uint64
}

// SharedFinalizeRequest is SPSSharedMemoryFinalizeRequest.
type SharedFinalizeRequest struct {
	Segments []SharedSegFinalizeRequest
	Actions  []ActionPair
}

// UIntWrite is SPSMemoryAccessUIntWrite<T> (and, with T = Addr,
// SPSMemoryAccessPointerWrite): Tuple<Addr, T>.
type UIntWrite[T uint8 | uint16 | uint32 | uint64 | Addr] struct {
	Addr  Addr
	Value T
}

// BufferWrite is SPSMemoryAccessBufferWrite: Tuple<Addr, SPSSequence<char>>.
// Data is a view.
type BufferWrite struct {
	Addr Addr
	Data []byte
}

// BootstrapValue is one entry of the Setup message's bootstrap map.
type BootstrapValue struct {
	Name  string
	Value []byte
}

// BootstrapSymbol is one entry of the Setup message's bootstrap symbols.
type BootstrapSymbol struct {
	Name string
	Addr Addr
}

// SetupInfo is SPSSimpleRemoteEPCExecutorInfo, the payload of the Setup
// message: Tuple<SPSString Triple, u64 PageSize,
// Sequence<Tuple<SPSString, Sequence<char>>> BootstrapMap,
// Sequence<Tuple<SPSString, Addr>> BootstrapSymbols>.
type SetupInfo struct {
	Triple   string
	PageSize uint64
	Values   []BootstrapValue
	Symbols  []BootstrapSymbol
}
