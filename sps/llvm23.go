package sps

// Signatures LLVM 23 and main call where they differ from LLVM 22's
// (docs/protocol.md §9). LLVM 23 keeps every other signature of 22.
var (
	// AddrLookupResultCodec is SPSSequence<SPSOptional<SPSExecutorAddr>>,
	// LLVM 23's tpctypes::LookupResult (std::vector<std::optional<
	// ExecutorAddr>>, TargetProcessControlTypes.h).
	AddrLookupResultCodec = Seq(Optional(AddrCodec))

	// DylibManagerResolveAddrs is LLVM 23's
	// __llvm_orc_SimpleExecutorDylibManager_resolve_wrapper, and main's
	// orc_rt_ci_sps_NativeDylibManager_lookup:
	// SPSExpected<SPSSequence<SPSOptional<SPSExecutorAddr>>>(
	// SPSExecutorAddr Instance, SPSExecutorAddr Handle,
	// SPSRemoteSymbolLookupSet). LLVM 23's EPCGenericDylibManager.cpp calls
	// it with (SAs.Instance, H, Lookup) since llvm-project PR #201211 and
	// decodes the addresses since #201492; orc-rt's
	// NativeDylibManagerSPSCI.cpp declares lookup with this signature.
	DylibManagerResolveAddrs = Func3[Addr, Addr, []LookupElement, Expected[[]Option[Addr]]]{
		Arg1: AddrCodec, Arg2: AddrCodec, Arg3: LookupSetCodec, Ret: ExpectedOf(AddrLookupResultCodec)}

	// NativeDylibManagerLoad is orc_rt_ci_sps_NativeDylibManager_load:
	// SPSExpected<SPSExecutorAddr>(SPSExecutorAddr Instance, SPSString
	// Path) (orc-rt's NativeDylibManagerSPSCI.cpp; published by LLVM 23's
	// executor since PR #201744, the only dylib names main's controller
	// uses since #215441).
	NativeDylibManagerLoad = Func2[Addr, string, Expected[Addr]]{
		Arg1: AddrCodec, Arg2: String, Ret: ExpectedOf(AddrCodec)}
)
