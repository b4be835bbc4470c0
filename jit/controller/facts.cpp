// Function facts (facts.h). Calls are proven from the linked machine code:
// each function's bytes are decoded in full, and every transfer of
// control that leaves it must reach a function that is named, and
// qualifies, for the function to qualify. Anything not understood makes
// the answer CallsUnknown, which only costs speed.

#include "facts.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/ExecutionEngine/JITLink/JITLink.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/LEB128.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/SubtargetFeature.h"

using namespace llvm;
using namespace llvm::jitlink;
using namespace llvm::orc;

namespace orcrt {

StringMap<uint64_t> readStackSizes(MemoryBufferRef Buf) {
  StringMap<uint64_t> Sizes;
  if (Buf.getBufferSize() == 0)
    return Sizes;
  auto Bin = object::ObjectFile::createObjectFile(Buf);
  if (!Bin) {
    consumeError(Bin.takeError());
    return Sizes;
  }
  auto *Obj = dyn_cast<object::ELFObjectFileBase>(Bin->get());
  if (!Obj || !Obj->isRelocatableObject() || !Obj->isLittleEndian() ||
      Obj->getBytesInAddress() != 8)
    return Sizes;
  uint64_t Abs64;
  switch (Obj->getEMachine()) {
  case ELF::EM_X86_64:
    Abs64 = ELF::R_X86_64_64;
    break;
  case ELF::EM_AARCH64:
    Abs64 = ELF::R_AARCH64_ABS64;
    break;
  default:
    return Sizes;
  }

  // The relocations of each .stack_sizes section (with -ffunction-sections,
  // one per function).
  SmallVector<std::pair<object::SectionRef, object::SectionRef>, 4> Relocated;
  for (const object::SectionRef &RelSec : Obj->sections()) {
    auto Target = RelSec.getRelocatedSection();
    if (!Target) {
      consumeError(Target.takeError());
      continue;
    }
    if (*Target == Obj->section_end())
      continue;
    auto TargetName = (*Target)->getName();
    if (!TargetName) {
      consumeError(TargetName.takeError());
      continue;
    }
    if (*TargetName == ".stack_sizes")
      Relocated.push_back({RelSec, **Target});
  }
  if (Relocated.empty())
    return Sizes;

  // The functions defined at each offset of each section.
  std::map<std::pair<uint64_t, uint64_t>, SmallVector<StringRef, 1>> Funcs;
  for (const object::ELFSymbolRef &S : Obj->symbols()) {
    if (S.getELFType() != ELF::STT_FUNC)
      continue;
    auto Name = S.getName();
    auto Value = S.getValue();
    auto Sec = S.getSection();
    if (!Name || !Value || !Sec || *Sec == Obj->section_end() ||
        Name->empty()) {
      consumeError(Name.takeError());
      consumeError(Value.takeError());
      consumeError(Sec.takeError());
      continue;
    }
    Funcs[{(*Sec)->getIndex(), *Value}].push_back(*Name);
  }

  StringSet<> Ambiguous;
  auto Record = [&](StringRef Name, uint64_t Size) {
    if (Ambiguous.contains(Name))
      return;
    auto [I, New] = Sizes.try_emplace(Name, Size);
    if (!New && I->second != Size) {
      Sizes.erase(I);
      Ambiguous.insert(Name);
    }
  };
  // A name two functions share names neither.
  StringMap<unsigned> Defined;
  for (auto &[At, Names] : Funcs)
    for (StringRef N : Names)
      ++Defined[N];
  for (auto &[N, Count] : Defined)
    if (Count > 1)
      Ambiguous.insert(N);

  for (auto &[RelSec, Target] : Relocated) {
    auto Content = Target.getContents();
    if (!Content) {
      consumeError(Content.takeError());
      continue;
    }
    // Each entry: the function's address (8 bytes, the relocation's
    // place), then its stack size, a ULEB128.
    for (const object::RelocationRef &R : RelSec.relocations()) {
      uint64_t Off = R.getOffset();
      if (R.getType() != Abs64 || Off >= Content->size() ||
          Content->size() - Off <= 8)
        continue;
      const char *Err = nullptr;
      unsigned N = 0;
      uint64_t Size = decodeULEB128(
          reinterpret_cast<const uint8_t *>(Content->data()) + Off + 8, &N,
          reinterpret_cast<const uint8_t *>(Content->end()), &Err);
      if (Err)
        continue;
      auto SymI = R.getSymbol();
      if (SymI == Obj->symbol_end())
        continue;
      object::ELFSymbolRef Sym(*SymI);
      auto Addend = object::ELFRelocationRef(R).getAddend();
      int64_t Add;
      if (Addend) {
        Add = *Addend;
      } else { // SHT_REL: the addend is in place
        consumeError(Addend.takeError());
        Add = support::endian::read64le(Content->data() + Off);
      }
      auto Value = Sym.getValue();
      auto Sec = Sym.getSection();
      if (!Value || !Sec || *Sec == Obj->section_end()) {
        consumeError(Value.takeError());
        consumeError(Sec.takeError());
        continue;
      }
      // A section symbol's value is 0: the addend is the offset.
      auto F = Funcs.find({(*Sec)->getIndex(), *Value + uint64_t(Add)});
      if (F == Funcs.end())
        continue;
      for (StringRef Name : F->second)
        Record(Name, Size);
    }
  }
  return Sizes;
}

// The library functions a function may call and still be CallsNonBlocking:
// they neither block nor call back, and keep to the stack of the thread
// they run on. Resolved into JIT'd memory, a name is some module's code.
static bool nonBlockingLibraryFunction(StringRef Name) {
  static const StringSet<> Names = {
      // string.h
      "memcpy", "memmove", "memset", "memcmp", "bcmp", "bzero", "memchr",
      "strlen", "strnlen", "strcmp", "strncmp", "strchr", "strrchr",
      // math.h: pure functions, errno at most
      "sqrt", "sqrtf", "cbrt", "cbrtf", "hypot", "hypotf", "sin", "sinf", "cos",
      "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf", "atan", "atanf",
      "atan2", "atan2f", "sinh", "sinhf", "cosh", "coshf", "tanh", "tanhf",
      "asinh", "asinhf", "acosh", "acoshf", "atanh", "atanhf", "exp", "expf",
      "exp2", "exp2f", "expm1", "expm1f", "log", "logf", "log2", "log2f",
      "log10", "log10f", "log1p", "log1pf", "pow", "powf", "fabs", "fabsf",
      "floor", "floorf", "ceil", "ceilf", "round", "roundf", "trunc", "truncf",
      "rint", "rintf", "nearbyint", "nearbyintf", "lround", "lroundf",
      "llround", "llroundf", "lrint", "lrintf", "llrint", "llrintf", "fmod",
      "fmodf", "remainder", "remainderf", "fmin", "fminf", "fmax", "fmaxf",
      "fdim", "fdimf", "fma", "fmaf", "copysign", "copysignf", "ldexp",
      "ldexpf", "frexp", "frexpf", "modf", "modff", "scalbn", "scalbnf", "erf",
      "erff", "erfc", "erfcf",
      // compiler-rt and libgcc arithmetic
      "__divti3", "__udivti3", "__modti3", "__umodti3", "__multi3", "__muloti4",
      "__mulodi4", "__divmodti4", "__udivmodti4", "__ashlti3", "__ashrti3",
      "__lshrti3", "__floattidf", "__floattisf", "__floatuntidf",
      "__floatuntisf", "__fixdfti", "__fixsfti", "__fixunsdfti", "__fixunssfti",
      "__popcountdi2", "__popcountti2", "__clzti2", "__ctzti2", "__powidf2",
      "__powisf2"};
  if (Names.contains(Name))
    return true;
  // AArch64's outline atomics (-moutline-atomics, clang's default):
  // __aarch64_cas4_acq, __aarch64_ldadd8_relax, ...
  if (Name.consume_front("__aarch64_"))
    for (StringRef Op : {"cas", "swp", "ldadd", "ldclr", "ldeor", "ldset"})
      if (Name.starts_with(Op))
        return true;
  return false;
}

// Disassembler decodes one target's machine code.
class Disassembler {
public:
  static std::unique_ptr<Disassembler> create(const Triple &TT) {
    std::string Err;
    const Target *T = TargetRegistry::lookupTarget(TT, Err);
    if (!T)
      return nullptr;
    auto D = std::make_unique<Disassembler>();
    D->TT = TT;
    D->MRI.reset(T->createMCRegInfo(TT));
    if (!D->MRI)
      return nullptr;
    MCTargetOptions Opts;
    D->MAI.reset(T->createMCAsmInfo(*D->MRI, TT, Opts));
    // Every instruction the CPU may run must decode: this CPU's features
    // for the host, and every feature on AArch64, where decoding checks.
    std::string CPU;
    SubtargetFeatures Features;
    if (TT == Triple(sys::getProcessTriple())) {
      CPU = sys::getHostCPUName().str();
      for (auto &[F, On] : sys::getHostCPUFeatures())
        Features.AddFeature(F, On);
    }
    if (TT.isAArch64())
      Features.AddFeature("all");
    D->STI.reset(T->createMCSubtargetInfo(TT, CPU, Features.getString()));
    D->MII.reset(T->createMCInstrInfo());
    if (!D->MAI || !D->STI || !D->MII)
      return nullptr;
    D->Ctx = std::make_unique<MCContext>(TT, D->MAI.get(), D->MRI.get(),
                                         D->STI.get());
    D->Dis.reset(T->createMCDisassembler(*D->STI, *D->Ctx));
    D->MIA.reset(T->createMCInstrAnalysis(D->MII.get()));
    if (!D->Dis || !D->MIA)
      return nullptr;
    for (unsigned Op = 0, E = D->MII->getNumOpcodes(); Op != E; ++Op)
      D->Ops[D->MII->getName(Op)] = Op;
    // The registers a callee keeps (SysV x86-64, AAPCS64).
    StringSet<> Saved = {"RBX", "RBP", "R12", "R13", "R14", "R15",
                         "X19", "X20", "X21", "X22", "X23", "X24",
                         "X25", "X26", "X27", "X28", "FP"};
    for (unsigned R = 1, E = D->MRI->getNumRegs(); R != E; ++R) {
      StringRef N = D->MRI->getName(R);
      if (N == "RIP")
        D->RIP = R;
      if (N == "LR")
        D->LR = R;
      if (Saved.contains(N))
        D->CalleeSaved.insert(R);
    }
    return D;
  }

  bool decode(ArrayRef<uint8_t> Bytes, uint64_t Addr, MCInst &I,
              uint64_t &Size) const {
    return Dis->getInstruction(I, Size, Bytes, Addr, nulls()) ==
               MCDisassembler::Success &&
           Size != 0;
  }

  bool is(const MCInst &I, StringRef Name) const {
    auto Op = Ops.find(Name);
    return Op != Ops.end() && Op->second == I.getOpcode();
  }

  // entersKernel reports a system call or another trap to the kernel, which
  // may block, whatever calls the code makes.
  bool entersKernel(const MCInst &I) const {
    if (TT.isX86())
      return is(I, "SYSCALL") || is(I, "SYSENTER") || is(I, "INT") ||
             is(I, "INTO");
    return is(I, "SVC") || is(I, "HVC") || is(I, "SMC");
  }

  // throughRegister returns the register a call or jump through a
  // register goes to.
  std::optional<MCRegister> throughRegister(const MCInst &I) const {
    if (is(I, "CALL64r") || is(I, "JMP64r") || is(I, "BLR") || is(I, "BR"))
      return I.getOperand(0).getReg();
    return std::nullopt;
  }

  // jumpsThrough returns the address of the pointer the code of a stub
  // jumps through: exactly jmp *ptr(%rip) on x86-64, adrp, ldr and br of
  // one register on AArch64.
  std::optional<uint64_t> jumpsThrough(ArrayRef<uint8_t> Bytes,
                                       uint64_t Addr) const {
    SmallVector<MCInst, 3> Is;
    uint64_t Next = Addr;
    for (uint64_t Off = 0, Size; Off < Bytes.size(); Off += Size, Next += Size)
      if (Is.size() == 3 ||
          !decode(Bytes.slice(Off), Next, Is.emplace_back(), Size))
        return std::nullopt;
    auto Reg = [](const MCInst &I, unsigned N) {
      return I.getOperand(N).isReg() ? unsigned(I.getOperand(N).getReg()) : ~0u;
    };
    auto Imm = [](const MCInst &I, unsigned N) -> std::optional<int64_t> {
      if (!I.getOperand(N).isImm())
        return std::nullopt;
      return I.getOperand(N).getImm();
    };
    if (TT.isX86() && Is.size() == 1 && is(Is[0], "JMP64m") && RIP &&
        Reg(Is[0], 0) == RIP && Imm(Is[0], 1) == 1 && Reg(Is[0], 2) == 0 &&
        Imm(Is[0], 3) && Reg(Is[0], 4) == 0)
      return Next + *Imm(Is[0], 3);
    if (TT.isAArch64() && Is.size() == 3 && is(Is[0], "ADRP") &&
        is(Is[1], "LDRXui") && is(Is[2], "BR") && Imm(Is[0], 1) &&
        Imm(Is[1], 2) && Reg(Is[1], 0) == Reg(Is[0], 0) &&
        Reg(Is[1], 1) == Reg(Is[0], 0) && Reg(Is[2], 0) == Reg(Is[0], 0))
      return (Addr & ~uint64_t(0xfff)) + (uint64_t(*Imm(Is[0], 1)) << 12) +
             uint64_t(*Imm(Is[1], 2)) * 8;
    return std::nullopt;
  }

  // Known is what registers hold, where the code has just set them to
  // constants (the large code model's calls: movabs and call *%rax on
  // x86-64, movz, movk and blr on AArch64; PC-relative lea).
  using Known = SmallDenseMap<unsigned, uint64_t, 4>;

  // track updates K for I, at Addr: the register it sets to a constant,
  // and every register it writes otherwise forgotten.
  void track(const MCInst &I, uint64_t Addr, uint64_t Size, Known &K) const {
    std::optional<std::pair<unsigned, uint64_t>> Set;
    auto Imm = [&](unsigned N) { return uint64_t(I.getOperand(N).getImm()); };
    if (is(I, "MOV64ri") && I.getOperand(1).isImm()) {
      Set = {I.getOperand(0).getReg(), Imm(1)};
    } else if (is(I, "LEA64r") && RIP && I.getOperand(1).getReg() == RIP &&
               I.getOperand(3).getReg() == 0 && I.getOperand(4).isImm() &&
               I.getOperand(5).getReg() == 0) {
      Set = {I.getOperand(0).getReg(), Addr + Size + Imm(4)};
    } else if (is(I, "MOVZXi") && I.getOperand(1).isImm()) {
      Set = {I.getOperand(0).getReg(), Imm(1) << Imm(2)};
    } else if (is(I, "MOVKXi") && I.getOperand(2).isImm()) {
      auto Old = K.find(I.getOperand(0).getReg());
      if (Old != K.end())
        Set = {Old->first, (Old->second & ~(uint64_t(0xffff) << Imm(3))) |
                               Imm(2) << Imm(3)};
    }
    const MCInstrDesc &Desc = MII->get(I.getOpcode());
    auto Writes = [&](unsigned R) {
      for (unsigned N = 0; N < I.getNumOperands(); ++N)
        if ((N < Desc.getNumDefs() || Desc.isVariadic()) &&
            I.getOperand(N).isReg() &&
            MRI->regsOverlap(I.getOperand(N).getReg(), R))
          return true;
      return any_of(Desc.implicit_defs(),
                    [&](MCPhysReg D) { return MRI->regsOverlap(D, R); });
    };
    // A callee keeps the callee-saved registers only.
    bool Call = MIA->isCall(I);
    for (auto It = K.begin(); It != K.end();) {
      auto Cur = It++;
      if (Writes(Cur->first) || (Call && !CalleeSaved.contains(Cur->first)))
        K.erase(Cur);
    }
    if (Set)
      K[Set->first] = Set->second;
  }

  Triple TT;
  std::unique_ptr<MCRegisterInfo> MRI;
  std::unique_ptr<MCAsmInfo> MAI;
  std::unique_ptr<MCSubtargetInfo> STI;
  std::unique_ptr<MCInstrInfo> MII;
  std::unique_ptr<MCContext> Ctx;
  std::unique_ptr<MCDisassembler> Dis;
  std::unique_ptr<MCInstrAnalysis> MIA;
  StringMap<unsigned> Ops;
  unsigned RIP = 0, LR = 0;
  DenseSet<unsigned> CalleeSaved;
};

namespace {
// Code is one function of a graph under analysis.
struct Code {
  Symbol *Sym;
  uint64_t Start, End;
  bool Unknown = false;
  bool Leaf = true;
  SmallVector<size_t, 4> Callees; // indices of the graph's functions
};

// Analysis decides the calls of a graph's functions.
class Analysis {
public:
  Analysis(LinkGraph &G, const Disassembler &D,
           const std::function<bool(ExecutorAddr)> &IsJITCode)
      : G(G), D(D), IsJITCode(IsJITCode) {}

  DenseMap<Symbol *, uint8_t> run();

private:
  // Target is where a transfer of control leads: one of the graph's
  // functions, or an allowed library function.
  struct Target {
    bool Named = false;
    std::optional<size_t> Func;
  };
  void scan(Code &C);
  Target name(uint64_t Addr);
  Target nameSymbol(Symbol &S);
  Symbol *stubTarget(Block &B);

  LinkGraph &G;
  const Disassembler &D;
  const std::function<bool(ExecutorAddr)> &IsJITCode;
  std::vector<Code> Funcs;
  DenseMap<uint64_t, size_t> FuncAt;
  DenseMap<uint64_t, Block *> BlockAt;
  DenseSet<Block *> NamedBlocks;
  DenseMap<uint64_t, SmallVector<Symbol *, 1>> OutsideAt;
};
} // namespace

DenseMap<Symbol *, uint8_t> Analysis::run() {
  for (auto *Sym : G.defined_symbols()) {
    if (Sym->hasName())
      NamedBlocks.insert(&Sym->getBlock());
    // Anonymous code (JITLink's stubs) is named through its edges.
    if (!Sym->hasName() || !Sym->isCallable() || Sym->getSize() == 0 ||
        Sym->getBlock().isZeroFill() ||
        Sym->getOffset() + Sym->getSize() > Sym->getBlock().getSize())
      continue;
    uint64_t Start = Sym->getAddress().getValue();
    FuncAt.try_emplace(Start, Funcs.size());
    Funcs.push_back({Sym, Start, Start + Sym->getSize()});
  }
  for (auto *B : G.blocks())
    if ((B->getSection().getMemProt() & MemProt::Exec) != MemProt::None)
      BlockAt.try_emplace(B->getAddress().getValue(), B);
  for (auto *Sym : G.external_symbols())
    if (Sym->getAddress())
      OutsideAt[Sym->getAddress().getValue()].push_back(Sym);
  for (auto *Sym : G.absolute_symbols())
    if (Sym->getAddress())
      OutsideAt[Sym->getAddress().getValue()].push_back(Sym);

  for (auto &C : Funcs)
    scan(C);
  // The functions whose callees all qualify qualify: remove those that
  // call one that does not until none does (cycles of qualifying
  // functions qualify).
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto &C : Funcs)
      if (!C.Unknown &&
          any_of(C.Callees, [&](size_t I) { return Funcs[I].Unknown; })) {
        C.Unknown = true;
        Changed = true;
      }
  }
  DenseMap<Symbol *, uint8_t> Calls;
  for (auto &C : Funcs)
    Calls[C.Sym] = C.Unknown ? wire::CallsUnknown
                   : C.Leaf  ? wire::CallsNothing
                             : wire::CallsNonBlocking;
  return Calls;
}

void Analysis::scan(Code &C) {
  auto Content = C.Sym->getBlock().getContent().slice(C.Sym->getOffset(),
                                                      C.Sym->getSize());
  ArrayRef<uint8_t> Bytes(reinterpret_cast<const uint8_t *>(Content.data()),
                          Content.size());
  auto &A = *D.MIA;
  struct Insn {
    MCInst I;
    uint64_t Addr, Size;
    std::optional<uint64_t> To; // a direct branch's target within
    bool FallsThrough;
  };
  std::vector<Insn> Insns;
  // The instruction at an address, found by a binary search (the
  // instructions are in address order).
  auto IndexOf = [&](uint64_t Addr) -> std::optional<size_t> {
    auto It =
        partition_point(Insns, [&](const Insn &N) { return N.Addr < Addr; });
    if (It == Insns.end() || It->Addr != Addr)
      return std::nullopt;
    return It - Insns.begin();
  };
  for (uint64_t Off = 0; Off < Bytes.size();) {
    Insn N{MCInst(), C.Start + Off, 0, std::nullopt, true};
    if (!D.decode(Bytes.slice(Off), N.Addr, N.I, N.Size) ||
        D.entersKernel(N.I)) {
      C.Unknown = true;
      return;
    }
    Off += N.Size;
    uint64_t To;
    if (A.isBranch(N.I) && !A.isIndirectBranch(N.I) &&
        A.evaluateBranch(N.I, N.Addr, N.Size, To) && To >= C.Start &&
        To < C.End)
      N.To = To;
    N.FallsThrough = !A.isReturn(N.I) && !A.isBarrier(N.I) &&
                     !A.isUnconditionalBranch(N.I) && !A.isIndirectBranch(N.I);
    Insns.push_back(std::move(N));
  }
  // Code that runs off its end runs whatever follows; a branch into an
  // instruction, code not decoded here.
  if (Insns.empty() || Insns.back().FallsThrough ||
      any_of(Insns, [&](Insn &N) { return N.To && !IndexOf(*N.To); })) {
    C.Unknown = true;
    return;
  }

  // A leaf (no call, no indirect branch, no branch leaving it) needs none
  // of the register tracking below, which only names such transfers' targets.
  bool Transfers = false;
  for (auto &N : Insns) {
    if (A.isReturn(N.I)) {
      // AArch64's ret may name a register other than the link register.
      if (D.TT.isAArch64() && N.I.getNumOperands() > 0 &&
          N.I.getOperand(0).isReg() && N.I.getOperand(0).getReg() != D.LR) {
        C.Unknown = true;
        return;
      }
      continue;
    }
    if (A.isCall(N.I) || A.isIndirectBranch(N.I) ||
        (A.isBranch(N.I) && !N.To)) {
      Transfers = true;
      break;
    }
  }
  if (!Transfers)
    return;

  // What registers hold before each instruction, on every path to it:
  // the constants the code set (addresses it calls through a register).
  std::vector<std::optional<Disassembler::Known>> In(Insns.size());
  In[0].emplace();
  std::vector<size_t> Work = {0};
  while (!Work.empty()) {
    size_t J = Work.back();
    Work.pop_back();
    Disassembler::Known Out = *In[J];
    D.track(Insns[J].I, Insns[J].Addr, Insns[J].Size, Out);
    auto Flow = [&](size_t To) {
      if (!In[To]) {
        In[To] = Out;
        Work.push_back(To);
        return;
      }
      bool Changed = false;
      for (auto It = In[To]->begin(); It != In[To]->end();) {
        auto Cur = It++;
        auto O = Out.find(Cur->first);
        if (O == Out.end() || O->second != Cur->second) {
          In[To]->erase(Cur);
          Changed = true;
        }
      }
      if (Changed)
        Work.push_back(To);
    };
    if (Insns[J].FallsThrough && J + 1 < Insns.size())
      Flow(J + 1);
    if (Insns[J].To)
      Flow(*IndexOf(*Insns[J].To));
  }

  auto Leaves = [&](uint64_t To) {
    C.Leaf = false;
    Target T = name(To);
    if (!T.Named)
      C.Unknown = true;
    else if (T.Func)
      C.Callees.push_back(*T.Func);
  };
  for (size_t J = 0; J < Insns.size() && !C.Unknown; ++J) {
    auto &[I, Addr, Size, Within, FallsThrough] = Insns[J];
    uint64_t To;
    std::optional<uint64_t> Through;
    if (auto R = D.throughRegister(I); R && In[J]) {
      auto V = In[J]->find(*R);
      if (V != In[J]->end())
        Through = V->second;
    }
    if (A.isReturn(I)) {
      // AArch64's ret may name a register other than the link register.
      if (D.TT.isAArch64() && I.getNumOperands() > 0 &&
          I.getOperand(0).isReg() && I.getOperand(0).getReg() != D.LR)
        C.Unknown = true;
    } else if (A.isCall(I)) {
      if (Through)
        Leaves(*Through);
      else if (!A.isIndirectBranch(I) && A.evaluateBranch(I, Addr, Size, To))
        Leaves(To);
      else
        C.Unknown = true;
    } else if (Through) {
      if (*Through < C.Start || *Through >= C.End)
        Leaves(*Through); // a tail call
      else
        C.Unknown = true; // a jump within, not followed above
    } else if (A.isIndirectBranch(I)) {
      C.Unknown = true;
    } else if (A.isBranch(I)) {
      if (!A.evaluateBranch(I, Addr, Size, To))
        C.Unknown = true;
      else if (!Within)
        Leaves(To); // a tail call
    }
  }
}

Analysis::Target Analysis::name(uint64_t Addr) {
  auto F = FuncAt.find(Addr);
  if (F != FuncAt.end())
    return {true, F->second};
  // A stub of the graph's, which leads to its target through a pointer
  // the link wrote (JITLink's PLT entries and their GOT entries).
  auto B = BlockAt.find(Addr);
  if (B != BlockAt.end()) {
    if (Symbol *S = stubTarget(*B->second))
      return nameSymbol(*S);
    return {};
  }
  auto O = OutsideAt.find(Addr);
  if (O != OutsideAt.end())
    for (Symbol *S : O->second)
      if (auto T = nameSymbol(*S); T.Named)
        return T;
  return {};
}

Analysis::Target Analysis::nameSymbol(Symbol &S) {
  if (S.isDefined()) {
    auto F = FuncAt.find(S.getAddress().getValue());
    if (F != FuncAt.end())
      return {true, F->second};
    return {};
  }
  if (S.hasName() && S.getAddress() && !IsJITCode(S.getAddress()) &&
      nonBlockingLibraryFunction(*S.getName()))
    return {true, std::nullopt};
  return {};
}

// stubTarget returns the symbol a stub block leads to: JITLink's jump
// stubs load their target from a pointer of the graph and jump there
// (x86-64: jmp *ptr(%rip); AArch64: adrp, ldr and br x16), the pointer
// holding, by its one edge, the target's address.
Symbol *Analysis::stubTarget(Block &B) {
  if (B.isZeroFill() || B.getSize() > 16 || NamedBlocks.contains(&B))
    return nullptr; // code with a name of its own is not a stub
  ArrayRef<uint8_t> Bytes(
      reinterpret_cast<const uint8_t *>(B.getContent().data()), B.getSize());
  auto Ptr = D.jumpsThrough(Bytes, B.getAddress().getValue());
  if (!Ptr)
    return nullptr;
  for (auto &E : B.edges()) {
    Symbol &P = E.getTarget();
    if (!P.isDefined() || P.getAddress().getValue() != *Ptr)
      continue;
    Block &PB = P.getBlock();
    if (PB.isZeroFill() || P.getOffset() + 8 > PB.getSize())
      return nullptr;
    for (auto &PE : PB.edges())
      if (PE.getOffset() == P.getOffset() && PE.getAddend() == 0 &&
          StringRef(G.getEdgeKindName(PE.getKind())) == "Pointer64" &&
          support::endian::read64le(PB.getContent().data() + P.getOffset()) ==
              PE.getTarget().getAddress().getValue())
        return &PE.getTarget();
    return nullptr;
  }
  return nullptr;
}

FunctionFacts::FunctionFacts(std::function<bool(ExecutorAddr)> IsJITCode)
    : IsJITCode(std::move(IsJITCode)) {}

FunctionFacts::~FunctionFacts() = default;

void FunctionFacts::notifyMaterializing(MaterializationResponsibility &MR,
                                        LinkGraph &G, JITLinkContext &Ctx,
                                        MemoryBufferRef InputObject) {
  // .stack_sizes is not allocated: the graph has none of it. A graph at
  // the address of one that failed before its passes replaces its entry.
  auto Sizes = readStackSizes(InputObject);
  std::lock_guard<std::mutex> L(Mu);
  Pending[&G] = std::move(Sizes);
}

void FunctionFacts::modifyPassConfig(MaterializationResponsibility &MR,
                                     LinkGraph &G, PassConfiguration &Config) {
  StringMap<uint64_t> Sizes;
  {
    std::lock_guard<std::mutex> L(Mu);
    auto I = Pending.find(&G);
    if (I != Pending.end()) {
      Sizes = std::move(I->second);
      Pending.erase(I);
    }
  }
  JITDylib *JD = &MR.getTargetJITDylib();
  // After fixups the graph has its final addresses and content.
  Config.PostFixupPasses.push_back(
      [this, JD, Sizes = std::move(Sizes)](LinkGraph &G) {
        return record(*JD, G, Sizes);
      });
}

DenseMap<Symbol *, uint8_t> FunctionFacts::calls(LinkGraph &G) {
  std::lock_guard<std::mutex> L(DisMu);
  if (!Dis || Dis->TT != G.getTargetTriple())
    Dis = Disassembler::create(G.getTargetTriple());
  if (!Dis)
    return DenseMap<Symbol *, uint8_t>();
  return Analysis(G, *Dis, IsJITCode).run();
}

Error FunctionFacts::record(JITDylib &JD, LinkGraph &G,
                            const StringMap<uint64_t> &StackSizes) {
  auto Calls = calls(G);
  std::lock_guard<std::mutex> L(Mu);
  auto &Out = ByJD[&JD];
  for (auto *Sym : G.defined_symbols()) {
    if (!Sym->hasName() || !Sym->isCallable() || Sym->getSize() == 0)
      continue;
    Facts F;
    F.Size = Sym->getSize();
    auto C = Calls.find(Sym);
    if (C != Calls.end())
      F.Calls = C->second;
    auto S = StackSizes.find(*Sym->getName());
    if (S != StackSizes.end()) {
      F.HasStackSize = true;
      F.StackSize = S->second;
    }
    Out[Sym->getName()] = F;
  }
  return Error::success();
}

DenseMap<SymbolStringPtr, Facts> FunctionFacts::take(JITDylib &JD) {
  std::lock_guard<std::mutex> L(Mu);
  auto I = ByJD.find(&JD);
  if (I == ByJD.end())
    return DenseMap<SymbolStringPtr, Facts>();
  auto Out = std::move(I->second);
  ByJD.erase(I);
  return Out;
}

} // namespace orcrt
