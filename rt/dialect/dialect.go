package dialect

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/orcgo/orcrt/sps"
)

// Dialect is the wire contract of the LLVM releases that speak it, as far
// as it differs between releases.
type Dialect struct {
	// Name names the releases, as messages print it ("LLVM 14-16").
	Name string
	// Releases are the major versions measured to speak the dialect.
	Releases []int
	// SetupBootstrapMap: the Setup message carries the bootstrap map (a
	// sequence of named values) between the page size and the symbols.
	SetupBootstrapMap bool
	// Memory is the memory manager's protocol.
	Memory MemoryProtocol
	// Lookup is the dylib manager's symbol lookup.
	Lookup LookupProtocol
	// NativeMemoryMap: the memory manager is also published under orc-rt's
	// SimpleNativeMemoryMap names (orc_rt_ci_SimpleNativeMemoryMap_Instance,
	// orc_rt_ci_sps_SimpleNativeMemoryMap_*), which LLVM 23's default
	// memory manager looks up. Requires MemoryInitialize.
	NativeMemoryMap bool
	// NativeDylibManager: the dylib manager is also published under
	// orc-rt's NativeDylibManager names (orc_rt_ci_NativeDylibManager_Instance,
	// orc_rt_ci_sps_NativeDylibManager_{load,lookup}), as LLVM 23's executor
	// publishes them.
	NativeDylibManager bool
	// OrcRTNames: the names LLVM main's controller looks up are published
	// too: __orc_rt_jit_dispatch(_ctx) for the dispatch pair,
	// orc_rt_ci_sps_call_main for run_as_main and orc_rt_ci_sps_mem_* for
	// the memory access (read_buffers taking (address, size) pairs).
	OrcRTNames bool
	// GDBActionRangeOnly: GDBAllocAction takes the range alone, without
	// 22's bool (orc-rt's orc_rt_ci_aa_sps_GDBJITRegistrar_register).
	GDBActionRangeOnly bool
	// OrcRTAllocActions: an allocation action's empty result is success,
	// as orc-rt's AllocActionFn returns it (only an out-of-band error
	// fails one there); SPSError results keep their meaning.
	OrcRTAllocActions bool
	// Wire is how Results and Hangups travel.
	Wire WireProtocol
	// MemReads: the __llvm_orc_bootstrap_mem_read_* family and
	// mem_write_pointers exist.
	MemReads bool
	// EHFrameRegister and EHFrameDeregister name the EH-frame functions,
	// SPSError(SPSExecutorAddrRange), in the bootstrap symbols.
	EHFrameRegister, EHFrameDeregister string
	// GDBAllocAction names the JITLoaderGDB allocation action,
	// SPSError(SPSExecutorAddrRange, bool), in the bootstrap symbols; ""
	// if the release does not advertise one.
	GDBAllocAction string
	// ProcessSymbols are names the process handle of the dylib manager
	// resolves to orcrt's own functions, as the stock executor's
	// exported C symbols are found by dlsym.
	ProcessSymbols []ProcessSymbol
	Messages
}

// MemoryProtocol selects the memory manager's wrapper functions.
type MemoryProtocol uint8

const (
	// MemoryFinalize: reserve, finalize(FinalizeRequest) -> Error and
	// deallocate(bases) -> Error.
	MemoryFinalize MemoryProtocol = iota + 1
	// MemoryInitialize: reserve, initialize(FinalizeRequest) ->
	// Expected<Addr>, deinitialize(keys) and release(bases).
	MemoryInitialize
)

// LookupProtocol selects the dylib manager's lookup wrapper.
type LookupProtocol uint8

const (
	// LookupAddrs: lookup(Instance, Handle, LookupSet) ->
	// Expected<Sequence<Addr>>.
	LookupAddrs LookupProtocol = iota + 1
	// LookupSymbolDefs: lookup(Instance, Handle, LookupSet) ->
	// Expected<Sequence<ExecutorSymbolDef>>.
	LookupSymbolDefs
	// ResolveOptionalDefs: resolve(Handle, LookupSet) ->
	// Expected<Sequence<Optional<ExecutorSymbolDef>>>.
	ResolveOptionalDefs
	// ResolveEitherForm: resolve answers in the form its caller used:
	// LLVM 22's (ResolveOptionalDefs) or LLVM 23's (Instance, Handle,
	// LookupSet) -> Expected<Sequence<Optional<ExecutorAddr>>>, told apart
	// by the dylib manager's Instance value, which no handle equals.
	ResolveEitherForm
)

// WireProtocol is what a Result's tag and a Hangup's payload mean.
type WireProtocol struct {
	// ResultKinds: a Result's tag is its kind, 0 a value and 1 an
	// out-of-band error whose message is the payload, an SPSString (LLVM
	// main since llvm-project PRs #223378 and #223916). Without it the
	// tag is 0 and an out-of-band error is an empty payload.
	ResultKinds bool
	// HangupReasons: a Hangup carries an SPSError both ways, one holding
	// an error ends the session with it, and an end of input without a
	// Hangup is an error (LLVM main since #218586).
	HangupReasons bool
}

// Function names one of orcrt's functions a ProcessSymbol stands for.
type Function uint8

// Functions the process handle can resolve.
const (
	EHFrameRegisterWrapper   Function = iota + 1 // SPSError(SPSExecutorAddrRange)
	EHFrameDeregisterWrapper                     // SPSError(SPSExecutorAddrRange)
	// GDBRegisterWrapper is SPSError(SPSExecutorAddrRange) in 14-16 and
	// SPSError(SPSExecutorAddrRange, bool) in 19: one function reads both.
	GDBRegisterWrapper
)

// ProcessSymbol binds a name the process handle resolves to a Function.
type ProcessSymbol struct {
	Name string
	Fn   Function
}

// Messages are the error texts a controller of the release sees verbatim.
type Messages struct {
	// DeserializeArgs is a wrapper's out-of-band error for argument bytes
	// that do not decode.
	DeserializeArgs string
	// ReleaseUnknownBase formats (with %#x) the memory manager's error for
	// releasing (deallocating) a base it did not reserve.
	ReleaseUnknownBase string
}

var (
	messages14 = Messages{
		DeserializeArgs:    "Could not deserialize arguments for wrapper function call",
		ReleaseUnknownBase: "No allocation entry found for %#x",
	}
	messages22 = Messages{
		DeserializeArgs:    "Could not deserialize arguments for wrapper function call",
		ReleaseUnknownBase: "In release, %#x is not part of any reserved address range",
	}
)

// The EH-frame and JITLoaderGDB functions the stock executors of 14-19
// export as C symbols, which their controllers find by a process lookup.
var legacyProcessSymbols = []ProcessSymbol{
	{"llvm_orc_registerEHFrameSectionWrapper", EHFrameRegisterWrapper},
	{"llvm_orc_deregisterEHFrameSectionWrapper", EHFrameDeregisterWrapper},
	{"llvm_orc_registerJITLoaderGDBWrapper", GDBRegisterWrapper},
}

// The dialects, oldest first. docs/protocol.md §9 has the
// measurements behind each field.
var (
	LLVM14 = &Dialect{
		Name:              "LLVM 14-16",
		Releases:          []int{14, 15, 16},
		Memory:            MemoryFinalize,
		Lookup:            LookupAddrs,
		EHFrameRegister:   "__llvm_orc_bootstrap_register_ehframe_section_wrapper",
		EHFrameDeregister: "__llvm_orc_bootstrap_deregister_ehframe_section_wrapper",
		ProcessSymbols:    legacyProcessSymbols,
		Messages:          messages14,
	}
	LLVM19 = &Dialect{
		Name:              "LLVM 19",
		Releases:          []int{19},
		SetupBootstrapMap: true,
		Memory:            MemoryFinalize,
		Lookup:            LookupSymbolDefs,
		EHFrameRegister:   "llvm_orc_registerEHFrameSectionWrapper",
		EHFrameDeregister: "llvm_orc_deregisterEHFrameSectionWrapper",
		ProcessSymbols:    legacyProcessSymbols,
		Messages:          messages14,
	}
	LLVM22 = &Dialect{
		Name:              "LLVM 22",
		Releases:          []int{22},
		SetupBootstrapMap: true,
		Memory:            MemoryInitialize,
		Lookup:            ResolveOptionalDefs,
		MemReads:          true,
		EHFrameRegister:   "llvm_orc_registerEHFrameAllocAction",
		EHFrameDeregister: "llvm_orc_deregisterEHFrameAllocAction",
		GDBAllocAction:    "llvm_orc_registerJITLoaderGDBAllocAction",
		Messages:          messages22,
	}
	// LLVM23 is LLVM 22's dialect plus what LLVM 23's controllers need (the
	// SimpleNativeMemoryMap names, resolve's new form) and the
	// NativeDylibManager names LLVM 23's executor adds: a superset that a
	// 22 controller reads as 22 (docs/protocol.md §9.1).
	LLVM23 = &Dialect{
		Name:               "LLVM 23",
		Releases:           []int{23},
		SetupBootstrapMap:  true,
		Memory:             MemoryInitialize,
		Lookup:             ResolveEitherForm,
		NativeMemoryMap:    true,
		NativeDylibManager: true,
		MemReads:           true,
		EHFrameRegister:    "llvm_orc_registerEHFrameAllocAction",
		EHFrameDeregister:  "llvm_orc_deregisterEHFrameAllocAction",
		GDBAllocAction:     "llvm_orc_registerJITLoaderGDBAllocAction",
		Messages:           messages22,
	}
)

// LLVMMain is LLVM's main branch, the future 24, as of its sources of
// September 2026: LLVM 23's dialect plus the orc-rt names its controller
// looks up instead of the legacy ones, the result kind in a Result's tag
// and Hangups carrying an error.
var LLVMMain = &Dialect{
	Name:               "LLVM main (24)",
	Releases:           []int{24},
	SetupBootstrapMap:  true,
	Memory:             MemoryInitialize,
	Lookup:             ResolveEitherForm,
	NativeMemoryMap:    true,
	NativeDylibManager: true,
	OrcRTNames:         true,
	MemReads:           true,
	EHFrameRegister:    "llvm_orc_registerEHFrameAllocAction",
	EHFrameDeregister:  "llvm_orc_deregisterEHFrameAllocAction",
	GDBAllocAction:     "orc_rt_ci_aa_sps_GDBJITRegistrar_register",
	GDBActionRangeOnly: true,
	OrcRTAllocActions:  true,
	Wire:               WireProtocol{ResultKinds: true, HangupReasons: true},
	Messages:           messages22,
}

// All lists every dialect, oldest first.
var All = []*Dialect{LLVM14, LLVM19, LLVM22, LLVM23, LLVMMain}

// Latest is the dialect of the newest release proven against its own
// controller binaries: the default of a Session and of executor.New.
var Latest = LLVM22

// Unidentified is what Choose speaks when nothing identifies the
// controller: LLVM 23's dialect, which LLVM 22's and 23's controllers
// both read.
var Unidentified = LLVM23

// Newest is the dialect of the newest release orcrt knows, spoken to a
// controller of a newer release than any orcrt knows.
var Newest = LLVMMain

// mainSnapshot ends the evidence of a controller given LLVMMain: a main
// built later, or a later release, may differ from what orcrt read.
const mainSnapshot = "as main's sources stood in September 2026"

// SetupCodec is the layout of d's Setup message.
func (d *Dialect) SetupCodec() sps.Codec[sps.SetupInfo] {
	if d.SetupBootstrapMap {
		return sps.SetupInfoCodec
	}
	return sps.SetupInfoNoMapCodec
}

// Speaks reports whether release major speaks d.
func (d *Dialect) Speaks(major int) bool {
	for _, r := range d.Releases {
		if r == major {
			return true
		}
	}
	return false
}

// ForRelease returns the dialect LLVM release major speaks.
func ForRelease(major int) (*Dialect, error) {
	for _, d := range All {
		if d.Speaks(major) {
			return d, nil
		}
	}
	return nil, fmt.Errorf("dialect: LLVM %d is not supported (supported: %s)", major, Supported())
}

// Parse reads an LLVM release as ORCRT_LLVM gives it: a major version
// ("19"), optionally with minor and patch ("19.1.7").
func Parse(s string) (*Dialect, error) {
	n, err := parseMajor(s)
	if err != nil {
		return nil, err
	}
	return ForRelease(n)
}

func parseMajor(s string) (int, error) {
	major, _, _ := strings.Cut(strings.TrimSpace(s), ".")
	n, err := strconv.Atoi(major)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("dialect: %q is not an LLVM version (supported: %s)", s, Supported())
	}
	return n, nil
}

// Supported lists the supported releases, "14, 15, 16, 19, 22".
func Supported() string {
	var b strings.Builder
	for _, d := range All {
		for _, r := range d.Releases {
			if b.Len() > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(r))
		}
	}
	return b.String()
}

// Choose picks the dialect: ORCRT_LLVM's value if env is set, else the
// release of the controller process pid (0: unknown), else Unidentified.
func Choose(env string, pid int) (*Dialect, Evidence, error) {
	if env != "" {
		n, err := parseMajor(env)
		if err != nil {
			return nil, Evidence{}, err
		}
		d, err := ForRelease(n)
		if err != nil {
			return nil, Evidence{}, err
		}
		return d, Evidence{Release: n, How: "ORCRT_LLVM=" + env}, nil
	}
	if pid > 0 {
		if r, how := ReleaseOfProcess(pid); r > 0 {
			d, ev := ForIdentified(r, how)
			return d, ev, nil
		}
	}
	return Unidentified, Evidence{How: "default (controller not identified): " + Unidentified.Name + ", which LLVM 22's and 23's controllers both read"}, nil
}

// ForIdentified is the dialect for a controller identified (by how) as
// LLVM release r: r's own, else for a release newer than any orcrt knows
// the newest dialect, else (an unpackaged older one, such as 17) the
// Unidentified one. The evidence says which and why; Unspoken reports the
// last two cases.
func ForIdentified(r int, how string) (*Dialect, Evidence) {
	if d, err := ForRelease(r); err == nil {
		if d == LLVMMain {
			how += "; orcrt speaks " + d.Name + " " + mainSnapshot
		}
		return d, Evidence{Release: r, How: how}
	}
	if r > newestRelease() {
		return Newest, Evidence{Release: r, How: fmt.Sprintf("%s; LLVM %d is newer than any release orcrt knows and orcrt does not speak it yet, so it speaks %s, its newest dialect, %s", how, r, Newest.Name, mainSnapshot)}
	}
	return Unidentified, Evidence{Release: r, How: fmt.Sprintf("%s; orcrt does not speak LLVM %d (supported: %s), so it speaks %s", how, r, Supported(), Unidentified.Name)}
}

// Unspoken reports whether the controller's release was identified and
// is not one orcrt speaks.
func (ev Evidence) Unspoken() bool {
	if ev.Release == 0 {
		return false
	}
	_, err := ForRelease(ev.Release)
	return err != nil
}

// newestRelease is the newest release any dialect speaks.
func newestRelease() int {
	n := 0
	for _, d := range All {
		n = max(n, slices.Max(d.Releases))
	}
	return n
}
