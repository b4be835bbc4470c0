//go:build libfuzzer

// oracle.cpp: LLVM 22's own SPS deserializers as the oracle for orcrt's
// decoder (fuzz/spsfuzz, FuzzLLVM and TestLLVMOracle).
//
// For each shape of fuzz/spsfuzz/shapes.go that is a wire shape, the table
// below binds the shape's name to the SPS tags LLVM declares for it and
// to the C++ types LLVM's executor and controller decode it into
// (SimplePackedSerialization.h and the ORC headers that specialize it).
// orcrt_llvm_oracle decodes one message with SPSArgList<Tags...>::
// deserialize and compares LLVM's decision with orcrt's:
//
//   - both accept or both reject (LLVM's decoder reserves a sequence's
//     wire count before reading its elements: the std::bad_alloc or
//     std::length_error that throws, or the abort of LLVM's own
//     SmallVector, turned into an exception here, counts as a rejection:
//     no value);
//   - on acceptance, both consumed the same number of bytes, and orcrt's
//     re-encoding of its value is byte for byte LLVM's re-serialization
//     of LLVM's value. For shapes LLVM decodes into a StringMap (whose
//     iteration order is its hash order, not the wire's) orcrt's
//     re-encoding must instead decode with LLVM, consume every byte and
//     give a value equal (operator==) to LLVM's own.
//
// Built two ways: into the libFuzzer shim of this directory by cgo (the
// Go side calls orcrt_llvm_oracle in the same process), and as a program
// (-DORCRT_ORACLE_MAIN) that the Go test feeds the checked-in corpus:
//
//   oracle shapes   print the names of the shapes it covers, one a line
//   oracle check    read "SHAPE MSGHEX OK CONSUMED ENCHEX" lines ('-' is
//                   empty hex; OK is 1 when orcrt accepted) and print one
//                   line each: "agree", "disagree REASON", "undefined"
//                   (LLVM's answer is undefined behaviour: see Undefined)
//                   or "unknown".
//
// Compile with -std=c++17 -I/usr/lib/llvm-22/include -fsanitize=bool
// -fsanitize-minimal-runtime -c, exceptions on (not llvm-config
// --cxxflags, which turns them off), and link without -fsanitize=bool
// (this file has the handler) against libLLVM-22 (StringMap).

#include "llvm/ExecutionEngine/Orc/Shared/AllocationActions.h"
#include "llvm/ExecutionEngine/Orc/Shared/ExecutorAddress.h"
#include "llvm/ExecutionEngine/Orc/Shared/ExecutorSymbolDef.h"
#include "llvm/ExecutionEngine/Orc/Shared/MemoryFlags.h"
#include "llvm/ExecutionEngine/Orc/Shared/PerfSharedStructs.h"
#include "llvm/ExecutionEngine/Orc/Shared/SimplePackedSerialization.h"
#include "llvm/ExecutionEngine/Orc/Shared/SimpleRemoteEPCUtils.h"
#include "llvm/ExecutionEngine/Orc/Shared/TargetProcessControlTypes.h"
#include "llvm/ExecutionEngine/Orc/Shared/WrapperFunctionUtils.h"
#include "llvm/Support/ErrorHandling.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "oracle.h"

using namespace llvm;
using namespace llvm::orc;
using namespace llvm::orc::shared;
namespace sd = llvm::orc::shared::detail;
namespace tp = llvm::orc::tpctypes;

namespace {

template <typename... Ts> struct L {};

// Equality for the values of shapes compared by value (those holding a
// StringMap). StringMap, std::vector, std::tuple and ExecutorAddr have
// operator==; LLVM's Setup struct does not.
template <typename T> bool same(const T &A, const T &B) { return A == B; }
bool same(const SimpleRemoteEPCExecutorInfo &A,
          const SimpleRemoteEPCExecutorInfo &B) {
  return A.TargetTriple == B.TargetTriple && A.PageSize == B.PageSize &&
         A.BootstrapMap == B.BootstrapMap &&
         A.BootstrapSymbols == B.BootstrapSymbols;
}
template <typename... Ts>
bool sameAll(const std::tuple<Ts...> &A, const std::tuple<Ts...> &B) {
  return std::apply(
      [&](const auto &...X) {
        return std::apply(
            [&](const auto &...Y) { return (same(X, Y) && ...); }, B);
      },
      A);
}

std::string hex(const std::string &S) {
  static const char *D = "0123456789abcdef";
  std::string H;
  for (unsigned char C : S) {
    H += D[C >> 4];
    H += D[C & 15];
  }
  return H.empty() ? "-" : H;
}

// LLVM's SPS reads a bool by copying the wire byte into a C++ bool: a
// byte other than 0 or 1 makes every later use of that bool undefined
// behaviour (clang-22 tests its low bit in one place and copies the whole
// byte back out in another). The oracle is compiled with -fsanitize=bool
// -fsanitize-minimal-runtime, whose handler is defined in this file:
// it notes that LLVM's answer on this input is undefined, and the input is
// not judged.
thread_local bool Undefined;

// LLVMAbort is thrown by the error handlers LLVM calls where it would
// abort the process: a SmallVector (WrapperFunctionCall's argument data)
// reserving a hostile sequence count fails its allocation and calls
// report_bad_alloc_error, or overflows its capacity and calls
// report_fatal_error. The handlers throw through libLLVM's frames (built
// without exceptions, but with unwind tables) back to decode.
struct LLVMAbort {};

[[noreturn]] void throwAbort(void *, const char *, bool) { throw LLVMAbort{}; }

const bool HandlersInstalled = [] {
  install_bad_alloc_error_handler(throwAbort);
  install_fatal_error_handler(throwAbort);
  return true;
}();

struct Decoded {
  bool OK = false;
  bool Threw = false;
  size_t Consumed = 0;
};

// Shape<L<SPS tags...>, L<LLVM types...>, ByValue>: one message shape.
template <typename Tags, typename Vals, bool ByValue = false> struct Shape;
template <typename... Tags, typename... Vals, bool ByValue>
struct Shape<L<Tags...>, L<Vals...>, ByValue> {
  using AL = SPSArgList<Tags...>;
  using Tuple = std::tuple<Vals...>;

  static Decoded decode(const char *P, size_t N, Tuple &V) {
    Decoded D;
    SPSInputBuffer IB(P, N);
    try {
      D.OK = std::apply(
          [&](auto &...X) { return AL::deserialize(IB, X...); }, V);
    } catch (const std::bad_alloc &) {
      D.Threw = true;
    } catch (const std::length_error &) {
      D.Threw = true;
    } catch (const LLVMAbort &) {
      D.Threw = true;
    }
    if (D.OK)
      D.Consumed = static_cast<size_t>(IB.data() - P);
    return D;
  }

  static bool encode(const Tuple &V, std::string &Out) {
    return std::apply(
        [&](const auto &...X) {
          Out.assign(AL::size(X...), '\0');
          SPSOutputBuffer OB(Out.data(), Out.size());
          return AL::serialize(OB, X...);
        },
        V);
  }

  static std::string judge(const std::string &Msg, bool OK, size_t Consumed,
                           const std::string &Enc) {
    Undefined = false;
    std::string R = judgeDefined(Msg, OK, Consumed, Enc);
    return Undefined ? "undefined" : R;
  }

  static std::string judgeDefined(const std::string &Msg, bool OK,
                                  size_t Consumed, const std::string &Enc) {
    Tuple V;
    Decoded D = decode(Msg.data(), Msg.size(), V);
    std::string Why = D.Threw ? " (LLVM's decoder failed to reserve a sequence count)" : "";
    if (D.OK != OK)
      return std::string(OK ? "orcrt accepts, LLVM rejects" + Why
                            : "LLVM accepts, orcrt rejects") +
             (D.OK ? ", LLVM consumed " + std::to_string(D.Consumed) : "");
    if (!OK)
      return "";
    if (D.Consumed != Consumed)
      return "consumed: orcrt " + std::to_string(Consumed) + ", LLVM " +
             std::to_string(D.Consumed);
    std::string Re;
    if (!encode(V, Re))
      return "LLVM cannot re-serialize its own value";
    if (Re.size() != Enc.size())
      return "re-encoding: orcrt " + std::to_string(Enc.size()) +
             " bytes, LLVM " + std::to_string(Re.size());
    if constexpr (!ByValue) {
      return Re == Enc ? "" : "re-encodings differ: orcrt " + hex(Enc) + ", LLVM " + hex(Re);
    } else {
      Tuple W;
      Decoded E = decode(Enc.data(), Enc.size(), W);
      if (!E.OK || E.Consumed != Enc.size())
        return "LLVM does not decode orcrt's re-encoding whole";
      return sameAll(V, W) ? "" : "values differ (LLVM decoded orcrt's re-encoding)";
    }
  }
};

using Addr = ExecutorAddr;
using SErr = sd::SPSSerializableError;
template <typename T> using SExp = sd::SPSSerializableExpected<T>;

// Wire shapes, named as in fuzz/spsfuzz/shapes.go.
using Setup = Shape<L<SPSSimpleRemoteEPCExecutorInfo>, L<SimpleRemoteEPCExecutorInfo>, true>;
using SetupLLVM14 = Shape<L<SPSString, uint64_t, SPSSequence<SPSTuple<SPSString, SPSExecutorAddr>>>,
                          L<std::string, uint64_t, StringMap<Addr>>, true>;
using Finalize = Shape<L<SPSFinalizeRequest>, L<tp::FinalizeRequest>>;
using SharedFinalize = Shape<L<SPSSharedMemoryFinalizeRequest>, L<tp::SharedMemoryFinalizeRequest>>;
using Err = Shape<L<SPSError>, L<SErr>>;
using ExpAddr = Shape<L<SPSExpected<SPSExecutorAddr>>, L<SExp<Addr>>>;
using Void = Shape<L<SPSEmpty>, L<SPSEmpty>>;
using AddrOnly = Shape<L<SPSExecutorAddr>, L<Addr>>;
using AddrAddrs = Shape<L<SPSExecutorAddr, SPSSequence<SPSExecutorAddr>>, L<Addr, std::vector<Addr>>>;
using Addrs = Shape<L<SPSSequence<SPSExecutorAddr>>, L<std::vector<Addr>>>;
using AddrFinalize = Shape<L<SPSExecutorAddr, SPSFinalizeRequest>, L<Addr, tp::FinalizeRequest>>;
template <typename T> using Seq = Shape<L<SPSSequence<T>>, L<std::vector<T>>>;
template <typename T> using Scalar = Shape<L<T>, L<T>>;
using Bytes = Shape<L<SPSSequence<char>>, L<std::vector<char>>>;
template <typename V, typename T>
using StrMap = Shape<L<SPSSequence<SPSTuple<SPSString, V>>>, L<StringMap<T>>, true>;

using Judge = std::string (*)(const std::string &, bool, size_t, const std::string &);

const std::map<std::string, Judge> &table() {
  static const std::map<std::string, Judge> T = {
      {"setup", &Setup::judge},
      {"setup/llvm14", &SetupLLVM14::judge},
      {"finalize/reused", &Finalize::judge},
      {"finalize/codec", &Finalize::judge},
      {"sharedfinalize", &SharedFinalize::judge},
      {"sharedfinalize/reused", &SharedFinalize::judge},
      {"hangup", &Err::judge},
      // LLVM 22's memory manager, dylib manager, memory access, run-as,
      // registration, shared memory, ELFNix platform and lazy reexports.
      {"args/reserve", &Shape<L<SPSExecutorAddr, uint64_t>, L<Addr, uint64_t>>::judge},
      {"ret/expected-addr", &ExpAddr::judge},
      {"args/initialize", &AddrFinalize::judge},
      {"args/deinitialize", &AddrAddrs::judge},
      {"ret/error", &Err::judge},
      {"args/open", &Shape<L<SPSExecutorAddr, SPSString, uint64_t>, L<Addr, std::string, uint64_t>>::judge},
      {"args/resolve", &Shape<L<SPSExecutorAddr, SPSRemoteSymbolLookupSet>, L<Addr, RemoteSymbolLookupSet>>::judge},
      {"ret/resolve", &Shape<L<SPSExpected<SPSSequence<SPSOptional<SPSExecutorSymbolDef>>>>,
                             L<SExp<tp::LookupResult>>>::judge},
      {"args/write-uint8s", &Shape<L<SPSSequence<SPSMemoryAccessUInt8Write>>, L<std::vector<tp::UInt8Write>>>::judge},
      {"args/write-uint16s", &Shape<L<SPSSequence<SPSMemoryAccessUInt16Write>>, L<std::vector<tp::UInt16Write>>>::judge},
      {"args/write-uint32s", &Shape<L<SPSSequence<SPSMemoryAccessUInt32Write>>, L<std::vector<tp::UInt32Write>>>::judge},
      {"args/write-uint64s", &Shape<L<SPSSequence<SPSMemoryAccessUInt64Write>>, L<std::vector<tp::UInt64Write>>>::judge},
      {"args/write-pointers", &Shape<L<SPSSequence<SPSMemoryAccessPointerWrite>>, L<std::vector<tp::PointerWrite>>>::judge},
      {"args/write-buffers", &Shape<L<SPSSequence<SPSMemoryAccessBufferWrite>>, L<std::vector<tp::BufferWrite>>>::judge},
      {"ret/void", &Void::judge},
      {"args/read", &Addrs::judge},
      {"args/read-buffers", &Shape<L<SPSSequence<SPSExecutorAddrRange>>, L<std::vector<ExecutorAddrRange>>>::judge},
      {"ret/read-uint8s", &Seq<uint8_t>::judge},
      {"ret/read-uint16s", &Seq<uint16_t>::judge},
      {"ret/read-uint32s", &Seq<uint32_t>::judge},
      {"ret/read-uint64s", &Seq<uint64_t>::judge},
      {"ret/read-pointers", &Addrs::judge},
      {"ret/read-buffers", &Shape<L<SPSSequence<SPSSequence<uint8_t>>>, L<std::vector<std::vector<uint8_t>>>>::judge},
      {"ret/read-strings", &Shape<L<SPSSequence<SPSString>>, L<std::vector<std::string>>>::judge},
      {"args/run-as-main", &Shape<L<SPSExecutorAddr, SPSSequence<SPSString>>, L<Addr, std::vector<std::string>>>::judge},
      {"ret/run-as-main", &Scalar<int64_t>::judge},
      {"args/run-as-void", &AddrOnly::judge},
      {"ret/i32", &Scalar<int32_t>::judge},
      {"args/run-as-int", &Shape<L<SPSExecutorAddr, int32_t>, L<Addr, int32_t>>::judge},
      {"args/ehframe", &Shape<L<SPSExecutorAddrRange>, L<ExecutorAddrRange>>::judge},
      {"args/gdb", &Shape<L<SPSExecutorAddrRange, bool>, L<ExecutorAddrRange, bool>>::judge},
      {"ret/shm-reserve", &Shape<L<SPSExpected<SPSTuple<SPSExecutorAddr, SPSString>>>,
                                 L<SExp<std::pair<Addr, std::string>>>>::judge},
      {"args/shm-initialize", &Shape<L<SPSExecutorAddr, SPSExecutorAddr, SPSSharedMemoryFinalizeRequest>,
                                     L<Addr, Addr, tp::SharedMemoryFinalizeRequest>>::judge},
      {"args/push-initializers", &AddrOnly::judge},
      {"ret/push-initializers",
       &Shape<L<SPSExpected<SPSSequence<SPSTuple<SPSExecutorAddr, SPSSequence<SPSExecutorAddr>>>>>,
              L<SExp<std::vector<std::pair<Addr, std::vector<Addr>>>>>>::judge},
      {"args/symbol-lookup", &Shape<L<SPSExecutorAddr, SPSString>, L<Addr, std::string>>::judge},
      {"args/lazy-resolve", &AddrOnly::judge},
      {"args/perf-impl", &Shape<L<SPSPerfJITRecordBatch>, L<PerfJITRecordBatch>>::judge},
      {"ret/lazy-resolve", &Shape<L<SPSExpected<SPSExecutorSymbolDef>>, L<SExp<ExecutorSymbolDef>>>::judge},
      {"map-entries", &StrMap<uint64_t, uint64_t>::judge},
      {"u32s/reused", &Seq<uint32_t>::judge},
      // LLVM 23's resolve and orc-rt's NativeDylibManager lookup, load and
      // read_buffers (LLVM main), with LLVM 22's traits.
      {"args/resolve23", &Shape<L<SPSExecutorAddr, SPSExecutorAddr, SPSRemoteSymbolLookupSet>,
                                L<Addr, Addr, RemoteSymbolLookupSet>>::judge},
      {"ret/resolve23", &Shape<L<SPSExpected<SPSSequence<SPSOptional<SPSExecutorAddr>>>>,
                               L<SExp<std::vector<std::optional<Addr>>>>>::judge},
      {"args/load", &Shape<L<SPSExecutorAddr, SPSString>, L<Addr, std::string>>::judge},
      {"read-buffers-sized", &Shape<L<SPSSequence<SPSTuple<SPSExecutorAddr, uint64_t>>>,
                                    L<std::vector<std::pair<Addr, uint64_t>>>>::judge},
      // LLVM 14-19's signatures: their SPS tags, with LLVM 22's traits.
      {"args/finalize-llvm14", &AddrFinalize::judge},
      {"ret/finalize-llvm14", &Err::judge},
      {"args/deallocate-llvm14", &AddrAddrs::judge},
      {"args/lookup-llvm14", &Shape<L<SPSExecutorAddr, SPSExecutorAddr, SPSRemoteSymbolLookupSet>,
                                    L<Addr, Addr, RemoteSymbolLookupSet>>::judge},
      {"ret/lookup-addrs-llvm14", &Shape<L<SPSExpected<SPSSequence<SPSExecutorAddr>>>, L<SExp<std::vector<Addr>>>>::judge},
      {"ret/lookup-defs-llvm19", &Shape<L<SPSExpected<SPSSequence<SPSExecutorSymbolDef>>>,
                                        L<SExp<std::vector<ExecutorSymbolDef>>>>::judge},
      {"ret/open", &ExpAddr::judge},
      {"args/func0", &Shape<L<>, L<>>::judge},
      {"ret/func0", &ExpAddr::judge},
      // The codecs the messages are made of, alone.
      {"i8", &Scalar<int8_t>::judge},
      {"i16", &Scalar<int16_t>::judge},
      {"size", &Shape<L<uint64_t>, L<size_t>>::judge},
      {"tuple2", &Shape<L<SPSTuple<int32_t, SPSString>>, L<std::pair<int32_t, std::string>>>::judge},
      {"tuple3", &Shape<L<SPSTuple<int32_t, SPSString, bool>>, L<std::tuple<int32_t, std::string, bool>>>::judge},
      {"optional-u64", &Shape<L<SPSOptional<uint64_t>>, L<std::optional<uint64_t>>>::judge},
      {"optional-string", &Shape<L<SPSOptional<SPSString>>, L<std::optional<std::string>>>::judge},
      {"expected-u32", &Shape<L<SPSExpected<uint32_t>>, L<SExp<uint32_t>>>::judge},
      {"bytes/copy", &Bytes::judge},
      {"bytes/raw", &Bytes::judge},
      {"map-string-u64", &StrMap<uint64_t, uint64_t>::judge},
      {"map-string-bytes", &StrMap<SPSSequence<char>, std::vector<char>>::judge},
      {"map-string-bytes/entries", &StrMap<SPSSequence<char>, std::vector<char>>::judge},
      {"jitsymbolflags", &Shape<L<SPSJITSymbolFlags>, L<JITSymbolFlags>>::judge},
      {"symboldef", &Shape<L<SPSExecutorSymbolDef>, L<ExecutorSymbolDef>>::judge},
      {"wrappercall", &Shape<L<SPSWrapperFunctionCall>, L<WrapperFunctionCall>>::judge},
      {"actionpair", &Shape<L<SPSAllocActionCallPair>, L<AllocActionCallPair>>::judge},
      {"allocgroup", &Shape<L<SPSRemoteAllocGroup>, L<tp::RemoteAllocGroup>>::judge},
      {"segfinalize", &Shape<L<SPSSegFinalizeRequest>, L<tp::SegFinalizeRequest>>::judge},
      {"sharedseg", &Shape<L<SPSSharedMemorySegFinalizeRequest>, L<tp::SharedMemorySegFinalizeRequest>>::judge},
      {"addrrange", &Shape<L<SPSExecutorAddrRange>, L<ExecutorAddrRange>>::judge},
      {"prims", &Shape<L<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, uint64_t, int64_t, bool, SPSExecutorAddr>,
                       L<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, uint64_t, int64_t, bool, Addr>>::judge},
      {"u8s/reused", &Seq<uint8_t>::judge},
      {"u16s/reused", &Seq<uint16_t>::judge},
      {"u64s/reused", &Seq<uint64_t>::judge},
      {"addrs/reused", &Addrs::judge},
      {"seq-i8", &Seq<int8_t>::judge},
      {"seq-i16", &Seq<int16_t>::judge},
      {"seq-i32", &Seq<int32_t>::judge},
      {"seq-i64", &Seq<int64_t>::judge},
      {"seq/scalar-records",
       &Shape<L<SPSSequence<SPSTuple<SPSTuple<bool, int8_t, int16_t>, SPSTuple<int32_t, int64_t, uint64_t>,
                                     SPSTuple<SPSEmpty, SPSError, SPSExpected<uint32_t>>>>>,
              L<std::vector<std::tuple<std::tuple<bool, int8_t, int16_t>, std::tuple<int32_t, int64_t, uint64_t>,
                                       std::tuple<SPSEmpty, SErr, SExp<uint32_t>>>>>>::judge},
  };
  return T;
}

} // namespace

// The handlers of -fsanitize=bool with UBSan's minimal runtime (see
// Undefined), recoverable and not; that runtime is not linked (libFuzzer's
// link brings UBSan's full runtime, whose handlers have other names).
extern "C" void __ubsan_handle_load_invalid_value_minimal() {
  Undefined = true;
}
extern "C" void __ubsan_handle_load_invalid_value_minimal_abort() {
  Undefined = true;
}

// boolChecked reports whether this file was compiled with -fsanitize=bool:
// without it, the oracle would judge inputs on which LLVM is undefined.
static bool boolChecked() {
  static const bool Checked = [] {
    Undefined = false;
    char C = 2;
    bool B;
    std::memcpy(&B, &C, 1);
    volatile bool X = B;
    (void)X;
    bool R = Undefined;
    Undefined = false;
    return R;
  }();
  return Checked;
}

extern "C" int orcrt_llvm_oracle(const char *shape, const char *msg,
                                 size_t msglen, int ok, size_t consumed,
                                 const char *enc, size_t enclen, char *why,
                                 size_t whycap) {
  if (!boolChecked())
    return -2;
  auto I = table().find(shape);
  if (I == table().end())
    return -1;
  std::string R = I->second(std::string(msg, msglen), ok != 0, consumed,
                            std::string(enc, enclen));
  if (R.empty())
    return 1;
  if (R == "undefined")
    return 2;
  if (whycap > 0) {
    size_t N = R.size() < whycap - 1 ? R.size() : whycap - 1;
    std::memcpy(why, R.data(), N);
    why[N] = '\0';
  }
  return 0;
}

extern "C" size_t orcrt_llvm_oracle_shapes(char *buf, size_t cap) {
  std::string S;
  for (auto &E : table())
    S += E.first + "\n";
  if (cap > 0) {
    size_t N = S.size() < cap - 1 ? S.size() : cap - 1;
    std::memcpy(buf, S.data(), N);
    buf[N] = '\0';
  }
  return S.size();
}

#ifdef ORCRT_ORACLE_MAIN
static bool unhex(const std::string &H, std::string &Out) {
  Out.clear();
  if (H == "-")
    return true;
  if (H.size() % 2)
    return false;
  for (size_t I = 0; I < H.size(); I += 2) {
    unsigned V;
    if (std::sscanf(H.c_str() + I, "%2x", &V) != 1)
      return false;
    Out += static_cast<char>(V);
  }
  return true;
}

int main(int argc, char **argv) {
  std::string Cmd = argc > 1 ? argv[1] : "";
  if (Cmd == "shapes") {
    for (auto &E : table())
      std::printf("%s\n", E.first.c_str());
    return 0;
  }
  if (Cmd != "check") {
    std::fprintf(stderr, "usage: oracle shapes | oracle check < lines\n");
    return 2;
  }
  std::string Line;
  while (std::getline(std::cin, Line)) {
    std::string Msg, Enc;
    std::vector<std::string> F;
    size_t P = 0;
    while (P <= Line.size()) {
      size_t Q = Line.find(' ', P);
      if (Q == std::string::npos)
        Q = Line.size();
      F.push_back(Line.substr(P, Q - P));
      P = Q + 1;
    }
    if (F.size() != 5 || !unhex(F[1], Msg) || !unhex(F[4], Enc)) {
      std::fprintf(stderr, "oracle: bad line %s\n", Line.c_str());
      return 2;
    }
    char Why[1024];
    int R = orcrt_llvm_oracle(F[0].c_str(), Msg.data(), Msg.size(),
                              F[2] == "1", std::stoull(F[3]), Enc.data(),
                              Enc.size(), Why, sizeof Why);
    if (R == -2) {
      std::fprintf(stderr, "oracle: compiled without -fsanitize=bool\n");
      return 2;
    }
    if (R < 0)
      std::printf("unknown\n");
    else if (R == 2)
      std::printf("undefined\n");
    else if (R > 0)
      std::printf("agree\n");
    else
      std::printf("disagree %s\n", Why);
    std::fflush(stdout);
  }
  return 0;
}
#endif
