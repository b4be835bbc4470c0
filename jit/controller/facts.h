// What a link proves about the functions it defines, for package jit's
// call tiers (docs/protocol.md §11): each function's size, what its code
// calls, read from the linked machine code, and the stack its frame uses,
// read from the object's .stack_sizes section.
#ifndef ORCRT_JIT_CONTROLLER_FACTS_H
#define ORCRT_JIT_CONTROLLER_FACTS_H

#include "requests.inc"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace orcrt {

// Facts are what wire::SPSFacts carries. The zero value proves nothing.
struct Facts {
  uint64_t Size = 0;
  uint8_t Calls = wire::CallsUnknown;
  bool HasStackSize = false;
  uint64_t StackSize = 0;
};

// readStackSizes returns the stack sizes an ELF relocatable object's
// .stack_sizes sections record (x86-64 and AArch64), by function name: a
// name given to two functions is left out, and so is anything the
// section does not say clearly. Anything else is an empty map.
llvm::StringMap<uint64_t> readStackSizes(llvm::MemoryBufferRef Obj);

class Disassembler;

// FunctionFacts keeps the facts of each function a link defines, by
// JITDylib, until the add that linked it takes them for its answer.
// IsJITCode tells whether an address lies in JIT'd memory: a library
// function's name resolved there is some module's code, whatever its
// name.
class FunctionFacts : public llvm::orc::ObjectLinkingLayer::Plugin {
public:
  explicit FunctionFacts(
      std::function<bool(llvm::orc::ExecutorAddr)> IsJITCode);
  ~FunctionFacts() override;

  void notifyMaterializing(llvm::orc::MaterializationResponsibility &MR,
                           llvm::jitlink::LinkGraph &G,
                           llvm::jitlink::JITLinkContext &Ctx,
                           llvm::MemoryBufferRef InputObject) override;
  void modifyPassConfig(llvm::orc::MaterializationResponsibility &MR,
                        llvm::jitlink::LinkGraph &G,
                        llvm::jitlink::PassConfiguration &Config) override;
  llvm::Error
  notifyFailed(llvm::orc::MaterializationResponsibility &MR) override {
    return llvm::Error::success();
  }
  llvm::Error notifyRemovingResources(llvm::orc::JITDylib &JD,
                                      llvm::orc::ResourceKey K) override {
    take(JD);
    return llvm::Error::success();
  }
  void notifyTransferringResources(llvm::orc::JITDylib &JD,
                                   llvm::orc::ResourceKey DstKey,
                                   llvm::orc::ResourceKey SrcKey) override {}

  llvm::DenseMap<llvm::orc::SymbolStringPtr, Facts>
  take(llvm::orc::JITDylib &JD);

  // calls returns what the code of each function of a linked graph (after
  // its fixups) calls: a wire::Calls value. Functions not in it: unknown.
  llvm::DenseMap<llvm::jitlink::Symbol *, uint8_t>
  calls(llvm::jitlink::LinkGraph &G);

private:
  llvm::Error record(llvm::orc::JITDylib &JD, llvm::jitlink::LinkGraph &G,
                     const llvm::StringMap<uint64_t> &StackSizes);

  std::function<bool(llvm::orc::ExecutorAddr)> IsJITCode;
  std::mutex Mu;
  std::map<llvm::orc::JITDylib *,
           llvm::DenseMap<llvm::orc::SymbolStringPtr, Facts>>
      ByJD;
  // The stack sizes of each graph between notifyMaterializing and its
  // pass configuration (every graph passes both, on one thread).
  llvm::DenseMap<llvm::jitlink::LinkGraph *, llvm::StringMap<uint64_t>> Pending;
  // For the target of the graph analyzed last, used under DisMu.
  std::mutex DisMu;
  std::unique_ptr<Disassembler> Dis;
};

} // namespace orcrt

#endif
