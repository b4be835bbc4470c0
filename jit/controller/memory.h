// JIT memory for orcrt-jit-controller: slabs of shared memory reserved
// ahead in the Go process, with each module's initialize calls carried in
// its add's reply instead of one round trip each.
#ifndef ORCRT_JIT_CONTROLLER_MEMORY_H
#define ORCRT_JIT_CONTROLLER_MEMORY_H

#include "llvm/ExecutionEngine/JITLink/JITLinkMemoryManager.h"
#include "llvm/ExecutionEngine/Orc/ExecutorProcessControl.h"
#include "llvm/ExecutionEngine/Orc/MemoryMapper.h"

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace orcrt {

// An executor call held back: the Go side runs it before it returns the
// add, and checks that it answers Key.
struct DeferredCall {
  llvm::orc::ExecutorAddr Fn;
  std::vector<char> Args;
  llvm::orc::ExecutorAddr Key;
};

// SharedSlabMapper maps slabs reserved in the executor through the Go
// process's shared-memory mapper service (LLVM 22's
// ExecutorSharedMemoryMapperService wire): JITLink writes content straight
// into the slab, and only protections and actions cross the pipe. One
// slab is kept reserved ahead of need. When deferring, an initialize is
// recorded against the module being linked and answered at once; the
// module's add request hands the records to the Go side (takeDeferred) or
// runs them for real (flushDeferred).
class SharedSlabMapper final : public llvm::orc::MemoryMapper {
public:
  struct SymbolAddrs {
    llvm::orc::ExecutorAddr Instance, Reserve, Initialize, Deinitialize,
        Release;
  };

  static llvm::Expected<std::unique_ptr<SharedSlabMapper>>
  Create(llvm::orc::ExecutorProcessControl &EPC, bool Defer);
  ~SharedSlabMapper() override;

  unsigned int getPageSize() override { return PageSize; }
  void reserve(size_t NumBytes, OnReservedFunction OnReserved) override;
  char *prepare(llvm::jitlink::LinkGraph &G, llvm::orc::ExecutorAddr Addr,
                size_t ContentSize) override;
  void initialize(AllocInfo &AI, OnInitializedFunction OnInitialized) override;
  void deinitialize(llvm::ArrayRef<llvm::orc::ExecutorAddr> Allocations,
                    OnDeinitializedFunction OnDeinitialized) override;
  void release(llvm::ArrayRef<llvm::orc::ExecutorAddr> Bases,
               OnReleasedFunction OnReleased) override;

  // reserveAhead reserves a slab of NumBytes for the next reserve of that
  // size.
  llvm::Error reserveAhead(size_t NumBytes);

  // contains reports whether A lies in one of the slabs: JIT'd memory.
  bool contains(llvm::orc::ExecutorAddr A);

  std::vector<DeferredCall> takeDeferred(const llvm::jitlink::JITLinkDylib *JD);
  llvm::Error flushDeferred(const llvm::jitlink::JITLinkDylib *JD);

private:
  struct Slab {
    char *Local;
    size_t Size;
  };

  SharedSlabMapper(llvm::orc::ExecutorProcessControl &EPC, SymbolAddrs SAs,
                   unsigned PageSize, bool Defer)
      : EPC(EPC), SAs(SAs), PageSize(PageSize), Defer(Defer) {}

  void reserveRemote(size_t NumBytes, OnReservedFunction OnReserved);
  std::map<llvm::orc::ExecutorAddr, Slab>::iterator
  slabContaining(llvm::orc::ExecutorAddr A);

  llvm::orc::ExecutorProcessControl &EPC;
  SymbolAddrs SAs;
  unsigned PageSize;
  bool Defer;

  std::mutex M;
  std::map<llvm::orc::ExecutorAddr, Slab> Slabs;
  std::optional<llvm::orc::ExecutorAddrRange> Spare;
  bool Refilling = false;
  std::map<const llvm::jitlink::JITLinkDylib *, std::vector<DeferredCall>>
      Pending;
};

// createMemoryManager returns a MapperJITLinkMemoryManager over Mapper
// that tells Mapper which module each initialize belongs to.
std::unique_ptr<llvm::jitlink::JITLinkMemoryManager>
createMemoryManager(size_t SlabSize, std::unique_ptr<SharedSlabMapper> Mapper);

} // namespace orcrt

#endif
