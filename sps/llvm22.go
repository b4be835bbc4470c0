package sps

// The wire signatures of the functions LLVM 22 calls or expects
// (docs/protocol.md §4.3, §5), each named with its symbol and SPS
// signature as LLVM spells it, checked against LLVM 22's serializers
// (testdata/llvmgolden). Plain values, safe for concurrent use.

// Codecs for composite LLVM 22 types that appear in the signatures below.
var (
	// LookupResultCodec is
	// SPSSequence<SPSOptional<SPSExecutorSymbolDef>> (tpctypes::LookupResult).
	LookupResultCodec = Seq(Optional(SymbolDefCodec))
	// AddrSeqCodec is SPSSequence<SPSExecutorAddr>.
	AddrSeqCodec = Seq(AddrCodec)
	// StringSeqCodec is SPSSequence<SPSString>.
	StringSeqCodec = Seq(String)
	// AddrRangeSeqCodec is SPSSequence<SPSExecutorAddrRange>.
	AddrRangeSeqCodec = Seq(AddrRangeCodec)
	// BytesSeqCodec is SPSSequence<SPSSequence<uint8_t>> decoded as views.
	BytesSeqCodec = Seq(BytesView)
	// InitializerDepsCodec is
	// SPSSequence<SPSTuple<SPSExecutorAddr, SPSSequence<SPSExecutorAddr>>>:
	// DSO handle to the handles of its dependencies (ELFNixPlatform).
	InitializerDepsCodec = Seq(Tuple2(AddrCodec, AddrSeqCodec))
)

// SimpleExecutorMemoryManager (docs/protocol.md §5.1).
var (
	// MemoryManagerReserve is
	// __llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper:
	// SPSExpected<SPSExecutorAddr>(SPSExecutorAddr Instance, uint64_t Size).
	MemoryManagerReserve = Func2[Addr, uint64, Expected[Addr]]{
		Arg1: AddrCodec, Arg2: U64, Ret: ExpectedOf(AddrCodec)}

	// MemoryManagerInitialize is
	// __llvm_orc_SimpleExecutorMemoryManager_initialize_wrapper:
	// SPSExpected<SPSExecutorAddr>(SPSExecutorAddr Instance, SPSFinalizeRequest FR).
	MemoryManagerInitialize = Func2[Addr, FinalizeRequest, Expected[Addr]]{
		Arg1: AddrCodec, Arg2: FinalizeRequestCodec, Ret: ExpectedOf(AddrCodec)}

	// MemoryManagerDeinitialize is
	// __llvm_orc_SimpleExecutorMemoryManager_deinitialize_wrapper:
	// SPSError(SPSExecutorAddr Instance, SPSSequence<SPSExecutorAddr> InitKeys).
	MemoryManagerDeinitialize = Func2[Addr, []Addr, error]{
		Arg1: AddrCodec, Arg2: AddrSeqCodec, Ret: ErrorCodec}

	// MemoryManagerRelease is
	// __llvm_orc_SimpleExecutorMemoryManager_release_wrapper:
	// SPSError(SPSExecutorAddr Instance, SPSSequence<SPSExecutorAddr> Bases).
	MemoryManagerRelease = Func2[Addr, []Addr, error]{
		Arg1: AddrCodec, Arg2: AddrSeqCodec, Ret: ErrorCodec}
)

// SimpleExecutorDylibManager (docs/protocol.md §5.2).
var (
	// DylibManagerOpen is __llvm_orc_SimpleExecutorDylibManager_open_wrapper:
	// SPSExpected<SPSExecutorAddr>(SPSExecutorAddr Instance, SPSString Path, uint64_t Mode).
	DylibManagerOpen = Func3[Addr, string, uint64, Expected[Addr]]{
		Arg1: AddrCodec, Arg2: String, Arg3: U64, Ret: ExpectedOf(AddrCodec)}

	// DylibManagerResolve is
	// __llvm_orc_SimpleExecutorDylibManager_resolve_wrapper:
	// SPSExpected<SPSSequence<SPSOptional<SPSExecutorSymbolDef>>>(
	// SPSExecutorAddr Handle, SPSRemoteSymbolLookupSet Symbols).
	// The symbol names decode as views into the argument buffer.
	DylibManagerResolve = Func2[Addr, []LookupElement, Expected[[]Option[SymbolDef]]]{
		Arg1: AddrCodec, Arg2: LookupSetCodec, Ret: ExpectedOf(LookupResultCodec)}
)

// Memory access (__llvm_orc_bootstrap_mem_*, docs/protocol.md §5.3). The writes
// return SPSEmpty, a zero-length result.
var (
	// WriteUInt8s is __llvm_orc_bootstrap_mem_write_uint8s_wrapper:
	// void(SPSSequence<SPSMemoryAccessUInt8Write>).
	WriteUInt8s = Func1[[]UIntWrite[uint8], struct{}]{Arg1: Seq(UInt8WriteCodec), Ret: Empty}
	// WriteUInt16s is __llvm_orc_bootstrap_mem_write_uint16s_wrapper:
	// void(SPSSequence<SPSMemoryAccessUInt16Write>).
	WriteUInt16s = Func1[[]UIntWrite[uint16], struct{}]{Arg1: Seq(UInt16WriteCodec), Ret: Empty}
	// WriteUInt32s is __llvm_orc_bootstrap_mem_write_uint32s_wrapper:
	// void(SPSSequence<SPSMemoryAccessUInt32Write>).
	WriteUInt32s = Func1[[]UIntWrite[uint32], struct{}]{Arg1: Seq(UInt32WriteCodec), Ret: Empty}
	// WriteUInt64s is __llvm_orc_bootstrap_mem_write_uint64s_wrapper:
	// void(SPSSequence<SPSMemoryAccessUInt64Write>).
	WriteUInt64s = Func1[[]UIntWrite[uint64], struct{}]{Arg1: Seq(UInt64WriteCodec), Ret: Empty}
	// WritePointers is __llvm_orc_bootstrap_mem_write_pointers_wrapper:
	// void(SPSSequence<SPSMemoryAccessPointerWrite>).
	WritePointers = Func1[[]UIntWrite[Addr], struct{}]{Arg1: Seq(PointerWriteCodec), Ret: Empty}
	// WriteBuffers is __llvm_orc_bootstrap_mem_write_buffers_wrapper:
	// void(SPSSequence<SPSMemoryAccessBufferWrite>). Data decodes as views.
	WriteBuffers = Func1[[]BufferWrite, struct{}]{Arg1: Seq(BufferWriteCodec), Ret: Empty}

	// ReadUInt8s is __llvm_orc_bootstrap_mem_read_uint8s_wrapper:
	// SPSSequence<uint8_t>(SPSSequence<SPSExecutorAddr>).
	ReadUInt8s = Func1[[]Addr, []uint8]{Arg1: AddrSeqCodec, Ret: Seq(U8)}
	// ReadUInt16s is __llvm_orc_bootstrap_mem_read_uint16s_wrapper:
	// SPSSequence<uint16_t>(SPSSequence<SPSExecutorAddr>).
	ReadUInt16s = Func1[[]Addr, []uint16]{Arg1: AddrSeqCodec, Ret: Seq(U16)}
	// ReadUInt32s is __llvm_orc_bootstrap_mem_read_uint32s_wrapper:
	// SPSSequence<uint32_t>(SPSSequence<SPSExecutorAddr>).
	ReadUInt32s = Func1[[]Addr, []uint32]{Arg1: AddrSeqCodec, Ret: Seq(U32)}
	// ReadUInt64s is __llvm_orc_bootstrap_mem_read_uint64s_wrapper:
	// SPSSequence<uint64_t>(SPSSequence<SPSExecutorAddr>).
	ReadUInt64s = Func1[[]Addr, []uint64]{Arg1: AddrSeqCodec, Ret: Seq(U64)}
	// ReadPointers is __llvm_orc_bootstrap_mem_read_pointers_wrapper:
	// SPSSequence<SPSExecutorAddr>(SPSSequence<SPSExecutorAddr>).
	ReadPointers = Func1[[]Addr, []Addr]{Arg1: AddrSeqCodec, Ret: AddrSeqCodec}
	// ReadBuffers is __llvm_orc_bootstrap_mem_read_buffers_wrapper:
	// SPSSequence<SPSSequence<uint8_t>>(SPSSequence<SPSExecutorAddrRange>).
	// Decoded buffers are views.
	ReadBuffers = Func1[[]AddrRange, [][]byte]{Arg1: AddrRangeSeqCodec, Ret: BytesSeqCodec}
	// ReadStrings is __llvm_orc_bootstrap_mem_read_strings_wrapper:
	// SPSSequence<SPSString>(SPSSequence<SPSExecutorAddr>).
	ReadStrings = Func1[[]Addr, []string]{Arg1: AddrSeqCodec, Ret: StringSeqCodec}
)

// Running code (docs/protocol.md §5.4).
var (
	// RunAsMain is __llvm_orc_bootstrap_run_as_main_wrapper:
	// int64_t(SPSExecutorAddr MainAddr, SPSSequence<SPSString> Args).
	RunAsMain = Func2[Addr, []string, int64]{Arg1: AddrCodec, Arg2: StringSeqCodec, Ret: I64}
	// RunAsVoidFunction is __llvm_orc_bootstrap_run_as_void_function_wrapper:
	// int32_t(SPSExecutorAddr Fn).
	RunAsVoidFunction = Func1[Addr, int32]{Arg1: AddrCodec, Ret: I32}
	// RunAsIntFunction is __llvm_orc_bootstrap_run_as_int_function_wrapper:
	// int32_t(SPSExecutorAddr Fn, int32_t Arg).
	RunAsIntFunction = Func2[Addr, int32, int32]{Arg1: AddrCodec, Arg2: I32, Ret: I32}
)

// Allocation-action argument shapes (docs/protocol.md §5.5). Actions return an
// SPSError.
var (
	// RegisterEHFrameAction is llvm_orc_registerEHFrameAllocAction:
	// SPSError(SPSExecutorAddrRange EHFrame).
	RegisterEHFrameAction = Func1[AddrRange, error]{Arg1: AddrRangeCodec, Ret: ErrorCodec}
	// DeregisterEHFrameAction is llvm_orc_deregisterEHFrameAllocAction:
	// SPSError(SPSExecutorAddrRange EHFrame).
	DeregisterEHFrameAction = Func1[AddrRange, error]{Arg1: AddrRangeCodec, Ret: ErrorCodec}
	// RegisterJITLoaderGDBAction is llvm_orc_registerJITLoaderGDBAllocAction:
	// SPSError(SPSExecutorAddrRange DebugObj, bool AutoRegisterCode).
	RegisterJITLoaderGDBAction = Func2[AddrRange, bool, error]{
		Arg1: AddrRangeCodec, Arg2: Bool, Ret: ErrorCodec}
)

// ExecutorSharedMemoryMapperService (docs/protocol.md §5.6, -use-memmgr=shared).
var (
	// SharedMemoryReserve is __llvm_orc_ExecutorSharedMemoryMapperService_Reserve:
	// SPSExpected<SPSTuple<SPSExecutorAddr, SPSString>>(SPSExecutorAddr Instance, uint64_t Size).
	SharedMemoryReserve = Func2[Addr, uint64, Expected[Pair[Addr, string]]]{
		Arg1: AddrCodec, Arg2: U64, Ret: ExpectedOf(Tuple2(AddrCodec, String))}
	// SharedMemoryInitialize is
	// __llvm_orc_ExecutorSharedMemoryMapperService_Initialize:
	// SPSExpected<SPSExecutorAddr>(SPSExecutorAddr Instance,
	// SPSExecutorAddr Reservation, SPSSharedMemoryFinalizeRequest).
	SharedMemoryInitialize = Func3[Addr, Addr, SharedFinalizeRequest, Expected[Addr]]{
		Arg1: AddrCodec, Arg2: AddrCodec, Arg3: SharedFinalizeRequestCodec, Ret: ExpectedOf(AddrCodec)}
	// SharedMemoryDeinitialize is
	// __llvm_orc_ExecutorSharedMemoryMapperService_Deinitialize:
	// SPSError(SPSExecutorAddr Instance, SPSSequence<SPSExecutorAddr> Bases).
	SharedMemoryDeinitialize = Func2[Addr, []Addr, error]{
		Arg1: AddrCodec, Arg2: AddrSeqCodec, Ret: ErrorCodec}
	// SharedMemoryRelease is __llvm_orc_ExecutorSharedMemoryMapperService_Release:
	// SPSError(SPSExecutorAddr Instance, SPSSequence<SPSExecutorAddr> Bases).
	SharedMemoryRelease = Func2[Addr, []Addr, error]{
		Arg1: AddrCodec, Arg2: AddrSeqCodec, Ret: ErrorCodec}
)

// JIT-dispatch tags called by the ORC runtime through
// __llvm_orc_SimpleRemoteEPC_dispatch_fn (docs/protocol.md §4.3). The executor
// relays these bytes without decoding them; the signatures are here for
// tests, loopback controllers and diagnostics.
var (
	// ELFNixPushInitializers is __orc_rt_elfnix_push_initializers_tag:
	// SPSExpected<SPSSequence<SPSTuple<SPSExecutorAddr,
	// SPSSequence<SPSExecutorAddr>>>>(SPSExecutorAddr DSOHandle).
	ELFNixPushInitializers = Func1[Addr, Expected[[]Pair[Addr, []Addr]]]{
		Arg1: AddrCodec, Ret: ExpectedOf(InitializerDepsCodec)}
	// ELFNixSymbolLookup is __orc_rt_elfnix_symbol_lookup_tag:
	// SPSExpected<SPSExecutorAddr>(SPSExecutorAddr DSOHandle, SPSString Name).
	ELFNixSymbolLookup = Func2[Addr, string, Expected[Addr]]{
		Arg1: AddrCodec, Arg2: String, Ret: ExpectedOf(AddrCodec)}
	// LazyResolve is __orc_rt_resolve_tag (lazy reexports):
	// SPSExpected<SPSExecutorSymbolDef>(SPSExecutorAddr TrampolineAddr).
	LazyResolve = Func1[Addr, Expected[SymbolDef]]{Arg1: AddrCodec, Ret: ExpectedOf(SymbolDefCodec)}
)

// Session messages (docs/protocol.md §1, §3): the Setup payload is
// [SetupInfoCodec]; the Hangup payload is an SPSError ([ErrorCodec]).
