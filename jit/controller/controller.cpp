// orcrt-jit-controller: LLVM 22's ORC (LLJIT over SimpleRemoteEPC) run as a
// sidecar of a Go process that is its executor (package jit). The Go side
// creates two pipes, starts this program with its ends, and asks for work
// with executor-to-controller calls (jit-dispatch) whose tags it publishes
// as bootstrap symbols in Setup:
//
//   orcrt_jit_add       (name, kind, bytes, want object) -> Expected<Added>
//   orcrt_jit_compile   (name, clang args, source, want object)
//                                           -> Expected<Added>
//   orcrt_jit_lookup    (module, names)     -> Expected<Seq<addr>> (0: absent)
//   orcrt_jit_remove    (module)            -> Error
//   orcrt_jit_library   (path)              -> Error
//   orcrt_jit_close     ()                  -> Error
//   orcrt_jit_ping      ()                  -> ()
//
// Added is the module's id, every symbol it defines with its address, the
// executor calls held back for the Go side to run before it returns (the
// memory's initialize: docs/protocol.md §11), and the object compiled
// when asked for (package jit's compile cache). Once the requests are
// registered it calls the executor's orcrt_jit_ready wrapper with its
// LLVM version, the version of these requests and the target it compiles
// for. Each module is a JITDylib of its own, so modules may define the
// same names; removing one removes its JITDylib. The program ends when
// the Go side closes (orcrt_jit_close: every module is removed, then
// Hangup) or its end of the pipe (the Go process died).
//
//   orcrt-jit-controller [-orc-runtime=PATH] IN OUT

#include "clang.h"
#include "memory.h"
#include "transport.h"

#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/EHFrameRegistrationPlugin.h"
#include "llvm/ExecutionEngine/Orc/EPCDynamicLibrarySearchGenerator.h"
#include "llvm/ExecutionEngine/Orc/ObjectFileInterface.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/Shared/WrapperFunctionUtils.h"
#include "llvm/ExecutionEngine/Orc/SimpleRemoteEPC.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Support/raw_ostream.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <thread>

using namespace llvm;
using namespace llvm::orc;
using namespace llvm::orc::shared;

static const char *Prog = "orcrt-jit-controller";

// Module kinds of orcrt_jit_add (package jit's kindObject, kindIR).
enum AddKind : uint8_t { KindObject = 0, KindIR = 1 };

// SlabSize is the granularity of the executor memory reserved for code:
// address space, not memory, until written.
constexpr size_t SlabSize = 64 << 20;

using SPSDeferredCall =
    SPSTuple<SPSExecutorAddr, SPSSequence<char>, SPSExecutorAddr>;
using SPSAdded =
    SPSTuple<uint64_t, SPSSequence<SPSTuple<SPSString, SPSExecutorAddr>>,
             SPSSequence<SPSDeferredCall>, SPSSequence<char>>;
using AddSig = SPSExpected<SPSAdded>(SPSString, uint8_t, SPSSequence<char>,
                                     bool);
using CompileSig = SPSExpected<SPSAdded>(SPSString, SPSSequence<SPSString>,
                                         SPSString, bool);
using LookupSig = SPSExpected<SPSSequence<SPSExecutorAddr>>(
    uint64_t, SPSSequence<SPSString>);
using RemoveSig = SPSError(uint64_t);
using LibrarySig = SPSError(SPSString);
using CloseSig = SPSError();
using PingSig = void();
using ReadySig = void(SPSString, uint32_t, SPSString);

using Added = std::tuple<uint64_t, std::vector<std::pair<std::string, ExecutorAddr>>,
                         std::vector<std::tuple<ExecutorAddr, std::vector<char>, ExecutorAddr>>,
                         std::vector<char>>;

// ProtocolVersion changes with any change to the requests' names or
// signatures; package jit's controllerProtocol must be equal.
constexpr uint32_t ProtocolVersion = 3;

// PooledCompiler compiles IR with TargetMachines kept for the next compile:
// LLJIT's default with an ExecutorProcessControl, ConcurrentIRCompiler,
// makes one per module (about a millisecond each, more than compiling a
// short function takes).
class PooledCompiler : public IRCompileLayer::IRCompiler {
public:
  PooledCompiler(JITTargetMachineBuilder JTMB)
      : IRCompiler(irManglingOptionsFromTargetOptions(JTMB.getOptions())),
        JTMB(std::move(JTMB)) {}

  Expected<std::unique_ptr<MemoryBuffer>> operator()(Module &M) override {
    std::unique_ptr<TargetMachine> TM;
    {
      std::lock_guard<std::mutex> L(Mu);
      if (!Free.empty()) {
        TM = std::move(Free.back());
        Free.pop_back();
      }
    }
    if (!TM) {
      auto Made = JTMB.createTargetMachine();
      if (!Made)
        return Made.takeError();
      TM = std::move(*Made);
    }
    auto Obj = SimpleCompiler(*TM)(M);
    std::lock_guard<std::mutex> L(Mu);
    Free.push_back(std::move(TM));
    return Obj;
  }

private:
  JITTargetMachineBuilder JTMB;
  std::mutex Mu;
  std::vector<std::unique_ptr<TargetMachine>> Free;
};

// Parts is what build makes: the JIT, and the compiler and mapper inside
// it that requests use directly.
struct Parts {
  std::unique_ptr<LLJIT> J;
  PooledCompiler *Compiler = nullptr;
  orcrt::SharedSlabMapper *Mapper = nullptr;
};

class Controller {
public:
  Controller(Parts P) : J(std::move(P.J)), Compiler(P.Compiler), Mapper(P.Mapper) {}

  Error registerTags();
  Error announce();
  // wait returns once the Go side asks to close; the process exits when
  // the Go side closes its end of In.
  void wait(int In);
  void shutdown() { J.reset(); }

private:
  Expected<Added> add(const std::string &Name, uint8_t Kind,
                      const std::vector<char> &Bytes, bool WantObject);
  Expected<Added> compile(const std::string &Name,
                          const std::vector<std::string> &Args,
                          const std::string &Source, bool WantObject);
  // addObject makes a module's JITDylib, links Obj into it, runs its
  // initializers and looks up everything it defines; on failure nothing
  // of it stays.
  Expected<Added> addObject(const std::string &Name,
                            std::unique_ptr<MemoryBuffer> Obj, bool WantObject);
  Expected<std::unique_ptr<MemoryBuffer>> compileIR(ThreadSafeModule TSM);
  Expected<std::vector<ExecutorAddr>>
  lookup(uint64_t ID, const std::vector<std::string> &Names);
  Error remove(uint64_t ID);
  Error addLibrary(const std::string &Path);
  Expected<JITDylib &> module(uint64_t ID);
  Error removeModule(JITDylib &JD);

  std::unique_ptr<LLJIT> J;
  PooledCompiler *Compiler;
  orcrt::SharedSlabMapper *Mapper;
  JITDylib *Libraries = nullptr; // shared libraries every module links against

  std::mutex M;
  std::map<uint64_t, JITDylib *> Modules;
  uint64_t NextID = 1;

  // Errors the session reports (a materialization's cause: "Symbols not
  // found"), kept so a failed lookup can say why.
  std::mutex ReportedM;
  std::vector<std::pair<uint64_t, std::string>> Reported;
  uint64_t ReportSeq = 0;
  void report(Error Err);
  std::string reportedSince(uint64_t Seq);
  uint64_t reportSeq() {
    std::lock_guard<std::mutex> L(ReportedM);
    return ReportSeq;
  }
  Error withReported(Error Err, uint64_t Seq);

  std::promise<void> Closing;
  std::once_flag CloseOnce;
};

// ReportedLimit bounds the reported errors kept.
constexpr size_t ReportedLimit = 64;

// report keeps Err for the request that caused it, which returns it: not
// printed, so a host that shows the controller's output sees it once.
void Controller::report(Error Err) {
  std::string Msg = toString(std::move(Err));
  std::lock_guard<std::mutex> L(ReportedM);
  Reported.emplace_back(++ReportSeq, std::move(Msg));
  if (Reported.size() > ReportedLimit)
    Reported.erase(Reported.begin());
}

std::string Controller::reportedSince(uint64_t Seq) {
  std::lock_guard<std::mutex> L(ReportedM);
  std::string Out;
  for (auto &[N, Msg] : Reported)
    if (N > Seq)
      Out += (Out.empty() ? "" : "; ") + Msg;
  return Out;
}

// withReported adds to a failed lookup the causes reported since Seq: the
// lookup itself only says that it failed.
Error Controller::withReported(Error Err, uint64_t Seq) {
  std::string Why = reportedSince(Seq);
  if (Why.empty())
    return Err;
  return createStringError(inconvertibleErrorCode(), "%s: %s",
                           toString(std::move(Err)).c_str(), Why.c_str());
}

Error Controller::registerTags() {
  auto &ES = J->getExecutionSession();
  ES.setErrorReporter([this](Error Err) { report(std::move(Err)); });
  auto &EPC = ES.getExecutorProcessControl();
  auto &Tags = ES.createBareJITDylib("<orcrt-jit tags>");
  auto LibsOrErr = ES.createJITDylib("<orcrt-jit libraries>");
  if (!LibsOrErr)
    return LibsOrErr.takeError();
  Libraries = &*LibsOrErr;

  SymbolMap Addrs;
  for (auto *Name :
       {"orcrt_jit_add", "orcrt_jit_compile", "orcrt_jit_lookup",
        "orcrt_jit_remove", "orcrt_jit_library", "orcrt_jit_close",
        "orcrt_jit_ping"}) {
    auto I = EPC.getBootstrapSymbolsMap().find(Name);
    if (I == EPC.getBootstrapSymbolsMap().end())
      return createStringError(inconvertibleErrorCode(),
                               "the executor published no %s: it is not a Go "
                               "host of this version of package jit",
                               Name);
    Addrs[ES.intern(Name)] = {I->second, JITSymbolFlags::Exported};
  }
  if (auto Err = Tags.define(absoluteSymbols(std::move(Addrs))))
    return Err;

  ExecutionSession::JITDispatchHandlerAssociationMap H;
  H[ES.intern("orcrt_jit_add")] = ES.wrapAsyncWithSPS<AddSig>(
      [this](unique_function<void(Expected<Added>)> Send, std::string Name,
             uint8_t Kind, std::vector<char> Bytes, bool WantObject) {
        Send(add(Name, Kind, Bytes, WantObject));
      });
  H[ES.intern("orcrt_jit_compile")] = ES.wrapAsyncWithSPS<CompileSig>(
      [this](unique_function<void(Expected<Added>)> Send, std::string Name,
             std::vector<std::string> Args, std::string Source,
             bool WantObject) {
        Send(compile(Name, Args, Source, WantObject));
      });
  H[ES.intern("orcrt_jit_lookup")] = ES.wrapAsyncWithSPS<LookupSig>(
      [this](unique_function<void(Expected<std::vector<ExecutorAddr>>)> Send,
             uint64_t ID, std::vector<std::string> Names) {
        Send(lookup(ID, Names));
      });
  H[ES.intern("orcrt_jit_remove")] = ES.wrapAsyncWithSPS<RemoveSig>(
      [this](unique_function<void(Error)> Send, uint64_t ID) {
        Send(remove(ID));
      });
  H[ES.intern("orcrt_jit_library")] = ES.wrapAsyncWithSPS<LibrarySig>(
      [this](unique_function<void(Error)> Send, std::string Path) {
        Send(addLibrary(Path));
      });
  H[ES.intern("orcrt_jit_close")] = ES.wrapAsyncWithSPS<CloseSig>(
      [this](unique_function<void(Error)> Send) {
        Send(Error::success());
        std::call_once(CloseOnce, [this] { Closing.set_value(); });
      });
  H[ES.intern("orcrt_jit_ping")] = ES.wrapAsyncWithSPS<PingSig>(
      [](unique_function<void(SPSEmpty)> Send) { Send(SPSEmpty()); });
  return ES.registerJITDispatchHandlers(Tags, std::move(H));
}

Error Controller::announce() {
  auto &EPC = J->getExecutionSession().getExecutorProcessControl();
  ExecutorAddr Ready;
  if (auto Err = EPC.getBootstrapSymbols({{Ready, "orcrt_jit_ready"}}))
    return Err;
  // What the code compiled here depends on besides its input: package
  // jit's compile cache keys objects by it.
  std::string Target = J->getTargetTriple().str();
  if (J->getTargetTriple() == Triple(sys::getProcessTriple())) {
    Target += " " + sys::getHostCPUName().str();
    for (auto &[Feature, On] : sys::getHostCPUFeatures())
      if (On)
        Target += " +" + Feature.str();
  }
  return EPC.callSPSWrapper<ReadySig>(Ready, std::string(LLVM_VERSION_STRING),
                                      ProtocolVersion, Target);
}

void Controller::wait(int In) {
  auto Closed = Closing.get_future();
  // POLLHUP shows a closed writer without consuming a byte: the
  // transport's reader keeps the stream.
  std::thread([In] {
    struct pollfd P = {In, 0, 0};
    while (poll(&P, 1, -1) < 0 && errno == EINTR)
      ;
    _exit(0); // the Go process is gone: nothing here is worth keeping
  }).detach();
  Closed.wait();
}

Expected<JITDylib &> Controller::module(uint64_t ID) {
  std::lock_guard<std::mutex> L(M);
  auto I = Modules.find(ID);
  if (I == Modules.end())
    return createStringError(inconvertibleErrorCode(),
                             "no module %llu (removed, or never added)",
                             static_cast<unsigned long long>(ID));
  return *I->second;
}

// removeModule runs what was held back for the Go side (it will not see
// this module's answer), then removes the module's JITDylib.
Error Controller::removeModule(JITDylib &JD) {
  Error Err = Mapper->flushDeferred(&JD);
  return joinErrors(std::move(Err),
                    J->getExecutionSession().removeJITDylib(JD));
}

Expected<Added> Controller::addObject(const std::string &Name,
                                      std::unique_ptr<MemoryBuffer> Obj,
                                      bool WantObject) {
  auto &ES = J->getExecutionSession();
  auto Interface = getObjectFileInterface(ES, Obj->getMemBufferRef());
  if (!Interface)
    return Interface.takeError();
  std::vector<char> Copy;
  if (WantObject)
    Copy.assign(Obj->getBufferStart(), Obj->getBufferEnd());

  uint64_t ID;
  {
    std::lock_guard<std::mutex> L(M);
    ID = NextID++;
  }
  auto JDOrErr = J->createJITDylib(Name + "#" + std::to_string(ID));
  if (!JDOrErr)
    return JDOrErr.takeError();
  JITDylib &JD = *JDOrErr;
  JD.addToLinkOrder(*Libraries);

  // Everything the module defines is linked now, so that a link error is
  // the add's, and its addresses travel with the answer.
  SymbolLookupSet Defined;
  for (auto &[Sym, Flags] : Interface->SymbolFlags)
    if (!Flags.hasMaterializationSideEffectsOnly())
      Defined.add(Sym);
  uint64_t Seq = reportSeq();
  // With the interface already read, the layer does not parse it again.
  Error Err = J->getObjLinkingLayer().add(JD.getDefaultResourceTracker(),
                                          std::move(Obj), std::move(*Interface));
  // Static constructors run now (with the ORC runtime's platform); without
  // it this is a no-op.
  if (!Err)
    Err = J->initialize(JD);
  Expected<SymbolMap> Found = SymbolMap();
  if (!Err) {
    Found = ES.lookup(
        makeJITDylibSearchOrder(&JD, JITDylibLookupFlags::MatchAllSymbols),
        std::move(Defined));
    if (!Found)
      Err = withReported(Found.takeError(), Seq);
  }
  if (Err)
    return joinErrors(std::move(Err), removeModule(JD));

  std::vector<std::pair<std::string, ExecutorAddr>> Syms;
  Syms.reserve(Found->size());
  for (auto &[Sym, Def] : *Found)
    Syms.emplace_back((*Sym).str(), Def.getAddress());
  std::vector<std::tuple<ExecutorAddr, std::vector<char>, ExecutorAddr>> Calls;
  for (auto &C : Mapper->takeDeferred(&JD))
    Calls.emplace_back(C.Fn, std::move(C.Args), C.Key);
  {
    std::lock_guard<std::mutex> L(M);
    Modules[ID] = &JD;
  }
  return Added(ID, std::move(Syms), std::move(Calls), std::move(Copy));
}

Expected<std::unique_ptr<MemoryBuffer>>
Controller::compileIR(ThreadSafeModule TSM) {
  return TSM.withModuleDo([this](Module &Mod) { return (*Compiler)(Mod); });
}

Expected<Added> Controller::add(const std::string &Name, uint8_t Kind,
                                const std::vector<char> &Bytes,
                                bool WantObject) {
  StringRef Data(Bytes.data(), Bytes.size());
  switch (Kind) {
  case KindObject:
    return addObject(Name, MemoryBuffer::getMemBufferCopy(Data, Name),
                     WantObject);
  case KindIR: {
    auto Ctx = std::make_unique<LLVMContext>();
    SMDiagnostic Diag;
    // LLVM's IR parser reads up to a terminating NUL: copy into one.
    auto MB = MemoryBuffer::getMemBufferCopy(Data, Name);
    auto Mod = parseIR(MB->getMemBufferRef(), Diag, *Ctx);
    if (!Mod) {
      std::string Msg;
      raw_string_ostream OS(Msg);
      Diag.print(nullptr, OS, /*ShowColors=*/false);
      return createStringError(inconvertibleErrorCode(),
                               StringRef(Msg).rtrim());
    }
    auto Obj = compileIR(ThreadSafeModule(std::move(Mod), std::move(Ctx)));
    if (!Obj)
      return Obj.takeError();
    return addObject(Name, std::move(*Obj), WantObject);
  }
  default:
    return createStringError(inconvertibleErrorCode(),
                             "unknown module kind %u", unsigned(Kind));
  }
}

Expected<Added> Controller::compile(const std::string &Name,
                                    const std::vector<std::string> &Args,
                                    const std::string &Source,
                                    bool WantObject) {
  auto TSM = compileSource(Name, Args, Source, J->getTargetTriple().str());
  if (!TSM)
    return TSM.takeError();
  auto Obj = compileIR(std::move(*TSM));
  if (!Obj)
    return Obj.takeError();
  return addObject(Name, std::move(*Obj), WantObject);
}

Expected<std::vector<ExecutorAddr>>
Controller::lookup(uint64_t ID, const std::vector<std::string> &Names) {
  auto JDOrErr = module(ID);
  if (!JDOrErr)
    return JDOrErr.takeError();
  auto &ES = J->getExecutionSession();
  SymbolLookupSet Set;
  std::vector<SymbolStringPtr> Interned;
  for (auto &N : Names) {
    Interned.push_back(J->mangleAndIntern(N));
    Set.add(Interned.back(), SymbolLookupFlags::WeaklyReferencedSymbol);
  }
  uint64_t Seq = reportSeq();
  auto Found = ES.lookup(
      makeJITDylibSearchOrder(&*JDOrErr, JITDylibLookupFlags::MatchAllSymbols),
      std::move(Set));
  if (!Found)
    return withReported(Found.takeError(), Seq);
  std::vector<ExecutorAddr> Out;
  for (auto &S : Interned) {
    auto I = Found->find(S);
    Out.push_back(I == Found->end() ? ExecutorAddr() : I->second.getAddress());
  }
  return Out;
}

Error Controller::remove(uint64_t ID) {
  JITDylib *JD;
  {
    std::lock_guard<std::mutex> L(M);
    auto I = Modules.find(ID);
    if (I == Modules.end())
      return createStringError(inconvertibleErrorCode(),
                               "no module %llu (removed, or never added)",
                               static_cast<unsigned long long>(ID));
    JD = I->second;
    Modules.erase(I);
  }
  Error Err = J->deinitialize(*JD);
  return joinErrors(std::move(Err),
                    J->getExecutionSession().removeJITDylib(*JD));
}

Error Controller::addLibrary(const std::string &Path) {
  auto G = EPCDynamicLibrarySearchGenerator::Load(J->getExecutionSession(),
                                                  Path.c_str());
  if (!G)
    return G.takeError();
  Libraries->addGenerator(std::move(*G));
  return Error::success();
}

static Expected<Parts> build(int In, int Out, StringRef Runtime) {
  // Requests run on the thread that read them (transport.h).
  auto EPC = orcrt::createLeaderFollowerEPC(In, Out);
  if (!EPC)
    return EPC.takeError();
  Parts P;
  // Without a platform no executor call runs between a link and the add's
  // answer, so the memory's initialize can travel in that answer.
  auto Mapper = orcrt::SharedSlabMapper::Create(**EPC, Runtime.empty());
  if (!Mapper)
    return Mapper.takeError();
  if (auto Err = (*Mapper)->reserveAhead(SlabSize))
    return std::move(Err);
  P.Mapper = Mapper->get();
  auto MemMgr = orcrt::createMemoryManager(SlabSize, std::move(*Mapper));

  LLJITBuilder B;
  // The executor is this machine's Go process: compile for this CPU, as an
  // in-process LLJIT does, when the triples agree.
  if ((*EPC)->getTargetTriple() == Triple(sys::getProcessTriple())) {
    auto JTMB = JITTargetMachineBuilder::detectHost();
    if (!JTMB)
      return JTMB.takeError();
    B.setJITTargetMachineBuilder(std::move(*JTMB));
  }
  B.setExecutorProcessControl(std::move(*EPC));
  B.setObjectLinkingLayerCreator(
      [&MemMgr](ExecutionSession &ES) -> Expected<std::unique_ptr<ObjectLayer>> {
        auto L = std::make_unique<ObjectLinkingLayer>(ES, std::move(MemMgr));
        auto EH = EHFrameRegistrationPlugin::Create(ES);
        if (!EH)
          return EH.takeError();
        L->addPlugin(std::move(*EH));
        return std::move(L);
      });
  B.setCompileFunctionCreator(
      [&P](JITTargetMachineBuilder JTMB)
          -> Expected<std::unique_ptr<IRCompileLayer::IRCompiler>> {
        auto C = std::make_unique<PooledCompiler>(std::move(JTMB));
        P.Compiler = C.get();
        return std::move(C);
      });
  // Without the ORC runtime no initializer runs: LLJIT's generic IR
  // platform would look up atexit and __dso_handle per JITDylib.
  if (!Runtime.empty())
    B.setPlatformSetUp(ExecutorNativePlatform(Runtime.str()));
  else
    B.setPlatformSetUp(setUpInactivePlatform);
  auto J = B.create();
  if (!J)
    return J.takeError();
  P.J = std::move(*J);
  return std::move(P);
}

static int run(int argc, char **argv) {
  std::string Runtime;
  std::vector<int> FDs;
  bool Usage = false;
  for (int I = 1; I < argc && !Usage; ++I) {
    StringRef A(argv[I]);
    int FD;
    if (A.consume_front("-orc-runtime="))
      Runtime = A.str();
    else if (!A.getAsInteger(10, FD) && FD >= 0)
      FDs.push_back(FD);
    else
      Usage = true;
  }
  if (Usage || FDs.size() != 2) {
    errs() << "usage: " << Prog << " [-orc-runtime=PATH] IN OUT\n";
    return 2;
  }
  ExitOnError ExitOnErr(std::string(Prog) + ": ");
  Controller C(ExitOnErr(build(FDs[0], FDs[1], Runtime)));
  ExitOnErr(C.registerTags());
  ExitOnErr(C.announce());
  C.wait(FDs[0]);
  C.shutdown(); // removes every module, then hangs up
  return 0;
}

int main(int argc, char **argv) {
  // Never die of a write to the Go side's closed pipe: wait() notices.
  signal(SIGPIPE, SIG_IGN);
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  InitializeNativeTargetAsmParser();
  return run(argc, argv);
}
