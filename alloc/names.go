package alloc

// Bootstrap symbol names of LLVM 22's SimpleExecutorMemoryManager
// (OrcRTBridge's rt::SimpleExecutorMemoryManager*Name, docs/protocol.md §3.2).
// They go into the Setup message verbatim (the bootstrap map is a string
// map, not a linker symbol table, so no platform prefix is added).
const (
	MemoryManagerInstanceName     = "__llvm_orc_SimpleExecutorMemoryManager_Instance"
	MemoryManagerReserveName      = "__llvm_orc_SimpleExecutorMemoryManager_reserve_wrapper"
	MemoryManagerInitializeName   = "__llvm_orc_SimpleExecutorMemoryManager_initialize_wrapper"
	MemoryManagerDeinitializeName = "__llvm_orc_SimpleExecutorMemoryManager_deinitialize_wrapper"
	MemoryManagerReleaseName      = "__llvm_orc_SimpleExecutorMemoryManager_release_wrapper"
	// LLVM 14-19's finalize and deallocate (MemoryFinalize dialects).
	MemoryManagerFinalizeName   = "__llvm_orc_SimpleExecutorMemoryManager_finalize_wrapper"
	MemoryManagerDeallocateName = "__llvm_orc_SimpleExecutorMemoryManager_deallocate_wrapper"
)

// orc-rt's SimpleNativeMemoryMap names (OrcRTBridge's
// orc_rt_SimpleNativeMemoryMapSPSSymbols, spelled so since llvm-project PR
// #195614), which LLVM 23's default memory manager looks up, all five
// (EPCGenericJITLinkMemoryManager::Create, PRs #188391 and #192665). The
// signatures are those of the names above (OrcRTBridge.h), so they are
// published as aliases of the same wrappers, as LLVM 23's own
// SimpleExecutorMemoryManager does.
const (
	NativeMemoryMapInstanceName             = "orc_rt_ci_SimpleNativeMemoryMap_Instance"
	NativeMemoryMapReserveName              = "orc_rt_ci_sps_SimpleNativeMemoryMap_reserve"
	NativeMemoryMapInitializeName           = "orc_rt_ci_sps_SimpleNativeMemoryMap_initialize"
	NativeMemoryMapDeinitializeMultipleName = "orc_rt_ci_sps_SimpleNativeMemoryMap_deinitializeMultiple"
	NativeMemoryMapReleaseMultipleName      = "orc_rt_ci_sps_SimpleNativeMemoryMap_releaseMultiple"
)

// Bootstrap symbol names of LLVM 22's ExecutorSharedMemoryMapperService
// (rt::ExecutorSharedMemoryMapperService*Name), used only by
// llvm-jitlink -use-memmgr=shared.
const (
	SharedMapperInstanceName     = "__llvm_orc_ExecutorSharedMemoryMapperService_Instance"
	SharedMapperReserveName      = "__llvm_orc_ExecutorSharedMemoryMapperService_Reserve"
	SharedMapperInitializeName   = "__llvm_orc_ExecutorSharedMemoryMapperService_Initialize"
	SharedMapperDeinitializeName = "__llvm_orc_ExecutorSharedMemoryMapperService_Deinitialize"
	SharedMapperReleaseName      = "__llvm_orc_ExecutorSharedMemoryMapperService_Release"
)

// LLVM 22's own messages. They travel to the controller verbatim, so they
// carry no package prefix.
const (
	// MsgDeserializeActionResult fails an allocation action whose result
	// is empty or is not an SPSError (WrapperFunctionCall::runWithSPSRet).
	MsgDeserializeActionResult = "Could not deserialize result from serialized wrapper function call"
	// MsgEmptyRequest and MsgActionsWithoutSegments are initialize's
	// errors for a request without segments.
	MsgEmptyRequest           = "Finalization request is empty"
	MsgActionsWithoutSegments = "Finalization actions attached to empty finalization request"
)
