// JIT memory for orcrt-jit-controller (memory.h).

#include "memory.h"

#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/ExecutionEngine/Orc/MapperJITLinkMemoryManager.h"
#include "llvm/ExecutionEngine/Orc/Shared/OrcRTBridge.h"
#include "llvm/Support/MSVCErrorWorkarounds.h"
#include "llvm/Support/Process.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <future>

using namespace llvm;
using namespace llvm::orc;
using namespace llvm::orc::shared;

namespace orcrt {

// The module whose allocation is being finalized on this thread: set
// around MapperJITLinkMemoryManager's finalize, which calls the mapper's
// initialize before it returns.
static thread_local const jitlink::JITLinkDylib *Finalizing = nullptr;

Expected<std::unique_ptr<SharedSlabMapper>>
SharedSlabMapper::Create(ExecutorProcessControl &EPC, bool Defer) {
  SymbolAddrs SAs;
  if (auto Err = EPC.getBootstrapSymbols(
          {{SAs.Instance, rt::ExecutorSharedMemoryMapperServiceInstanceName},
           {SAs.Reserve,
            rt::ExecutorSharedMemoryMapperServiceReserveWrapperName},
           {SAs.Initialize,
            rt::ExecutorSharedMemoryMapperServiceInitializeWrapperName},
           {SAs.Deinitialize,
            rt::ExecutorSharedMemoryMapperServiceDeinitializeWrapperName},
           {SAs.Release,
            rt::ExecutorSharedMemoryMapperServiceReleaseWrapperName}}))
    return std::move(Err);
  auto PageSize = sys::Process::getPageSize();
  if (!PageSize)
    return PageSize.takeError();
  return std::unique_ptr<SharedSlabMapper>(
      new SharedSlabMapper(EPC, SAs, *PageSize, Defer));
}

SharedSlabMapper::~SharedSlabMapper() {
  for (auto &[Base, S] : Slabs)
    munmap(S.Local, S.Size);
}

void SharedSlabMapper::reserveRemote(size_t NumBytes,
                                     OnReservedFunction OnReserved) {
  EPC.callSPSWrapperAsync<
      rt::SPSExecutorSharedMemoryMapperServiceReserveSignature>(
      SAs.Reserve,
      [this, NumBytes, OnReserved = std::move(OnReserved)](
          Error SerErr,
          Expected<std::pair<ExecutorAddr, std::string>> Result) mutable {
        if (SerErr) {
          consumeError(Result.takeError());
          return OnReserved(std::move(SerErr));
        }
        if (!Result)
          return OnReserved(Result.takeError());
        auto &[Remote, Name] = *Result;
        int FD = shm_open(Name.c_str(), O_RDWR, 0700);
        if (FD < 0)
          return OnReserved(errorCodeToError(errnoAsErrorCode()));
        // Only the two processes' mappings keep it from here on.
        shm_unlink(Name.c_str());
        void *Local =
            mmap(nullptr, NumBytes, PROT_READ | PROT_WRITE, MAP_SHARED, FD, 0);
        close(FD);
        if (Local == MAP_FAILED)
          return OnReserved(errorCodeToError(errnoAsErrorCode()));
        {
          std::lock_guard<std::mutex> L(M);
          Slabs[Remote] = {static_cast<char *>(Local), NumBytes};
        }
        OnReserved(ExecutorAddrRange(Remote, NumBytes));
      },
      SAs.Instance, static_cast<uint64_t>(NumBytes));
}

Error SharedSlabMapper::reserveAhead(size_t NumBytes) {
  std::promise<MSVCPExpected<ExecutorAddrRange>> P;
  auto F = P.get_future();
  reserveRemote(NumBytes, [&](Expected<ExecutorAddrRange> R) {
    P.set_value(std::move(R));
  });
  auto R = F.get();
  if (!R)
    return R.takeError();
  std::lock_guard<std::mutex> L(M);
  Spare = *R;
  return Error::success();
}

void SharedSlabMapper::reserve(size_t NumBytes, OnReservedFunction OnReserved) {
  std::optional<ExecutorAddrRange> Got;
  bool Refill = false;
  {
    std::lock_guard<std::mutex> L(M);
    if (Spare && Spare->size() == NumBytes) {
      Got = Spare;
      Spare.reset();
      Refill = !Refilling;
      Refilling = Refill;
    }
  }
  if (!Got)
    return reserveRemote(NumBytes, std::move(OnReserved));
  OnReserved(*Got);
  // The next slab is reserved while this one fills.
  if (Refill)
    reserveRemote(NumBytes, [this](Expected<ExecutorAddrRange> R) {
      std::lock_guard<std::mutex> L(M);
      Refilling = false;
      if (R)
        Spare = *R;
      else
        consumeError(R.takeError()); // the next reserve asks again
    });
}

std::map<ExecutorAddr, SharedSlabMapper::Slab>::iterator
SharedSlabMapper::slabContaining(ExecutorAddr A) {
  auto I = Slabs.upper_bound(A);
  if (I == Slabs.begin())
    return Slabs.end();
  --I;
  return A < I->first + I->second.Size ? I : Slabs.end();
}

bool SharedSlabMapper::contains(ExecutorAddr A) {
  std::lock_guard<std::mutex> L(M);
  return slabContaining(A) != Slabs.end();
}

char *SharedSlabMapper::prepare(jitlink::LinkGraph &G, ExecutorAddr Addr,
                                size_t ContentSize) {
  std::lock_guard<std::mutex> L(M);
  auto I = slabContaining(Addr);
  assert(I != Slabs.end() && "preparing memory of no slab");
  return I->second.Local + (Addr - I->first);
}

void SharedSlabMapper::initialize(AllocInfo &AI,
                                  OnInitializedFunction OnInitialized) {
  ExecutorAddr SlabBase;
  {
    std::lock_guard<std::mutex> L(M);
    auto I = slabContaining(AI.MappingBase);
    if (I == Slabs.end())
      return OnInitialized(createStringError("initializing memory of no slab"));
    SlabBase = I->first;
  }
  tpctypes::SharedMemoryFinalizeRequest FR;
  std::swap(FR.Actions, AI.Actions);
  // The executor keys an allocation by its lowest segment address.
  ExecutorAddr Key;
  for (auto &Seg : AI.Segments) {
    std::memset(const_cast<char *>(Seg.WorkingMem) + Seg.ContentSize, 0,
                Seg.ZeroFillSize);
    ExecutorAddr A = AI.MappingBase + Seg.Offset;
    FR.Segments.push_back({{Seg.AG.getMemProt(),
                            Seg.AG.getMemLifetime() == MemLifetime::Finalize},
                           A,
                           Seg.ContentSize + Seg.ZeroFillSize});
    if (!Key || A < Key)
      Key = A;
  }
  if (Defer && Finalizing) {
    using Sig = SPSArgList<SPSExecutorAddr, SPSExecutorAddr,
                           SPSSharedMemoryFinalizeRequest>;
    auto Call = WrapperFunctionCall::Create<Sig>(SAs.Initialize, SAs.Instance,
                                                 SlabBase, FR);
    if (!Call)
      return OnInitialized(Call.takeError());
    auto &Args = Call->getArgData();
    {
      std::lock_guard<std::mutex> L(M);
      Pending[Finalizing].push_back(
          {SAs.Initialize, std::vector<char>(Args.begin(), Args.end()), Key});
    }
    return OnInitialized(Key);
  }
  EPC.callSPSWrapperAsync<
      rt::SPSExecutorSharedMemoryMapperServiceInitializeSignature>(
      SAs.Initialize,
      [OnInitialized = std::move(OnInitialized)](
          Error SerErr, Expected<ExecutorAddr> Result) mutable {
        if (SerErr) {
          consumeError(Result.takeError());
          return OnInitialized(std::move(SerErr));
        }
        OnInitialized(std::move(Result));
      },
      SAs.Instance, SlabBase, std::move(FR));
}

std::vector<DeferredCall>
SharedSlabMapper::takeDeferred(const jitlink::JITLinkDylib *JD) {
  std::lock_guard<std::mutex> L(M);
  auto I = Pending.find(JD);
  if (I == Pending.end())
    return {};
  auto Calls = std::move(I->second);
  Pending.erase(I);
  return Calls;
}

Error SharedSlabMapper::flushDeferred(const jitlink::JITLinkDylib *JD) {
  Error Errs = Error::success();
  for (auto &C : takeDeferred(JD)) {
    auto R = EPC.callWrapper(C.Fn, C.Args);
    if (const char *Msg = R.getOutOfBandError()) {
      Errs = joinErrors(std::move(Errs), createStringError(Msg));
      continue;
    }
    SPSInputBuffer IB(R.data(), R.size());
    shared::detail::SPSSerializableExpected<ExecutorAddr> Got;
    if (!SPSArgList<SPSExpected<SPSExecutorAddr>>::deserialize(IB, Got)) {
      Errs = joinErrors(std::move(Errs),
                        createStringError("undecodable initialize result"));
      continue;
    }
    if (auto Res = shared::detail::fromSPSSerializable(std::move(Got)); !Res)
      Errs = joinErrors(std::move(Errs), Res.takeError());
  }
  return Errs;
}

void SharedSlabMapper::deinitialize(ArrayRef<ExecutorAddr> Allocations,
                                    OnDeinitializedFunction OnDeinitialized) {
  EPC.callSPSWrapperAsync<
      rt::SPSExecutorSharedMemoryMapperServiceDeinitializeSignature>(
      SAs.Deinitialize,
      [OnDeinitialized = std::move(OnDeinitialized)](Error SerErr,
                                                     Error Result) mutable {
        if (SerErr) {
          consumeError(std::move(Result));
          return OnDeinitialized(std::move(SerErr));
        }
        OnDeinitialized(std::move(Result));
      },
      SAs.Instance, Allocations);
}

void SharedSlabMapper::release(ArrayRef<ExecutorAddr> Bases,
                               OnReleasedFunction OnReleased) {
  {
    std::lock_guard<std::mutex> L(M);
    for (auto B : Bases) {
      auto I = Slabs.find(B);
      if (I == Slabs.end())
        continue;
      munmap(I->second.Local, I->second.Size);
      Slabs.erase(I);
    }
  }
  EPC.callSPSWrapperAsync<
      rt::SPSExecutorSharedMemoryMapperServiceReleaseSignature>(
      SAs.Release,
      [OnReleased = std::move(OnReleased)](Error SerErr, Error Result) mutable {
        if (SerErr) {
          consumeError(std::move(Result));
          return OnReleased(std::move(SerErr));
        }
        OnReleased(std::move(Result));
      },
      SAs.Instance, Bases);
}

namespace {

// AttributedAlloc marks the thread with its module while it finalizes.
class AttributedAlloc final
    : public jitlink::JITLinkMemoryManager::InFlightAlloc {
public:
  AttributedAlloc(const jitlink::JITLinkDylib *JD,
                  std::unique_ptr<InFlightAlloc> Inner)
      : JD(JD), Inner(std::move(Inner)) {}

  void finalize(OnFinalizedFunction OnFinalized) override {
    const jitlink::JITLinkDylib *Prev = Finalizing;
    Finalizing = JD;
    Inner->finalize(std::move(OnFinalized));
    Finalizing = Prev;
  }
  void abandon(OnAbandonedFunction OnAbandoned) override {
    Inner->abandon(std::move(OnAbandoned));
  }

private:
  const jitlink::JITLinkDylib *JD;
  std::unique_ptr<InFlightAlloc> Inner;
};

class AttributingMemoryManager final : public jitlink::JITLinkMemoryManager {
public:
  explicit AttributingMemoryManager(std::unique_ptr<JITLinkMemoryManager> Inner)
      : Inner(std::move(Inner)) {}

  void allocate(const jitlink::JITLinkDylib *JD, jitlink::LinkGraph &G,
                OnAllocatedFunction OnAllocated) override {
    Inner->allocate(
        JD, G,
        [JD, OnAllocated = std::move(OnAllocated)](AllocResult R) mutable {
          if (!R)
            return OnAllocated(R.takeError());
          OnAllocated(std::make_unique<AttributedAlloc>(JD, std::move(*R)));
        });
  }
  using JITLinkMemoryManager::allocate;

  void deallocate(std::vector<FinalizedAlloc> Allocs,
                  OnDeallocatedFunction OnDeallocated) override {
    Inner->deallocate(std::move(Allocs), std::move(OnDeallocated));
  }
  using JITLinkMemoryManager::deallocate;

private:
  std::unique_ptr<JITLinkMemoryManager> Inner;
};

} // namespace

std::unique_ptr<jitlink::JITLinkMemoryManager>
createMemoryManager(size_t SlabSize, std::unique_ptr<SharedSlabMapper> Mapper) {
  return std::make_unique<AttributingMemoryManager>(
      std::make_unique<MapperJITLinkMemoryManager>(SlabSize,
                                                   std::move(Mapper)));
}

} // namespace orcrt
