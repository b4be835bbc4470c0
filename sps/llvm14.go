package sps

// Signatures of LLVM 14-19's bootstrap functions where they differ from
// LLVM 22's (docs/protocol.md §9).
var (
	// MemoryManagerFinalize is SimpleExecutorMemoryManager_finalize_wrapper:
	// SPSError(SPSExecutorAddr Instance, SPSFinalizeRequest).
	MemoryManagerFinalize = Func2[Addr, FinalizeRequest, error]{
		Arg1: AddrCodec, Arg2: FinalizeRequestCodec, Ret: ErrorCodec}
	// MemoryManagerDeallocate is SimpleExecutorMemoryManager_deallocate_wrapper:
	// SPSError(SPSExecutorAddr Instance, SPSSequence<SPSExecutorAddr> Bases).
	MemoryManagerDeallocate = Func2[Addr, []Addr, error]{
		Arg1: AddrCodec, Arg2: AddrSeqCodec, Ret: ErrorCodec}

	// DylibManagerLookupAddrs is LLVM 14-16's
	// SimpleExecutorDylibManager_lookup_wrapper:
	// SPSExpected<SPSSequence<SPSExecutorAddr>>(SPSExecutorAddr Instance,
	// SPSExecutorAddr Handle, SPSRemoteSymbolLookupSet).
	DylibManagerLookupAddrs = Func3[Addr, Addr, []LookupElement, Expected[[]Addr]]{
		Arg1: AddrCodec, Arg2: AddrCodec, Arg3: LookupSetCodec, Ret: ExpectedOf(AddrSeqCodec)}
	// DylibManagerLookupDefs is LLVM 19's lookup_wrapper:
	// SPSExpected<SPSSequence<SPSExecutorSymbolDef>>(SPSExecutorAddr
	// Instance, SPSExecutorAddr Handle, SPSRemoteSymbolLookupSet).
	DylibManagerLookupDefs = Func3[Addr, Addr, []LookupElement, Expected[[]SymbolDef]]{
		Arg1: AddrCodec, Arg2: AddrCodec, Arg3: LookupSetCodec, Ret: ExpectedOf(Seq(SymbolDefCodec))}
)
