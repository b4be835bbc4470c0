// golden.cpp: LLVM 22 as the oracle for orcrt's SPS codec (package sps).
//
// Every encoding here is produced and checked by LLVM's own SPS traits
// (SimplePackedSerialization.h and the ORC headers that specialize it), so
// the Go tests compare against LLVM itself, not against a re-statement of
// the format.
//
//   golden gen          print "name hex" for every golden vector. Each
//                       vector is verified before it is printed: good ones
//                       decode with LLVM, consume every byte and
//                       re-serialize identically; "bad" ones are rejected by
//                       LLVM's decoder; "trailing" ones decode with the
//                       trailing bytes unconsumed; "canon" ones decode and
//                       re-serialize to the stated canonical bytes.
//   golden check FILE   read "name hex" lines (hex "-" = empty). For each,
//                       decode with the LLVM deserializer of the type named
//                       by the part of the name before the first '/', then
//                       print "name ok CONSUMED REHEX RENDER" (REHEX is the
//                       LLVM re-serialization, RENDER a canonical text form
//                       of the decoded LLVM value) or "name fail".
//
// The name keys and the RENDER syntax are mirrored by sps/golden_test.go.
// Build and regenerate with regen.sh beside this file.

#include "llvm/ExecutionEngine/Orc/Shared/AllocationActions.h"
#include "llvm/ExecutionEngine/Orc/Shared/ExecutorAddress.h"
#include "llvm/ExecutionEngine/Orc/Shared/ExecutorSymbolDef.h"
#include "llvm/ExecutionEngine/Orc/Shared/MemoryFlags.h"
#include "llvm/ExecutionEngine/Orc/Shared/PerfSharedStructs.h"
#include "llvm/ExecutionEngine/Orc/Shared/SimplePackedSerialization.h"
#include "llvm/ExecutionEngine/Orc/Shared/SimpleRemoteEPCUtils.h"
#include "llvm/ExecutionEngine/Orc/Shared/TargetProcessControlTypes.h"
#include "llvm/ExecutionEngine/Orc/Shared/WrapperFunctionUtils.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

using namespace llvm;
using namespace llvm::orc;
using namespace llvm::orc::shared;
namespace sd = llvm::orc::shared::detail;
namespace tp = llvm::orc::tpctypes;

[[noreturn]] static void die(const std::string &Msg) {
  std::fprintf(stderr, "golden: %s\n", Msg.c_str());
  std::exit(2);
}

static std::string hex(const char *P, size_t N) {
  static const char *D = "0123456789abcdef";
  std::string S;
  S.reserve(2 * N);
  for (size_t I = 0; I < N; ++I) {
    unsigned char C = static_cast<unsigned char>(P[I]);
    S += D[C >> 4];
    S += D[C & 15];
  }
  return S;
}
static std::string hex(const std::string &S) { return hex(S.data(), S.size()); }

static bool unhex(const std::string &H, std::string &Out) {
  Out.clear();
  if (H == "-")
    return true;
  if (H.size() % 2)
    return false;
  auto Nib = [](char C) -> int {
    if (C >= '0' && C <= '9')
      return C - '0';
    if (C >= 'a' && C <= 'f')
      return C - 'a' + 10;
    return -1;
  };
  for (size_t I = 0; I < H.size(); I += 2) {
    int A = Nib(H[I]), B = Nib(H[I + 1]);
    if (A < 0 || B < 0)
      return false;
    Out += static_cast<char>(A * 16 + B);
  }
  return true;
}

// ---------------------------------------------------------------------------
// Canonical rendering of decoded LLVM values. Integers are decimal (char
// and uint8_t as unsigned), byte strings are "x" + hex, tuples and structs
// "(a,b)", sequences "[a,b]", optionals none / some(x), SPSError ok /
// err(xMSG), SPSExpected val(x) / err(xMSG), maps "[(k,v),...]" sorted.
// All overloads are declared before any definition so that templates see
// them all.
namespace render {
void R(std::string &O, bool V);
void R(std::string &O, char V);
void R(std::string &O, signed char V);
void R(std::string &O, unsigned char V);
void R(std::string &O, int16_t V);
void R(std::string &O, uint16_t V);
void R(std::string &O, int32_t V);
void R(std::string &O, uint32_t V);
void R(std::string &O, long V);
void R(std::string &O, unsigned long V);
void R(std::string &O, const std::string &V);
void R(std::string &O, const std::vector<char> &V);
void R(std::string &O, const std::vector<uint8_t> &V);
void R(std::string &O, ArrayRef<char> V);
void R(std::string &O, const SmallVectorImpl<char> &V);
void R(std::string &O, const SPSEmpty &);
void R(std::string &O, ExecutorAddr V);
void R(std::string &O, const ExecutorAddrRange &V);
void R(std::string &O, const JITSymbolFlags &V);
void R(std::string &O, const ExecutorSymbolDef &V);
void R(std::string &O, const RemoteSymbolLookupSetElement &V);
void R(std::string &O, const WrapperFunctionCall &V);
void R(std::string &O, const AllocActionCallPair &V);
void R(std::string &O, const tp::RemoteAllocGroup &V);
void R(std::string &O, const tp::SegFinalizeRequest &V);
void R(std::string &O, const tp::FinalizeRequest &V);
void R(std::string &O, const tp::SharedMemorySegFinalizeRequest &V);
void R(std::string &O, const tp::SharedMemoryFinalizeRequest &V);
template <typename T> void R(std::string &O, const tp::UIntWrite<T> &V);
void R(std::string &O, const tp::PointerWrite &V);
void R(std::string &O, const tp::BufferWrite &V);
void R(std::string &O, const PerfJITRecordPrefix &V);
void R(std::string &O, const PerfJITCodeLoadRecord &V);
void R(std::string &O, const PerfJITDebugEntry &V);
void R(std::string &O, const PerfJITDebugInfoRecord &V);
void R(std::string &O, const PerfJITCodeUnwindingInfoRecord &V);
void R(std::string &O, const PerfJITRecordBatch &V);
void R(std::string &O, const SimpleRemoteEPCExecutorInfo &V);
void R(std::string &O, const sd::SPSSerializableError &V);
template <typename T>
void R(std::string &O, const sd::SPSSerializableExpected<T> &V);
template <typename T> void R(std::string &O, const std::vector<T> &V);
template <typename T> void R(std::string &O, const std::optional<T> &V);
template <typename A, typename B>
void R(std::string &O, const std::pair<A, B> &V);
template <typename... Ts> void R(std::string &O, const std::tuple<Ts...> &V);
template <typename V> void R(std::string &O, const StringMap<V> &M);

static void bytes(std::string &O, const char *P, size_t N) {
  O += 'x';
  O += hex(P, N);
}

void R(std::string &O, bool V) { O += V ? "true" : "false"; }
void R(std::string &O, char V) {
  O += std::to_string(static_cast<unsigned>(static_cast<unsigned char>(V)));
}
void R(std::string &O, signed char V) { O += std::to_string(int(V)); }
void R(std::string &O, unsigned char V) { O += std::to_string(unsigned(V)); }
void R(std::string &O, int16_t V) { O += std::to_string(V); }
void R(std::string &O, uint16_t V) { O += std::to_string(V); }
void R(std::string &O, int32_t V) { O += std::to_string(V); }
void R(std::string &O, uint32_t V) { O += std::to_string(V); }
void R(std::string &O, long V) { O += std::to_string(V); }
void R(std::string &O, unsigned long V) { O += std::to_string(V); }
void R(std::string &O, const std::string &V) { bytes(O, V.data(), V.size()); }
void R(std::string &O, const std::vector<char> &V) {
  bytes(O, V.data(), V.size());
}
void R(std::string &O, const std::vector<uint8_t> &V) {
  bytes(O, reinterpret_cast<const char *>(V.data()), V.size());
}
void R(std::string &O, ArrayRef<char> V) { bytes(O, V.data(), V.size()); }
void R(std::string &O, const SmallVectorImpl<char> &V) {
  bytes(O, V.data(), V.size());
}
void R(std::string &O, const SPSEmpty &) { O += "()"; }
void R(std::string &O, ExecutorAddr V) { R(O, (unsigned long)V.getValue()); }
void R(std::string &O, const ExecutorAddrRange &V) {
  O += '(';
  R(O, V.Start);
  O += ',';
  R(O, V.End);
  O += ')';
}
void R(std::string &O, const JITSymbolFlags &V) {
  O += '(';
  R(O, (unsigned char)V.getRawFlagsValue());
  O += ',';
  R(O, (unsigned char)V.getTargetFlags());
  O += ')';
}
void R(std::string &O, const ExecutorSymbolDef &V) {
  O += '(';
  R(O, V.getAddress());
  O += ',';
  R(O, V.getFlags());
  O += ')';
}
void R(std::string &O, const RemoteSymbolLookupSetElement &V) {
  O += '(';
  R(O, V.Name);
  O += ',';
  R(O, V.Required);
  O += ')';
}
void R(std::string &O, const WrapperFunctionCall &V) {
  O += '(';
  R(O, V.getCallee());
  O += ',';
  R(O, V.getArgData());
  O += ')';
}
void R(std::string &O, const AllocActionCallPair &V) {
  O += '(';
  R(O, V.Finalize);
  O += ',';
  R(O, V.Dealloc);
  O += ')';
}
void R(std::string &O, const tp::RemoteAllocGroup &V) {
  unsigned W = 0;
  if ((V.Prot & MemProt::Read) != MemProt::None)
    W |= 1;
  if ((V.Prot & MemProt::Write) != MemProt::None)
    W |= 2;
  if ((V.Prot & MemProt::Exec) != MemProt::None)
    W |= 4;
  if (V.FinalizeLifetime)
    W |= 8;
  O += std::to_string(W);
}
void R(std::string &O, const tp::SegFinalizeRequest &V) {
  O += '(';
  R(O, V.RAG);
  O += ',';
  R(O, V.Addr);
  O += ',';
  R(O, (unsigned long)V.Size);
  O += ',';
  R(O, V.Content);
  O += ')';
}
void R(std::string &O, const tp::FinalizeRequest &V) {
  O += '(';
  R(O, V.Segments);
  O += ',';
  R(O, V.Actions);
  O += ')';
}
void R(std::string &O, const tp::SharedMemorySegFinalizeRequest &V) {
  O += '(';
  R(O, V.RAG);
  O += ',';
  R(O, V.Addr);
  O += ',';
  R(O, (unsigned long)V.Size);
  O += ')';
}
void R(std::string &O, const tp::SharedMemoryFinalizeRequest &V) {
  O += '(';
  R(O, V.Segments);
  O += ',';
  R(O, V.Actions);
  O += ')';
}
template <typename T> void R(std::string &O, const tp::UIntWrite<T> &V) {
  O += '(';
  R(O, V.Addr);
  O += ',';
  R(O, V.Value);
  O += ')';
}
void R(std::string &O, const tp::PointerWrite &V) {
  O += '(';
  R(O, V.Addr);
  O += ',';
  R(O, V.Value);
  O += ')';
}
void R(std::string &O, const tp::BufferWrite &V) {
  O += '(';
  R(O, V.Addr);
  O += ',';
  R(O, V.Buffer);
  O += ')';
}
// Perf records render in their SPS order (a batch: code loads, debug
// info, unwinding), which is not the C++ members' order.
void R(std::string &O, const PerfJITRecordPrefix &V) {
  O += '(';
  R(O, static_cast<uint32_t>(V.Id));
  O += ',';
  R(O, V.TotalSize);
  O += ')';
}
void R(std::string &O, const PerfJITCodeLoadRecord &V) {
  O += '(';
  R(O, V.Prefix);
  for (uint32_t X : {V.Pid, V.Tid}) {
    O += ',';
    R(O, X);
  }
  for (uint64_t X : {V.Vma, V.CodeAddr, V.CodeSize, V.CodeIndex}) {
    O += ',';
    R(O, (unsigned long)X);
  }
  O += ',';
  R(O, V.Name);
  O += ')';
}
void R(std::string &O, const PerfJITDebugEntry &V) {
  O += '(';
  R(O, (unsigned long)V.Addr);
  O += ',';
  R(O, V.Lineno);
  O += ',';
  R(O, V.Discrim);
  O += ',';
  R(O, V.Name);
  O += ')';
}
void R(std::string &O, const PerfJITDebugInfoRecord &V) {
  O += '(';
  R(O, V.Prefix);
  O += ',';
  R(O, (unsigned long)V.CodeAddr);
  O += ',';
  R(O, V.Entries);
  O += ')';
}
void R(std::string &O, const PerfJITCodeUnwindingInfoRecord &V) {
  O += '(';
  R(O, V.Prefix);
  for (uint64_t X : {V.UnwindDataSize, V.EHFrameHdrSize, V.MappedSize,
                     V.EHFrameHdrAddr}) {
    O += ',';
    R(O, (unsigned long)X);
  }
  O += ',';
  R(O, V.EHFrameHdr);
  O += ',';
  R(O, (unsigned long)V.EHFrameAddr);
  O += ')';
}
void R(std::string &O, const PerfJITRecordBatch &V) {
  O += '(';
  R(O, V.CodeLoadRecords);
  O += ',';
  R(O, V.DebugInfoRecords);
  O += ',';
  R(O, V.UnwindingRecord);
  O += ')';
}
void R(std::string &O, const SimpleRemoteEPCExecutorInfo &V) {
  O += '(';
  R(O, V.TargetTriple);
  O += ',';
  R(O, (unsigned long)V.PageSize);
  O += ',';
  R(O, V.BootstrapMap);
  O += ',';
  R(O, V.BootstrapSymbols);
  O += ')';
}
void R(std::string &O, const sd::SPSSerializableError &V) {
  if (!V.HasError) {
    O += "ok";
    return;
  }
  O += "err(";
  R(O, V.ErrMsg);
  O += ')';
}
template <typename T>
void R(std::string &O, const sd::SPSSerializableExpected<T> &V) {
  if (V.HasValue) {
    O += "val(";
    R(O, V.Value);
  } else {
    O += "err(";
    R(O, V.ErrMsg);
  }
  O += ')';
}
template <typename T> void R(std::string &O, const std::vector<T> &V) {
  O += '[';
  for (size_t I = 0; I < V.size(); ++I) {
    if (I)
      O += ',';
    R(O, V[I]);
  }
  O += ']';
}
template <typename T> void R(std::string &O, const std::optional<T> &V) {
  if (!V) {
    O += "none";
    return;
  }
  O += "some(";
  R(O, *V);
  O += ')';
}
template <typename A, typename B>
void R(std::string &O, const std::pair<A, B> &V) {
  O += '(';
  R(O, V.first);
  O += ',';
  R(O, V.second);
  O += ')';
}
template <typename... Ts> void R(std::string &O, const std::tuple<Ts...> &V) {
  O += '(';
  bool First = true;
  std::apply(
      [&](const auto &...E) {
        ((O += First ? "" : ",", First = false, R(O, E)), ...);
      },
      V);
  O += ')';
}
template <typename V> void R(std::string &O, const StringMap<V> &M) {
  std::vector<std::string> Es;
  for (auto &E : M) {
    std::string S = "(";
    R(S, E.first().str());
    S += ',';
    R(S, E.second);
    S += ')';
    Es.push_back(S);
  }
  std::sort(Es.begin(), Es.end());
  O += '[';
  for (size_t I = 0; I < Es.size(); ++I) {
    if (I)
      O += ',';
    O += Es[I];
  }
  O += ']';
}
} // namespace render

// ---------------------------------------------------------------------------
// K<L<SPS tags...>, L<LLVM concrete types...>>: one wire shape (an SPS
// argument list) bound to the LLVM types LLVM itself decodes it into.

template <typename... Ts> struct L {};

struct Res {
  bool OK = false;
  size_t Consumed = 0;
  std::string Reenc, Render;
};

template <typename Tags, typename Vals> struct K;
template <typename... Tags, typename... Vals>
struct K<L<Tags...>, L<Vals...>> {
  using AL = SPSArgList<Tags...>;

  static std::string enc(const Vals &...V) {
    std::string Out(AL::size(V...), '\0');
    SPSOutputBuffer OB(Out.data(), Out.size());
    if (!AL::serialize(OB, V...))
      die("serialize failed");
    return Out;
  }

  static Res check(const std::string &In) {
    Res R;
    std::tuple<Vals...> Vs;
    SPSInputBuffer IB(In.data(), In.size());
    bool OK = std::apply(
        [&](auto &...V) { return AL::deserialize(IB, V...); }, Vs);
    if (!OK)
      return R;
    R.OK = true;
    R.Consumed = static_cast<size_t>(IB.data() - In.data());
    R.Reenc = std::apply([](const auto &...V) { return enc(V...); }, Vs);
    if constexpr (sizeof...(Vals) == 1)
      render::R(R.Render, std::get<0>(Vs));
    else
      render::R(R.Render, Vs);
    return R;
  }
};

using Addr = ExecutorAddr;
using SErr = sd::SPSSerializableError;
template <typename T> using SExp = sd::SPSSerializableExpected<T>;
using InitDeps = std::vector<std::pair<Addr, std::vector<Addr>>>;

// Keys (the part of a vector name before '/'), mirrored in golden_test.go.
using Kbool = K<L<bool>, L<bool>>;
using Kchar = K<L<char>, L<char>>;
using Ki8 = K<L<int8_t>, L<int8_t>>;
using Ki16 = K<L<int16_t>, L<int16_t>>;
using Ki32 = K<L<int32_t>, L<int32_t>>;
using Ki64 = K<L<int64_t>, L<int64_t>>;
using Ku8 = K<L<uint8_t>, L<uint8_t>>;
using Ku16 = K<L<uint16_t>, L<uint16_t>>;
using Ku32 = K<L<uint32_t>, L<uint32_t>>;
using Ku64 = K<L<uint64_t>, L<uint64_t>>;
using Ksize = K<L<uint64_t>, L<size_t>>;
using Kempty = K<L<SPSEmpty>, L<SPSEmpty>>;
using Kaddr = K<L<SPSExecutorAddr>, L<Addr>>;
using Kaddrrange = K<L<SPSExecutorAddrRange>, L<ExecutorAddrRange>>;
using Kstring = K<L<SPSString>, L<std::string>>;
using Kbytes = K<L<SPSSequence<char>>, L<std::vector<char>>>;
using Kbytesview = K<L<SPSSequence<char>>, L<ArrayRef<char>>>;
using Kseq_u8 = K<L<SPSSequence<uint8_t>>, L<std::vector<uint8_t>>>;
using Kseq_u16 = K<L<SPSSequence<uint16_t>>, L<std::vector<uint16_t>>>;
using Kseq_u32 = K<L<SPSSequence<uint32_t>>, L<std::vector<uint32_t>>>;
using Kseq_u64 = K<L<SPSSequence<uint64_t>>, L<std::vector<uint64_t>>>;
using Kseq_i32 = K<L<SPSSequence<int32_t>>, L<std::vector<int32_t>>>;
using Kseq_addr = K<L<SPSSequence<SPSExecutorAddr>>, L<std::vector<Addr>>>;
using Kseq_string = K<L<SPSSequence<SPSString>>, L<std::vector<std::string>>>;
using Kseq_bytes = K<L<SPSSequence<SPSSequence<uint8_t>>>,
                     L<std::vector<std::vector<uint8_t>>>>;
using Kseq_addrrange =
    K<L<SPSSequence<SPSExecutorAddrRange>>, L<std::vector<ExecutorAddrRange>>>;
using Ktuple2 =
    K<L<SPSTuple<int32_t, SPSString>>, L<std::pair<int32_t, std::string>>>;
using Ktuple3 = K<L<SPSTuple<int32_t, SPSString, bool>>,
                  L<std::tuple<int32_t, std::string, bool>>>;
using Koptional_u64 = K<L<SPSOptional<uint64_t>>, L<std::optional<uint64_t>>>;
using Koptional_string =
    K<L<SPSOptional<SPSString>>, L<std::optional<std::string>>>;
using Kmap_string_u64 = K<L<SPSMap<SPSString, uint64_t>>, L<StringMap<uint64_t>>>;
using Kmap_string_bytes = K<L<SPSMap<SPSString, SPSSequence<char>>>,
                            L<StringMap<std::vector<char>>>>;
using Kerror = K<L<SPSError>, L<SErr>>;
using Kexpected_u32 = K<L<SPSExpected<uint32_t>>, L<SExp<uint32_t>>>;
using Kexpected_addr = K<L<SPSExpected<SPSExecutorAddr>>, L<SExp<Addr>>>;
using Kjitsymbolflags = K<L<SPSJITSymbolFlags>, L<JITSymbolFlags>>;
using Ksymboldef = K<L<SPSExecutorSymbolDef>, L<ExecutorSymbolDef>>;
using Klookupelement =
    K<L<SPSRemoteSymbolLookupSetElement>, L<RemoteSymbolLookupSetElement>>;
using Klookupset = K<L<SPSRemoteSymbolLookupSet>, L<RemoteSymbolLookupSet>>;
using Klookupresult = K<L<SPSSequence<SPSOptional<SPSExecutorSymbolDef>>>,
                        L<tp::LookupResult>>;
using Kwrappercall = K<L<SPSWrapperFunctionCall>, L<WrapperFunctionCall>>;
using Kactionpair = K<L<SPSAllocActionCallPair>, L<AllocActionCallPair>>;
using Kallocgroup = K<L<SPSRemoteAllocGroup>, L<tp::RemoteAllocGroup>>;
using Ksegfinalize = K<L<SPSSegFinalizeRequest>, L<tp::SegFinalizeRequest>>;
using Kfinalize = K<L<SPSFinalizeRequest>, L<tp::FinalizeRequest>>;
using Ksharedseg = K<L<SPSSharedMemorySegFinalizeRequest>,
                     L<tp::SharedMemorySegFinalizeRequest>>;
using Ksharedfinalize =
    K<L<SPSSharedMemoryFinalizeRequest>, L<tp::SharedMemoryFinalizeRequest>>;
using Ku8write = K<L<SPSMemoryAccessUInt8Write>, L<tp::UInt8Write>>;
using Ku16write = K<L<SPSMemoryAccessUInt16Write>, L<tp::UInt16Write>>;
using Ku32write = K<L<SPSMemoryAccessUInt32Write>, L<tp::UInt32Write>>;
using Ku64write = K<L<SPSMemoryAccessUInt64Write>, L<tp::UInt64Write>>;
using Kpointerwrite = K<L<SPSMemoryAccessPointerWrite>, L<tp::PointerWrite>>;
using Kbufferwrite = K<L<SPSMemoryAccessBufferWrite>, L<tp::BufferWrite>>;
using Ksetup =
    K<L<SPSSimpleRemoteEPCExecutorInfo>, L<SimpleRemoteEPCExecutorInfo>>;

// Wrapper-function argument lists and results (protocol.md §4.3, §5).
using KretExpAddr = Kexpected_addr;
using KretError = Kerror;
using KretVoid = Kempty;
using Kargs_reserve = K<L<SPSExecutorAddr, uint64_t>, L<Addr, uint64_t>>;
using Kargs_initialize =
    K<L<SPSExecutorAddr, SPSFinalizeRequest>, L<Addr, tp::FinalizeRequest>>;
using Kargs_addrs = K<L<SPSExecutorAddr, SPSSequence<SPSExecutorAddr>>,
                      L<Addr, std::vector<Addr>>>;
using Kargs_open =
    K<L<SPSExecutorAddr, SPSString, uint64_t>, L<Addr, std::string, uint64_t>>;
using Kargs_resolve = K<L<SPSExecutorAddr, SPSRemoteSymbolLookupSet>,
                        L<Addr, RemoteSymbolLookupSet>>;
using Kret_resolve =
    K<L<SPSExpected<SPSSequence<SPSOptional<SPSExecutorSymbolDef>>>>,
      L<SExp<tp::LookupResult>>>;
// LLVM 23's resolve (its EPCGenericDylibManager.cpp calls it with
// (Instance, Handle, Set) and decodes optional addresses: llvm-project PRs
// #201211, #201492), which is also orc-rt's NativeDylibManager lookup, and
// orc-rt's read_buffers argument, (address, size) pairs: wire forms LLVM
// 22's serializers write.
using Kargs_resolve23 =
    K<L<SPSExecutorAddr, SPSExecutorAddr, SPSRemoteSymbolLookupSet>,
      L<Addr, Addr, RemoteSymbolLookupSet>>;
using Kret_resolve23 =
    K<L<SPSExpected<SPSSequence<SPSOptional<SPSExecutorAddr>>>>,
      L<SExp<std::vector<std::optional<Addr>>>>>;
using Kargs_read_buffers_sized =
    K<L<SPSSequence<SPSTuple<SPSExecutorAddr, uint64_t>>>,
      L<std::vector<std::pair<Addr, uint64_t>>>>;
using Kargs_write_uint8s = K<L<SPSSequence<SPSMemoryAccessUInt8Write>>,
                             L<std::vector<tp::UInt8Write>>>;
using Kargs_write_uint16s = K<L<SPSSequence<SPSMemoryAccessUInt16Write>>,
                              L<std::vector<tp::UInt16Write>>>;
using Kargs_write_uint32s = K<L<SPSSequence<SPSMemoryAccessUInt32Write>>,
                              L<std::vector<tp::UInt32Write>>>;
using Kargs_write_uint64s = K<L<SPSSequence<SPSMemoryAccessUInt64Write>>,
                              L<std::vector<tp::UInt64Write>>>;
using Kargs_write_pointers = K<L<SPSSequence<SPSMemoryAccessPointerWrite>>,
                               L<std::vector<tp::PointerWrite>>>;
using Kargs_write_buffers = K<L<SPSSequence<SPSMemoryAccessBufferWrite>>,
                              L<std::vector<tp::BufferWrite>>>;
using Kargs_read = Kseq_addr;
using Kargs_read_buffers = Kseq_addrrange;
using Kargs_run_as_main = K<L<SPSExecutorAddr, SPSSequence<SPSString>>,
                            L<Addr, std::vector<std::string>>>;
using Kret_i64 = Ki64;
using Kargs_run_as_void = Kaddr;
using Kret_i32 = Ki32;
using Kargs_run_as_int = K<L<SPSExecutorAddr, int32_t>, L<Addr, int32_t>>;
using Kargs_ehframe = Kaddrrange;
using Kargs_register_gdb =
    K<L<SPSExecutorAddrRange, bool>, L<ExecutorAddrRange, bool>>;
using Kret_shm_reserve =
    K<L<SPSExpected<SPSTuple<SPSExecutorAddr, SPSString>>>,
      L<SExp<std::pair<Addr, std::string>>>>;
using Kargs_shm_initialize =
    K<L<SPSExecutorAddr, SPSExecutorAddr, SPSSharedMemoryFinalizeRequest>,
      L<Addr, Addr, tp::SharedMemoryFinalizeRequest>>;
using Kret_push_initializers = K<
    L<SPSExpected<SPSSequence<SPSTuple<SPSExecutorAddr, SPSSequence<SPSExecutorAddr>>>>>,
    L<SExp<InitDeps>>>;
using Kargs_symbol_lookup =
    K<L<SPSExecutorAddr, SPSString>, L<Addr, std::string>>;
using Kret_lazy_resolve =
    K<L<SPSExpected<SPSExecutorSymbolDef>>, L<SExp<ExecutorSymbolDef>>>;
using Kargs_perf_impl = K<L<SPSPerfJITRecordBatch>, L<PerfJITRecordBatch>>;

using CheckFn = Res (*)(const std::string &);
static const std::map<std::string, CheckFn> &keys() {
  static const std::map<std::string, CheckFn> M = {
      {"bool", &Kbool::check},
      {"char", &Kchar::check},
      {"i8", &Ki8::check},
      {"i16", &Ki16::check},
      {"i32", &Ki32::check},
      {"i64", &Ki64::check},
      {"u8", &Ku8::check},
      {"u16", &Ku16::check},
      {"u32", &Ku32::check},
      {"u64", &Ku64::check},
      {"size", &Ksize::check},
      {"empty", &Kempty::check},
      {"addr", &Kaddr::check},
      {"addrrange", &Kaddrrange::check},
      {"string", &Kstring::check},
      {"bytes", &Kbytes::check},
      {"bytesview", &Kbytesview::check},
      {"seq-u8", &Kseq_u8::check},
      {"seq-u16", &Kseq_u16::check},
      {"seq-u32", &Kseq_u32::check},
      {"seq-u64", &Kseq_u64::check},
      {"seq-i32", &Kseq_i32::check},
      {"seq-addr", &Kseq_addr::check},
      {"seq-string", &Kseq_string::check},
      {"seq-bytes", &Kseq_bytes::check},
      {"seq-addrrange", &Kseq_addrrange::check},
      {"tuple2", &Ktuple2::check},
      {"tuple3", &Ktuple3::check},
      {"optional-u64", &Koptional_u64::check},
      {"optional-string", &Koptional_string::check},
      {"map-string-u64", &Kmap_string_u64::check},
      {"map-string-bytes", &Kmap_string_bytes::check},
      {"error", &Kerror::check},
      {"expected-u32", &Kexpected_u32::check},
      {"expected-addr", &Kexpected_addr::check},
      {"jitsymbolflags", &Kjitsymbolflags::check},
      {"symboldef", &Ksymboldef::check},
      {"lookupelement", &Klookupelement::check},
      {"lookupset", &Klookupset::check},
      {"lookupresult", &Klookupresult::check},
      {"wrappercall", &Kwrappercall::check},
      {"actionpair", &Kactionpair::check},
      {"allocgroup", &Kallocgroup::check},
      {"segfinalize", &Ksegfinalize::check},
      {"finalize", &Kfinalize::check},
      {"sharedseg", &Ksharedseg::check},
      {"sharedfinalize", &Ksharedfinalize::check},
      {"u8write", &Ku8write::check},
      {"u16write", &Ku16write::check},
      {"u32write", &Ku32write::check},
      {"u64write", &Ku64write::check},
      {"pointerwrite", &Kpointerwrite::check},
      {"bufferwrite", &Kbufferwrite::check},
      {"setup", &Ksetup::check},
      {"args-reserve", &Kargs_reserve::check},
      {"ret-reserve", &KretExpAddr::check},
      {"args-initialize", &Kargs_initialize::check},
      {"ret-initialize", &KretExpAddr::check},
      {"args-deinitialize", &Kargs_addrs::check},
      {"ret-deinitialize", &KretError::check},
      {"args-release", &Kargs_addrs::check},
      {"ret-release", &KretError::check},
      {"args-open", &Kargs_open::check},
      {"ret-open", &KretExpAddr::check},
      {"args-resolve", &Kargs_resolve::check},
      {"ret-resolve", &Kret_resolve::check},
      {"args-resolve23", &Kargs_resolve23::check},
      {"ret-resolve23", &Kret_resolve23::check},
      {"args-read-buffers-sized", &Kargs_read_buffers_sized::check},
      {"args-write-uint8s", &Kargs_write_uint8s::check},
      {"args-write-uint16s", &Kargs_write_uint16s::check},
      {"args-write-uint32s", &Kargs_write_uint32s::check},
      {"args-write-uint64s", &Kargs_write_uint64s::check},
      {"args-write-pointers", &Kargs_write_pointers::check},
      {"args-write-buffers", &Kargs_write_buffers::check},
      {"ret-write", &KretVoid::check},
      {"args-read-uint8s", &Kargs_read::check},
      {"args-read-uint16s", &Kargs_read::check},
      {"args-read-uint32s", &Kargs_read::check},
      {"args-read-uint64s", &Kargs_read::check},
      {"args-read-pointers", &Kargs_read::check},
      {"args-read-buffers", &Kargs_read_buffers::check},
      {"args-read-strings", &Kargs_read::check},
      {"ret-read-uint8s", &Kseq_u8::check},
      {"ret-read-uint16s", &Kseq_u16::check},
      {"ret-read-uint32s", &Kseq_u32::check},
      {"ret-read-uint64s", &Kseq_u64::check},
      {"ret-read-pointers", &Kseq_addr::check},
      {"ret-read-buffers", &Kseq_bytes::check},
      {"ret-read-strings", &Kseq_string::check},
      {"args-run-as-main", &Kargs_run_as_main::check},
      {"ret-run-as-main", &Kret_i64::check},
      {"args-run-as-void", &Kargs_run_as_void::check},
      {"ret-run-as-void", &Kret_i32::check},
      {"args-run-as-int", &Kargs_run_as_int::check},
      {"ret-run-as-int", &Kret_i32::check},
      {"args-register-ehframe", &Kargs_ehframe::check},
      {"args-deregister-ehframe", &Kargs_ehframe::check},
      {"args-register-gdb", &Kargs_register_gdb::check},
      {"ret-action", &KretError::check},
      {"args-shm-reserve", &Kargs_reserve::check},
      {"ret-shm-reserve", &Kret_shm_reserve::check},
      {"args-shm-initialize", &Kargs_shm_initialize::check},
      {"ret-shm-initialize", &KretExpAddr::check},
      {"args-shm-deinitialize", &Kargs_addrs::check},
      {"args-shm-release", &Kargs_addrs::check},
      {"args-push-initializers", &Kaddr::check},
      {"ret-push-initializers", &Kret_push_initializers::check},
      {"args-symbol-lookup", &Kargs_symbol_lookup::check},
      {"ret-symbol-lookup", &KretExpAddr::check},
      {"args-lazy-resolve", &Kaddr::check},
      {"ret-lazy-resolve", &Kret_lazy_resolve::check},
      {"args-perf-impl", &Kargs_perf_impl::check},
  };
  return M;
}

static Res checkNamed(const std::string &Name, const std::string &Bytes) {
  std::string Key = Name.substr(0, Name.find('/'));
  auto I = keys().find(Key);
  if (I == keys().end())
    die("unknown key " + Key + " in " + Name);
  return I->second(Bytes);
}

// ---------------------------------------------------------------------------
// gen: the golden vectors. The Go table in golden_test.go states the same
// values independently.

static void out(const std::string &Name, const std::string &B) {
  std::printf("%s %s\n", Name.c_str(), B.empty() ? "-" : hex(B).c_str());
}
static void good(const std::string &Name, const std::string &B) {
  Res R = checkNamed(Name, B);
  if (!R.OK || R.Consumed != B.size() || R.Reenc != B)
    die("vector " + Name + " does not round-trip through LLVM");
  out(Name, B);
}
static void bad(const std::string &Name, const std::string &B) {
  if (checkNamed(Name, B).OK)
    die("vector " + Name + " was expected to be rejected by LLVM");
  out(Name, B);
}
static void trailing(const std::string &Name, const std::string &B,
                     size_t N) {
  Res R = checkNamed(Name, B);
  if (!R.OK || R.Consumed != B.size() - N ||
      R.Reenc != B.substr(0, B.size() - N))
    die("vector " + Name + " does not decode with trailing bytes");
  out(Name, B);
}
static void canon(const std::string &Name, const std::string &B,
                  const std::string &Canonical) {
  Res R = checkNamed(Name, B);
  if (!R.OK || R.Consumed != B.size() || R.Reenc != Canonical)
    die("vector " + Name + " does not canonicalize as stated");
  out(Name, B);
}
static std::string trunc(const std::string &B, size_t Drop) {
  if (Drop > B.size())
    die("bad truncation");
  return B.substr(0, B.size() - Drop);
}

static tp::RemoteAllocGroup rag(unsigned W) {
  MemProt P = MemProt::None;
  if (W & 1)
    P |= MemProt::Read;
  if (W & 2)
    P |= MemProt::Write;
  if (W & 4)
    P |= MemProt::Exec;
  return tp::RemoteAllocGroup(P, (W & 8) != 0);
}
static WrapperFunctionCall call(uint64_t Fn, const std::string &Args) {
  return WrapperFunctionCall(
      Addr(Fn), WrapperFunctionCall::ArgDataBufferType(Args.begin(), Args.end()));
}
static std::string seq(unsigned char From, size_t N) {
  std::string S;
  for (size_t I = 0; I < N; ++I)
    S += static_cast<char>(From + I);
  return S;
}
static ArrayRef<char> aref(const std::string &S) {
  return ArrayRef<char>(S.data(), S.size());
}
static std::string rangeArgs(uint64_t S, uint64_t E) {
  return Kaddrrange::enc(ExecutorAddrRange(Addr(S), Addr(E)));
}

static const uint64_t A1 = 0x7f2861569000, A2 = 0x7f286156a000,
                      A3 = 0x7f286156b000, Inst = 0x55dd1398bc10,
                      RegEH = 0x55dce7a9ac60, DeregEH = 0x55dce7a9ad20;

// Segment contents live here so that ArrayRefs stay valid.
static const std::string HelloContent = std::string("Hello, world!\n") +
                                        std::string(2, '\0') + seq(0x80, 16);
static const std::string Page = seq(0, 256) + seq(0, 256) + seq(0, 256) +
                                seq(0, 256) + seq(0, 256) + seq(0, 256) +
                                seq(0, 256) + seq(0, 256) + seq(0, 256) +
                                seq(0, 256) + seq(0, 256) + seq(0, 256) +
                                seq(0, 256) + seq(0, 256) + seq(0, 256) +
                                seq(0, 256);
static const std::string Text = "\x55\x48\x89\xe5\x31\xc0\x5d\xc3";
static const std::string Abc = "abc";
static const std::string NulX("\0x\0", 3);

static tp::FinalizeRequest captureA() {
  tp::FinalizeRequest FR;
  FR.Segments.push_back({rag(1), Addr(A1), 0x1000, aref(HelloContent)});
  FR.Segments.push_back({rag(5), Addr(A2), 0x1000, aref(Text)});
  FR.Actions.push_back({call(RegEH, rangeArgs(A1 + 0x28, A1 + 0x64)),
                        call(DeregEH, rangeArgs(A1 + 0x28, A1 + 0x64))});
  return FR;
}

static tp::FinalizeRequest multi() {
  tp::FinalizeRequest FR;
  FR.Segments.push_back({rag(1), Addr(A1), 0x1000, aref(Page)});
  FR.Segments.push_back({rag(3), Addr(A2), 0x2000, ArrayRef<char>()});
  FR.Segments.push_back({rag(5), Addr(A3), 0x1000, aref(Text)});
  FR.Segments.push_back({rag(0xb), Addr(A3 + 0x1000), 0x10, aref(Abc)});
  FR.Actions.push_back({call(RegEH, rangeArgs(A1, A1 + 0x40)), call(0, "")});
  FR.Actions.push_back({call(0, ""), call(0x1234, "")});
  FR.Actions.push_back({call(0xfeed, seq(0x41, 40)), call(0xdead, "x")});
  return FR;
}

static tp::SharedMemoryFinalizeRequest sharedMulti() {
  tp::SharedMemoryFinalizeRequest FR;
  FR.Segments.push_back({rag(1), Addr(A1), 0x1000});
  FR.Segments.push_back({rag(5), Addr(A2), 0x3000});
  FR.Segments.push_back({rag(0xf), Addr(UINT64_MAX), UINT64_MAX});
  FR.Actions.push_back({call(RegEH, rangeArgs(A1, A1 + 8)),
                        call(DeregEH, rangeArgs(A1, A1 + 8))});
  return FR;
}

static SimpleRemoteEPCExecutorInfo setupStock() {
  SimpleRemoteEPCExecutorInfo SI;
  SI.TargetTriple = "x86_64-pc-linux-gnu";
  SI.PageSize = 4096;
  SI.BootstrapSymbols["__llvm_orc_SimpleRemoteEPC_dispatch_ctx"] =
      Addr(0x55dce7aa5e20);
  SI.BootstrapSymbols["__llvm_orc_SimpleRemoteEPC_dispatch_fn"] =
      Addr(0x55dce7a9b0b0);
  SI.BootstrapSymbols["__llvm_orc_bootstrap_run_as_main_wrapper"] =
      Addr(0x55dce7aa5e20 + 0x40);
  return SI;
}

static void gen() {
  // Scalars (SimplePackedSerializationTest: Bool..UInt64, SizeT).
  good("bool/false", Kbool::enc(false));
  good("bool/true", Kbool::enc(true));
  good("char/zero", Kchar::enc('\0'));
  good("char/a", Kchar::enc('a'));
  good("char/0xaa", Kchar::enc(static_cast<char>(0xaa)));
  good("char/0xff", Kchar::enc(static_cast<char>(0xff)));
  good("i8/zero", Ki8::enc(0));
  good("i8/one", Ki8::enc(1));
  good("i8/minus-one", Ki8::enc(-1));
  good("i8/min", Ki8::enc(INT8_MIN));
  good("i8/max", Ki8::enc(INT8_MAX));
  good("i16/zero", Ki16::enc(0));
  good("i16/one", Ki16::enc(1));
  good("i16/minus-one", Ki16::enc(-1));
  good("i16/min", Ki16::enc(INT16_MIN));
  good("i16/max", Ki16::enc(INT16_MAX));
  good("i32/zero", Ki32::enc(0));
  good("i32/one", Ki32::enc(1));
  good("i32/minus-one", Ki32::enc(-1));
  good("i32/min", Ki32::enc(INT32_MIN));
  good("i32/max", Ki32::enc(INT32_MAX));
  good("i64/zero", Ki64::enc(0));
  good("i64/one", Ki64::enc(1));
  good("i64/minus-one", Ki64::enc(-1));
  good("i64/min", Ki64::enc(INT64_MIN));
  good("i64/max", Ki64::enc(INT64_MAX));
  good("u8/zero", Ku8::enc(0));
  good("u8/one", Ku8::enc(1));
  good("u8/max", Ku8::enc(UINT8_MAX));
  good("u16/zero", Ku16::enc(0));
  good("u16/one", Ku16::enc(1));
  good("u16/0x1234", Ku16::enc(0x1234));
  good("u16/max", Ku16::enc(UINT16_MAX));
  good("u32/zero", Ku32::enc(0));
  good("u32/one", Ku32::enc(1));
  good("u32/0x12345678", Ku32::enc(0x12345678));
  good("u32/max", Ku32::enc(UINT32_MAX));
  good("u64/zero", Ku64::enc(0));
  good("u64/one", Ku64::enc(1));
  good("u64/0x0123456789abcdef", Ku64::enc(0x0123456789abcdefULL));
  good("u64/max", Ku64::enc(UINT64_MAX));
  good("size/zero", Ksize::enc(0));
  good("size/42", Ksize::enc(42));
  good("size/max", Ksize::enc(SIZE_MAX));
  good("empty/empty", Kempty::enc(SPSEmpty()));
  good("addr/null", Kaddr::enc(Addr()));
  good("addr/typical", Kaddr::enc(Addr(A1)));
  good("addr/max", Kaddr::enc(Addr(UINT64_MAX)));
  good("addrrange/empty", Kaddrrange::enc(ExecutorAddrRange()));
  good("addrrange/typical",
       Kaddrrange::enc(ExecutorAddrRange(Addr(A1 + 0x28), Addr(A1 + 0x64))));
  good("addrrange/inverted",
       Kaddrrange::enc(ExecutorAddrRange(Addr(A2), Addr(A1))));
  good("addrrange/max",
       Kaddrrange::enc(ExecutorAddrRange(Addr(0), Addr(UINT64_MAX))));

  // Strings and byte sequences.
  good("string/empty", Kstring::enc(""));
  good("string/hello", Kstring::enc("hello"));
  good("string/embedded-nul", Kstring::enc(std::string("a\0b\0", 4)));
  good("string/utf8", Kstring::enc("h\xc3\xa9llo \xe2\x82\xac"));
  good("string/256", Kstring::enc(seq(0, 256)));
  bad("string/truncated", trunc(Kstring::enc("hello"), 2));
  bad("string/no-length", trunc(Kstring::enc(""), 3));
  trailing("string/trailing", Kstring::enc("hi") + "junk", 4);
  good("bytes/empty", Kbytes::enc({}));
  good("bytes/all-256", Kbytes::enc([] {
         std::string S = seq(0, 256);
         return std::vector<char>(S.begin(), S.end());
       }()));
  good("bytesview/empty", Kbytesview::enc(ArrayRef<char>()));
  good("bytesview/embedded-nul", Kbytesview::enc(aref(NulX)));
  good("bytesview/page", Kbytesview::enc(aref(Page)));
  bad("bytesview/truncated", trunc(Kbytesview::enc(aref(Page)), 1));

  // Sequences (SequenceSerialization, ExecutorAddr sequences, memory reads).
  good("seq-u8/empty", Kseq_u8::enc({}));
  good("seq-u8/values", Kseq_u8::enc({0, 1, 0x7f, 0x80, 0xff}));
  good("seq-u16/values", Kseq_u16::enc({0, 1, 0xabcd, 0xffff}));
  good("seq-u32/empty", Kseq_u32::enc({}));
  good("seq-u32/values", Kseq_u32::enc({0, 1, 0xdeadbeef, 0xffffffff}));
  good("seq-u32/1000", Kseq_u32::enc([] {
         std::vector<uint32_t> V;
         for (uint32_t I = 0; I < 1000; ++I)
           V.push_back(I * 2654435761u);
         return V;
       }()));
  bad("seq-u32/truncated", trunc(Kseq_u32::enc({1, 2, 3}), 1));
  good("seq-u64/values", Kseq_u64::enc({0, UINT64_MAX, 0x0123456789abcdefULL}));
  good("seq-i32/vector", Kseq_i32::enc({1, 2, -3, INT32_MIN, INT32_MAX}));
  good("seq-addr/empty", Kseq_addr::enc({}));
  good("seq-addr/three", Kseq_addr::enc({Addr(A1), Addr(0), Addr(UINT64_MAX)}));
  good("seq-string/empty", Kseq_string::enc({}));
  good("seq-string/args", Kseq_string::enc({"a", "", "hello world"}));
  good("seq-bytes/nested", Kseq_bytes::enc({{}, {1}, {0xff, 0, 0x10}}));
  good("seq-addrrange/two",
       Kseq_addrrange::enc({ExecutorAddrRange(Addr(A1), Addr(A1 + 16)),
                            ExecutorAddrRange()}));

  // Tuples and optionals.
  good("tuple2/pair", Ktuple2::enc({42, "foo"}));
  good("tuple3/i32-string-bool", Ktuple3::enc({-7, "foo", true}));
  good("tuple3/zero", Ktuple3::enc({0, "", false}));
  bad("tuple3/truncated", trunc(Ktuple3::enc({-7, "foo", true}), 1));
  good("optional-u64/none", Koptional_u64::enc(std::nullopt));
  good("optional-u64/some-42", Koptional_u64::enc(42));
  good("optional-u64/some-max", Koptional_u64::enc(UINT64_MAX));
  bad("optional-u64/truncated", trunc(Koptional_u64::enc(42), 1));
  good("optional-string/none", Koptional_string::enc(std::nullopt));
  good("optional-string/some-empty", Koptional_string::enc(std::string()));
  good("optional-string/some", Koptional_string::enc(std::string("x")));

  // Maps (StringMap: iteration order is LLVM's hash order).
  {
    StringMap<uint64_t> M;
    good("map-string-u64/empty", Kmap_string_u64::enc(M));
    M["one"] = 1;
    good("map-string-u64/one", Kmap_string_u64::enc(M));
    M["two"] = 2;
    M[""] = UINT64_MAX;
    good("map-string-u64/three", Kmap_string_u64::enc(M));
    using Kpairs = K<L<SPSSequence<SPSTuple<SPSString, uint64_t>>>,
                     L<std::vector<std::pair<std::string, uint64_t>>>>;
    bad("map-string-u64/dup-key", Kpairs::enc({{"a", 1}, {"b", 2}, {"a", 3}}));
    StringMap<std::vector<char>> B;
    B["darwin-use-ehframes-only"] = {1};
    good("map-string-bytes/one", Kmap_string_bytes::enc(B));
  }

  // Errors and expecteds (SerializeError*, SerializeExpected*).
  good("error/success", Kerror::enc(SErr{false, ""}));
  good("error/failure", Kerror::enc(SErr{true, "crushed by boulder"}));
  good("error/empty-message", Kerror::enc(SErr{true, ""}));
  bad("error/truncated", trunc(Kerror::enc(SErr{true, "boulder"}), 3));
  good("expected-u32/value", Kexpected_u32::enc(SExp<uint32_t>{true, 42, ""}));
  good("expected-u32/error",
       Kexpected_u32::enc(SExp<uint32_t>{false, 0, "N is not a multiple of 2"}));
  bad("expected-u32/truncated",
      trunc(Kexpected_u32::enc(SExp<uint32_t>{true, 42, ""}), 1));
  good("expected-addr/value",
       Kexpected_addr::enc(SExp<Addr>{true, Addr(A3), ""}));
  good("expected-addr/error", Kexpected_addr::enc(SExp<Addr>{
                                  false, Addr(), "Cannot allocate memory"}));

  // Symbols.
  good("jitsymbolflags/none", Kjitsymbolflags::enc(JITSymbolFlags()));
  good("jitsymbolflags/exported",
       Kjitsymbolflags::enc(JITSymbolFlags(JITSymbolFlags::Exported)));
  good("jitsymbolflags/callable-weak-target",
       Kjitsymbolflags::enc(JITSymbolFlags(
           JITSymbolFlags::Callable | JITSymbolFlags::Weak |
               JITSymbolFlags::Exported,
           0x5a)));
  good("jitsymbolflags/all-ones",
       Kjitsymbolflags::enc(JITSymbolFlags(
           static_cast<JITSymbolFlags::FlagNames>(0xff), 0xff)));
  good("symboldef/printf",
       Ksymboldef::enc(ExecutorSymbolDef(Addr(0x7f285f8705b0),
                                         JITSymbolFlags::Exported)));
  good("symboldef/max",
       Ksymboldef::enc(ExecutorSymbolDef(
           Addr(UINT64_MAX),
           JITSymbolFlags(static_cast<JITSymbolFlags::FlagNames>(0xff), 0xff))));
  good("lookupelement/weak", Klookupelement::enc({"printf", false}));
  good("lookupelement/required-empty", Klookupelement::enc({"", true}));
  good("lookupset/empty", Klookupset::enc({}));
  good("lookupset/mixed",
       Klookupset::enc({{"printf", false},
                        {"_ZTVN10__cxxabiv120__si_class_type_infoE", true},
                        {"", false}}));
  good("lookupresult/mixed",
       Klookupresult::enc(
           {ExecutorSymbolDef(Addr(0x7f285f8705b0), JITSymbolFlags::Exported),
            std::nullopt,
            ExecutorSymbolDef(Addr(0), JITSymbolFlags::Exported)}));

  // Wrapper calls and allocation actions (SPSAllocActionTest).
  good("wrappercall/null", Kwrappercall::enc(call(0, "")));
  good("wrappercall/ehframe", Kwrappercall::enc(call(RegEH, rangeArgs(A1, A2))));
  good("wrappercall/big-args", Kwrappercall::enc(call(0xfeed, seq(0x20, 100))));
  good("actionpair/null-null", Kactionpair::enc({call(0, ""), call(0, "")}));
  good("actionpair/ehframe",
       Kactionpair::enc({call(RegEH, rangeArgs(A1 + 0x28, A1 + 0x64)),
                         call(DeregEH, rangeArgs(A1 + 0x28, A1 + 0x64))}));
  good("actionpair/dealloc-only-empty-args",
       Kactionpair::enc({call(0, ""), call(0x1234, "")}));

  // SPSRemoteAllocGroup: all 16 combinations (SPSMemoryFlagsTest), plus
  // LLVM's canonicalization of undefined bits.
  for (unsigned W = 0; W < 16; ++W) {
    char Name[32];
    std::snprintf(Name, sizeof Name, "allocgroup/0x%02x", W);
    good(Name, Kallocgroup::enc(rag(W)));
  }
  canon("allocgroup/noncanon-0xf5", std::string(1, '\xf5'), std::string(1, '\x05'));
  canon("allocgroup/noncanon-0x30", std::string(1, '\x30'), std::string(1, '\x00'));

  // Finalize requests.
  good("segfinalize/typical",
       Ksegfinalize::enc({rag(5), Addr(A2), 0x1000, aref(Text)}));
  good("segfinalize/empty-content",
       Ksegfinalize::enc({rag(3), Addr(A1), 0, ArrayRef<char>()}));
  good("segfinalize/max",
       Ksegfinalize::enc({rag(0xf), Addr(UINT64_MAX), UINT64_MAX, aref(Page)}));
  {
    std::string B = Ksegfinalize::enc({rag(5), Addr(A2), 0x1000, aref(Text)});
    std::string C = B;
    B[0] = '\xf5';
    canon("segfinalize/noncanon-group", B, C);
  }
  good("finalize/empty", Kfinalize::enc(tp::FinalizeRequest()));
  good("finalize/capture-a", Kfinalize::enc(captureA()));
  good("finalize/multi", Kfinalize::enc(multi()));
  bad("finalize/truncated-content", trunc(Kfinalize::enc(captureA()), 75));
  bad("finalize/truncated-action", trunc(Kfinalize::enc(captureA()), 1));
  trailing("finalize/trailing", Kfinalize::enc(captureA()) + std::string(3, '\0'),
           3);
  good("sharedseg/typical", Ksharedseg::enc({rag(3), Addr(A1), 0x2000}));
  good("sharedfinalize/empty",
       Ksharedfinalize::enc(tp::SharedMemoryFinalizeRequest()));
  good("sharedfinalize/multi", Ksharedfinalize::enc(sharedMulti()));

  // Memory-access write elements.
  good("u8write/max", Ku8write::enc(tp::UInt8Write(Addr(A1), 0xff)));
  good("u16write/typical", Ku16write::enc(tp::UInt16Write(Addr(A1), 0xabcd)));
  good("u32write/typical", Ku32write::enc(tp::UInt32Write(Addr(A1), 0xdeadbeef)));
  good("u64write/max",
       Ku64write::enc(tp::UInt64Write(Addr(UINT64_MAX), UINT64_MAX)));
  good("pointerwrite/probe1",
       Kpointerwrite::enc(tp::PointerWrite(Addr(0x7f9593670008),
                                           Addr(0x1122334455667788))));
  good("bufferwrite/empty", Kbufferwrite::enc(tp::BufferWrite(Addr(A1), {})));
  good("bufferwrite/text", Kbufferwrite::enc(tp::BufferWrite(Addr(A2), aref(Text))));

  // Setup payload (protocol.md §3).
  good("setup/empty", Ksetup::enc(SimpleRemoteEPCExecutorInfo{"", 0, {}, {}}));
  good("setup/stock-like", Ksetup::enc(setupStock()));
  {
    SimpleRemoteEPCExecutorInfo SI = setupStock();
    SI.TargetTriple = "aarch64-unknown-linux-gnu";
    SI.PageSize = 16384;
    SI.BootstrapMap["darwin-use-ehframes-only"] = {1};
    SI.BootstrapMap["empty-value"] = {};
    good("setup/with-map", Ksetup::enc(SI));
  }
  {
    using Ksetuplists =
        K<L<SPSSimpleRemoteEPCExecutorInfo>,
          L<std::tuple<std::string, uint64_t,
                       std::vector<std::pair<std::string, std::vector<char>>>,
                       std::vector<std::pair<std::string, Addr>>>>>;
    bad("setup/dup-symbol",
        Ksetuplists::enc({"x86_64-pc-linux-gnu",
                          4096,
                          {},
                          {{"__llvm_orc_SimpleRemoteEPC_dispatch_fn", Addr(1)},
                           {"other", Addr(2)},
                           {"__llvm_orc_SimpleRemoteEPC_dispatch_fn", Addr(3)}}}));
    bad("setup/dup-map-key",
        Ksetuplists::enc({"x86_64-pc-linux-gnu",
                          4096,
                          {{"k", {1}}, {"k", {2}}},
                          {{"s", Addr(1)}}}));
  }
  bad("setup/truncated", trunc(Ksetup::enc(setupStock()), 1));

  // Wrapper-function argument lists and results (protocol.md §5 examples).
  good("args-reserve/capture-a", Kargs_reserve::enc(Addr(Inst), 0x1000));
  good("args-reserve/1GiB", Kargs_reserve::enc(Addr(Inst), 0x40000000));
  bad("args-reserve/3-bytes", std::string("\x10\xbc\x98", 3));
  trailing("args-reserve/trailing",
           Kargs_reserve::enc(Addr(Inst), 0x1000) + "xyz", 3);
  good("ret-reserve/ok", KretExpAddr::enc(SExp<Addr>{true, Addr(0x7f286156b000), ""}));
  good("ret-reserve/enomem",
       KretExpAddr::enc(SExp<Addr>{false, Addr(), "Cannot allocate memory"}));
  good("args-initialize/capture-a", Kargs_initialize::enc(Addr(Inst), captureA()));
  good("args-initialize/multi", Kargs_initialize::enc(Addr(Inst), multi()));
  good("ret-initialize/ok", KretExpAddr::enc(SExp<Addr>{true, Addr(A1), ""}));
  good("ret-initialize/empty-request",
       KretExpAddr::enc(SExp<Addr>{false, Addr(), "Finalization request is empty"}));
  good("args-deinitialize/two",
       Kargs_addrs::enc(Addr(Inst), {Addr(A1), Addr(A3)}));
  good("ret-deinitialize/ok", KretError::enc(SErr{false, ""}));
  good("ret-deinitialize/joined",
       KretError::enc(SErr{true, "In deinitialize, address 0x1 is not part of "
                                 "any reserved address range\nIn deinitialize, "
                                 "address 0x2 is not part of any reserved "
                                 "address range"}));
  good("args-release/empty", Kargs_addrs::enc(Addr(Inst), {}));
  good("args-release/one", Kargs_addrs::enc(Addr(Inst), {Addr(A1)}));
  good("ret-release/ok", KretError::enc(SErr{false, ""}));
  good("args-open/process", Kargs_open::enc(Addr(0x55dd1398bee0), "", 0));
  good("args-open/libstdcxx",
       Kargs_open::enc(Addr(0x55dd1398bee0),
                       "/usr/lib/gcc/x86_64-linux-gnu/12/libstdc++.so", 0));
  good("ret-open/ok", KretExpAddr::enc(SExp<Addr>{true, Addr(0x7f2850000b70), ""}));
  good("ret-open/dlerror",
       KretExpAddr::enc(SExp<Addr>{false, Addr(),
                                   "/nonexistent/libx.so: cannot open shared "
                                   "object file: No such file or directory"}));
  good("args-resolve/printf",
       Kargs_resolve::enc(Addr(0x7f2850000b70), {{"printf", false}}));
  good("args-resolve/empty", Kargs_resolve::enc(Addr(0x7f2850000b70), {}));
  good("ret-resolve/printf",
       Kret_resolve::enc(SExp<tp::LookupResult>{
           true,
           {ExecutorSymbolDef(Addr(0x7f285f8705b0), JITSymbolFlags::Exported)},
           ""}));
  good("ret-resolve/empty", Kret_resolve::enc(SExp<tp::LookupResult>{true, {}, ""}));
  good("ret-resolve/mixed",
       Kret_resolve::enc(SExp<tp::LookupResult>{
           true,
           {std::nullopt,
            ExecutorSymbolDef(Addr(0), JITSymbolFlags::Exported),
            ExecutorSymbolDef(Addr(0x7f285f8705b0), JITSymbolFlags::Exported)},
           ""}));
  good("ret-resolve/error",
       Kret_resolve::enc(SExp<tp::LookupResult>{
           false, {}, "Required address for empty symbol \"\""}));
  good("args-resolve23/printf",
       Kargs_resolve23::enc(Addr(0x55dd1398bee0), Addr(0x7f2850000b70),
                            {{"printf", false}, {"main", true}}));
  good("ret-resolve23/mixed",
       Kret_resolve23::enc(SExp<std::vector<std::optional<Addr>>>{
           true, {std::nullopt, Addr(0), Addr(0x7f285f8705b0)}, ""}));
  good("ret-resolve23/error",
       Kret_resolve23::enc(SExp<std::vector<std::optional<Addr>>>{
           false, {}, "Required address for empty symbol \"\""}));
  good("args-read-buffers-sized/two",
       Kargs_read_buffers_sized::enc({{Addr(A1), 5}, {Addr(A2), 0}}));
  good("args-write-uint8s/two",
       Kargs_write_uint8s::enc({{Addr(A1), 0}, {Addr(A1 + 1), 0xff}}));
  good("args-write-uint16s/one", Kargs_write_uint16s::enc({{Addr(A1), 0xabcd}}));
  good("args-write-uint32s/one",
       Kargs_write_uint32s::enc({{Addr(A1), 0xdeadbeef}}));
  good("args-write-uint64s/one",
       Kargs_write_uint64s::enc({{Addr(A1), 0x0123456789abcdefULL}}));
  good("args-write-pointers/probe1",
       Kargs_write_pointers::enc(
           {tp::PointerWrite(Addr(0x7f9593670008), Addr(0x1122334455667788))}));
  good("args-write-buffers/two",
       Kargs_write_buffers::enc({tp::BufferWrite(Addr(A1), aref(Text)),
                                 tp::BufferWrite(Addr(A2), {})}));
  good("args-write-uint8s/empty", Kargs_write_uint8s::enc({}));
  good("ret-write/void", KretVoid::enc(SPSEmpty()));
  good("args-read-uint8s/one", Kargs_read::enc({Addr(A1)}));
  good("args-read-uint16s/one", Kargs_read::enc({Addr(A1 + 2)}));
  good("args-read-uint32s/two", Kargs_read::enc({Addr(A1), Addr(A1 + 4)}));
  good("args-read-uint64s/empty", Kargs_read::enc({}));
  good("args-read-pointers/one", Kargs_read::enc({Addr(A2)}));
  good("args-read-buffers/two",
       Kargs_read_buffers::enc({ExecutorAddrRange(Addr(A1), Addr(A1 + 5)),
                                ExecutorAddrRange(Addr(A2), Addr(A2))}));
  good("args-read-strings/one", Kargs_read::enc({Addr(A1)}));
  good("ret-read-uint8s/two", Kseq_u8::enc({0x2a, 0xff}));
  good("ret-read-uint16s/probe1", Kseq_u16::enc({0xabcd}));
  good("ret-read-uint32s/one", Kseq_u32::enc({0xdeadbeef}));
  good("ret-read-uint64s/one", Kseq_u64::enc({UINT64_MAX}));
  good("ret-read-pointers/one", Kseq_addr::enc({Addr(A3)}));
  good("ret-read-buffers/two", Kseq_bytes::enc({{'h', 'e', 'l', 'l', 'o'}, {}}));
  good("ret-read-strings/probe1", Kseq_string::enc({"hello"}));
  good("args-run-as-main/capture-a",
       Kargs_run_as_main::enc(Addr(0x7f286156a000), {"a", "b"}));
  good("args-run-as-main/no-args", Kargs_run_as_main::enc(Addr(A2), {}));
  good("ret-run-as-main/seven", Kret_i64::enc(7));
  good("ret-run-as-main/minus-one", Kret_i64::enc(-1));
  good("args-run-as-void/getpid", Kaddr::enc(Addr(0x7f9591c5b0b0)));
  good("ret-run-as-void/pid", Kret_i32::enc(0x37a7));
  good("args-run-as-int/abs", Kargs_run_as_int::enc(Addr(0x7f9591c5b0b0), -77));
  good("ret-run-as-int/77", Kret_i32::enc(77));
  good("args-register-ehframe/capture-a",
       Kaddrrange::enc(ExecutorAddrRange(Addr(A1 + 0x28), Addr(A1 + 0x64))));
  good("args-deregister-ehframe/capture-a",
       Kaddrrange::enc(ExecutorAddrRange(Addr(A1 + 0x28), Addr(A1 + 0x64))));
  good("args-register-gdb/auto",
       Kargs_register_gdb::enc(ExecutorAddrRange(Addr(A1), Addr(A1 + 0x800)), true));
  good("args-register-gdb/manual",
       Kargs_register_gdb::enc(ExecutorAddrRange(Addr(A1), Addr(A1 + 0x800)), false));
  good("ret-action/ok", KretError::enc(SErr{false, ""}));
  good("ret-action/failure",
       KretError::enc(SErr{true, "Could not deserialize arguments for wrapper "
                                 "function call"}));
  good("args-shm-reserve/typical", Kargs_reserve::enc(Addr(Inst), 0x10000));
  good("ret-shm-reserve/ok",
       Kret_shm_reserve::enc(SExp<std::pair<Addr, std::string>>{
           true, {Addr(A1), "/jitlink_shm_1234_0"}, ""}));
  good("ret-shm-reserve/error",
       Kret_shm_reserve::enc(SExp<std::pair<Addr, std::string>>{
           false, {}, "shm_open failed"}));
  good("args-shm-initialize/multi",
       Kargs_shm_initialize::enc(Addr(Inst), Addr(A1), sharedMulti()));
  good("ret-shm-initialize/ok", KretExpAddr::enc(SExp<Addr>{true, Addr(A1), ""}));
  good("args-shm-deinitialize/one", Kargs_addrs::enc(Addr(Inst), {Addr(A1)}));
  good("args-shm-release/two", Kargs_addrs::enc(Addr(Inst), {Addr(A1), Addr(A2)}));
  good("args-push-initializers/dso", Kaddr::enc(Addr(0x7f2850001000)));
  good("ret-push-initializers/deps",
       Kret_push_initializers::enc(SExp<InitDeps>{
           true,
           {{Addr(0x7f2850001000), {Addr(0x7f2850002000), Addr(0x7f2850003000)}},
            {Addr(0x7f2850002000), {}}},
           ""}));
  good("ret-push-initializers/error",
       Kret_push_initializers::enc(SExp<InitDeps>{false, {}, "no such DSO"}));
  good("args-symbol-lookup/main",
       Kargs_symbol_lookup::enc(Addr(0x7f2850001000), "main"));
  good("ret-symbol-lookup/ok", KretExpAddr::enc(SExp<Addr>{true, Addr(A2), ""}));
  good("args-lazy-resolve/trampoline", Kaddr::enc(Addr(0x7f2850004010)));
  good("ret-lazy-resolve/ok",
       Kret_lazy_resolve::enc(SExp<ExecutorSymbolDef>{
           true,
           ExecutorSymbolDef(Addr(A2), JITSymbolFlags::Exported |
                                           JITSymbolFlags::Callable),
           ""}));
  good("ret-lazy-resolve/error",
       Kret_lazy_resolve::enc(SExp<ExecutorSymbolDef>{false, {}, "not found"}));
  {
    // A link graph of two functions with line tables and an unwinding
    // record whose .eh_frame_hdr travels as bytes; then an empty batch.
    PerfJITRecordBatch B;
    B.CodeLoadRecords.push_back(
        {{PerfJITRecordType::JIT_CODE_LOAD, 0x4e}, 1234, 1235, A1, A1, 0x11, 0, "main"});
    B.CodeLoadRecords.push_back({{PerfJITRecordType::JIT_CODE_LOAD, 0x52},
                                 1234, 1235, A1 + 0x20, A1 + 0x20, 0x13, 1, "hot_loop"});
    B.DebugInfoRecords.push_back(
        {{PerfJITRecordType::JIT_CODE_DEBUG_INFO, 0x40},
         A1,
         {{A1, 9, 0, "/app/hot.c"}, {A1 + 4, 10, 1, "/app/hot.c"}}});
    B.UnwindingRecord = {{PerfJITRecordType::JIT_CODE_UNWINDING_INFO, 0x68},
                         0x40, 0x0c, 0, 0, std::string("\x01\x0c\xff\xff\x08\x10\x00\x00\x5a\x7f\x00\x00", 12),
                         A1 + 0x1000};
    good("args-perf-impl/graph", Kargs_perf_impl::enc(B));
    bad("args-perf-impl/truncated", trunc(Kargs_perf_impl::enc(B), 1));
    good("args-perf-impl/empty", Kargs_perf_impl::enc(PerfJITRecordBatch{}));
  }
}

static int check(const char *Path) {
  std::ifstream In(Path);
  if (!In)
    die(std::string("cannot open ") + Path);
  std::string Line;
  while (std::getline(In, Line)) {
    if (Line.empty() || Line[0] == '#')
      continue;
    size_t Sp = Line.find(' ');
    if (Sp == std::string::npos)
      die("malformed line: " + Line);
    std::string Name = Line.substr(0, Sp), Bytes;
    if (!unhex(Line.substr(Sp + 1), Bytes))
      die("malformed hex for " + Name);
    Res R = checkNamed(Name, Bytes);
    if (!R.OK) {
      std::printf("%s fail\n", Name.c_str());
      continue;
    }
    std::printf("%s ok %zu %s %s\n", Name.c_str(), R.Consumed,
                R.Reenc.empty() ? "-" : hex(R.Reenc).c_str(), R.Render.c_str());
  }
  return 0;
}

int main(int Argc, char **Argv) {
  if (Argc == 2 && std::string(Argv[1]) == "gen") {
    gen();
    return 0;
  }
  if (Argc == 3 && std::string(Argv[1]) == "check")
    return check(Argv[2]);
  std::fprintf(stderr, "usage: golden gen | golden check FILE\n");
  return 2;
}
