// llvmbench.cpp: LLVM 22's own SPS codec on the "finalize" benchmark shape,
// the reference that BenchmarkSPSLLVM (spsbench_test.go) reports beside
// BenchmarkSPS. Built with clang++-22 -O2 against LLVM 22's headers.
//
// The message is a FinalizeRequest of 8 segments with 4 KiB of content each
// and 4 allocation-action pairs whose finalize and dealloc calls carry 16
// bytes of arguments -- the same bytes the Go benchmark builds (the Go side
// checks this at startup).
//
//   llvmbench bytes      print the encoded message as hex
//   llvmbench serve      read "decode N" / "encode N" lines from stdin; for
//                        each, run N iterations and print "ns TOTAL SUM"
//                        (SUM keeps the work observable).
//
// decode: what LLVM does per call of the initialize wrapper
// (WrapperFunctionHandlerHelper::apply): deserialize into a fresh
// tpctypes::FinalizeRequest (its Segments and Actions vectors are allocated
// with reserve(count); segment Content is an ArrayRef into the input, not a
// copy; each action's argument bytes are copied into a
// SmallVector<char, 24>, which holds 16 bytes inline), then destroy it.
// encode: size() then serialize() into a buffer allocated once outside the
// loop (LLVM itself allocates a WrapperFunctionBuffer per call; the Go
// benchmark reuses its buffer, so the reference does too).

#include "llvm/ExecutionEngine/Orc/Shared/TargetProcessControlTypes.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

using namespace llvm;
using namespace llvm::orc;
using namespace llvm::orc::shared;
namespace tp = llvm::orc::tpctypes;

static std::string Content[8];

static tp::FinalizeRequest makeRequest() {
  tp::FinalizeRequest FR;
  for (int I = 0; I < 8; ++I) {
    Content[I].resize(4096);
    for (int J = 0; J < 4096; ++J)
      Content[I][J] = static_cast<char>(I * 31 + J);
    static const unsigned Groups[] = {1, 3, 5, 1, 3, 5, 1, 3};
    MemProt P = MemProt::None;
    if (Groups[I] & 1)
      P |= MemProt::Read;
    if (Groups[I] & 2)
      P |= MemProt::Write;
    if (Groups[I] & 4)
      P |= MemProt::Exec;
    FR.Segments.push_back({tp::RemoteAllocGroup(P, false),
                           ExecutorAddr(0x7f0000000000ULL + I * 0x1000ULL),
                           0x1000, ArrayRef<char>(Content[I])});
  }
  for (int I = 0; I < 4; ++I) {
    WrapperFunctionCall::ArgDataBufferType Args(16);
    for (int J = 0; J < 16; ++J)
      Args[J] = static_cast<char>(I + J);
    FR.Actions.push_back(
        {WrapperFunctionCall(ExecutorAddr(0x55000000a000ULL + I * 0x40), Args),
         WrapperFunctionCall(ExecutorAddr(0x55000000b000ULL + I * 0x40),
                             Args)});
  }
  return FR;
}

static std::string encode(const tp::FinalizeRequest &FR) {
  std::string Out(SPSArgList<SPSFinalizeRequest>::size(FR), '\0');
  SPSOutputBuffer OB(Out.data(), Out.size());
  if (!SPSArgList<SPSFinalizeRequest>::serialize(OB, FR))
    std::abort();
  return Out;
}

template <typename F> static long long timeIt(long long N, F &&Body) {
  auto T0 = std::chrono::steady_clock::now();
  for (long long I = 0; I < N; ++I)
    Body();
  auto T1 = std::chrono::steady_clock::now();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(T1 - T0).count();
}

int main(int Argc, char **Argv) {
  tp::FinalizeRequest FR = makeRequest();
  const std::string Msg = encode(FR);
  if (Argc == 2 && std::strcmp(Argv[1], "bytes") == 0) {
    static const char *D = "0123456789abcdef";
    for (unsigned char C : Msg)
      std::putchar(D[C >> 4]), std::putchar(D[C & 15]);
    std::putchar('\n');
    return 0;
  }
  if (Argc != 2 || std::strcmp(Argv[1], "serve") != 0) {
    std::fprintf(stderr, "usage: llvmbench bytes | serve\n");
    return 2;
  }
  std::string Buf(Msg.size(), '\0');
  std::string Op;
  long long N;
  while (std::cin >> Op >> N) {
    unsigned long long Sum = 0;
    long long Ns;
    if (Op == "decode") {
      Ns = timeIt(N, [&] {
        tp::FinalizeRequest Got;
        SPSInputBuffer IB(Msg.data(), Msg.size());
        if (!SPSArgList<SPSFinalizeRequest>::deserialize(IB, Got))
          std::abort();
        Sum += Got.Segments.size() + Got.Segments[7].Content[4095] +
               Got.Actions[3].Dealloc.getArgData()[15];
      });
    } else if (Op == "encode") {
      Ns = timeIt(N, [&] {
        size_t Size = SPSArgList<SPSFinalizeRequest>::size(FR);
        if (Size != Buf.size())
          std::abort();
        SPSOutputBuffer OB(Buf.data(), Size);
        if (!SPSArgList<SPSFinalizeRequest>::serialize(OB, FR))
          std::abort();
        Sum += static_cast<unsigned char>(Buf[Size - 1]);
      });
    } else {
      std::fprintf(stderr, "llvmbench: unknown op %s\n", Op.c_str());
      return 2;
    }
    std::printf("ns %lld %llu\n", Ns, Sum);
    std::fflush(stdout);
  }
  return 0;
}
