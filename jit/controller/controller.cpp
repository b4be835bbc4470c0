// orcrt-jit-controller: LLVM 22's ORC (LLJIT over SimpleRemoteEPC) run as a
// sidecar of a Go process that is its executor (package jit). The Go side
// creates a socketpair, starts this program with its end, and asks for work
// with executor-to-controller calls (jit-dispatch) whose tags it publishes
// as bootstrap symbols in Setup:
//
//   orcrt_jit_add       (name, kind, bytes) -> Expected<uint64 module>
//   orcrt_jit_compile   (name, clang args, source) -> Expected<uint64 module>
//   orcrt_jit_lookup    (module, names)     -> Expected<Seq<addr>> (0: absent)
//   orcrt_jit_remove    (module)            -> Error
//   orcrt_jit_library   (path)              -> Error
//   orcrt_jit_close     ()                  -> Error
//
// Once they are registered it calls the executor's orcrt_jit_ready wrapper
// with its LLVM version and the version of these requests. Each module is a JITDylib of its own, so modules
// may define the same names; removing one removes its JITDylib. The
// program ends when the Go side closes (orcrt_jit_close: every module is
// removed, then Hangup) or its end of the socket (the Go process died).
//
//   orcrt-jit-controller [-orc-runtime=PATH] IN OUT

#include "clang.h"

#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/EPCDynamicLibrarySearchGenerator.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/Shared/WrapperFunctionUtils.h"
#include "llvm/ExecutionEngine/Orc/SimpleRemoteEPC.h"
#include "llvm/ExecutionEngine/Orc/TaskDispatch.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Support/raw_ostream.h"

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <future>
#include <map>
#include <mutex>
#include <thread>

using namespace llvm;
using namespace llvm::orc;
using namespace llvm::orc::shared;

namespace {

const char *Prog = "orcrt-jit-controller";

Error fail(const Twine &Msg) {
  return make_error<StringError>(Msg, inconvertibleErrorCode());
}

// Module kinds of orcrt_jit_add (package jit's addKind).
enum AddKind : uint8_t { KindObject = 0, KindIR = 1 };

using AddSig = SPSExpected<uint64_t>(SPSString, uint8_t, SPSSequence<char>);
using CompileSig = SPSExpected<uint64_t>(SPSString, SPSSequence<SPSString>,
                                         SPSString);
using LookupSig = SPSExpected<SPSSequence<SPSExecutorAddr>>(
    uint64_t, SPSSequence<SPSString>);
using RemoveSig = SPSError(uint64_t);
using LibrarySig = SPSError(SPSString);
using CloseSig = SPSError();
using ReadySig = void(SPSString, uint32_t);

// ProtocolVersion changes with any change to the requests' names or
// signatures; package jit's controllerProtocol must be equal.
constexpr uint32_t ProtocolVersion = 2;

class Controller {
public:
  Controller(std::unique_ptr<LLJIT> J) : J(std::move(J)) {}

  Error registerTags();
  Error announce();
  // wait returns once the Go side asks to close; the process exits when
  // the Go side closes its end of In.
  void wait(int In);
  void shutdown() { J.reset(); }

private:
  Expected<uint64_t> add(const std::string &Name, uint8_t Kind,
                         const std::vector<char> &Bytes);
  Expected<uint64_t> compile(const std::string &Name,
                             const std::vector<std::string> &Args,
                             const std::string &Source);
  // addModule makes a module's JITDylib, fills it with Load and runs its
  // initializers; on failure nothing of it stays.
  Expected<uint64_t> addModule(const std::string &Name,
                               function_ref<Error(JITDylib &)> Load);
  Expected<std::vector<ExecutorAddr>>
  lookup(uint64_t ID, const std::vector<std::string> &Names);
  Error remove(uint64_t ID);
  Error addLibrary(const std::string &Path);
  Expected<JITDylib &> module(uint64_t ID);

  std::unique_ptr<LLJIT> J;
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

  std::promise<void> Closing;
  std::once_flag CloseOnce;
};

// reportedLimit bounds the reported errors kept.
constexpr size_t ReportedLimit = 64;

void Controller::report(Error Err) {
  std::string Msg = toString(std::move(Err));
  errs() << Prog << ": " << Msg << "\n";
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
        "orcrt_jit_remove", "orcrt_jit_library", "orcrt_jit_close"}) {
    auto I = EPC.getBootstrapSymbolsMap().find(Name);
    if (I == EPC.getBootstrapSymbolsMap().end())
      return fail(Twine("the executor published no ") + Name +
                  ": it is not a Go host of package jit");
    Addrs[ES.intern(Name)] = {I->second, JITSymbolFlags::Exported};
  }
  if (auto Err = Tags.define(absoluteSymbols(std::move(Addrs))))
    return Err;

  ExecutionSession::JITDispatchHandlerAssociationMap H;
  H[ES.intern("orcrt_jit_add")] = ES.wrapAsyncWithSPS<AddSig>(
      [this](unique_function<void(Expected<uint64_t>)> Send, std::string Name,
             uint8_t Kind, std::vector<char> Bytes) {
        Send(add(Name, Kind, Bytes));
      });
  H[ES.intern("orcrt_jit_compile")] = ES.wrapAsyncWithSPS<CompileSig>(
      [this](unique_function<void(Expected<uint64_t>)> Send, std::string Name,
             std::vector<std::string> Args, std::string Source) {
        Send(compile(Name, Args, Source));
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
  return ES.registerJITDispatchHandlers(Tags, std::move(H));
}

Error Controller::announce() {
  auto &EPC = J->getExecutionSession().getExecutorProcessControl();
  ExecutorAddr Ready;
  if (auto Err = EPC.getBootstrapSymbols({{Ready, "orcrt_jit_ready"}}))
    return Err;
  return EPC.callSPSWrapper<ReadySig>(Ready, std::string(LLVM_VERSION_STRING),
                                      ProtocolVersion);
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
    return fail("no module " + Twine(ID) + " (removed, or never added)");
  return *I->second;
}

Expected<uint64_t> Controller::addModule(const std::string &Name,
                                         function_ref<Error(JITDylib &)> Load) {
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
  // Static constructors run now (with the ORC runtime's platform); without
  // it this is a no-op.
  Error Err = Load(JD);
  if (!Err)
    Err = J->initialize(JD);
  if (Err)
    return joinErrors(std::move(Err),
                      J->getExecutionSession().removeJITDylib(JD));
  std::lock_guard<std::mutex> L(M);
  Modules[ID] = &JD;
  return ID;
}

Expected<uint64_t> Controller::add(const std::string &Name, uint8_t Kind,
                                   const std::vector<char> &Bytes) {
  StringRef Data(Bytes.data(), Bytes.size());
  return addModule(Name, [&](JITDylib &JD) -> Error {
    switch (Kind) {
    case KindObject:
      return J->addObjectFile(JD, MemoryBuffer::getMemBufferCopy(Data, Name));
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
        return fail(StringRef(Msg).rtrim());
      }
      return J->addIRModule(JD,
                            ThreadSafeModule(std::move(Mod), std::move(Ctx)));
    }
    default:
      return fail("unknown module kind " + Twine(unsigned(Kind)));
    }
  });
}

Expected<uint64_t> Controller::compile(const std::string &Name,
                                       const std::vector<std::string> &Args,
                                       const std::string &Source) {
  auto TSM = compileSource(Name, Args, Source, J->getTargetTriple().str());
  if (!TSM)
    return TSM.takeError();
  return addModule(Name, [&](JITDylib &JD) {
    return J->addIRModule(JD, std::move(*TSM));
  });
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
  if (!Found) {
    // The cause went to the error reporter; the lookup only says it failed.
    std::string Why = reportedSince(Seq);
    if (Why.empty())
      return Found.takeError();
    return fail(toString(Found.takeError()) + ": " + Why);
  }
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
      return fail("no module " + Twine(ID) + " (removed, or never added)");
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

// WarmPool runs each task on a thread of its own, as LLVM's
// DynamicThreadPoolTaskDispatcher does (tasks block on the executor's
// answers, so none may wait for another), but keeps finished threads
// waiting for the next task instead of starting one per task.
class WarmPool : public TaskDispatcher {
public:
  void dispatch(std::unique_ptr<Task> T) override {
    std::lock_guard<std::mutex> L(M);
    Queue.push_back(std::move(T));
    if (Waiting > 0) {
      --Waiting;
      ++Wakeups;
      Wake.notify_one();
      return;
    }
    ++Threads;
    std::thread([this] { work(); }).detach();
  }

  void shutdown() override {
    std::unique_lock<std::mutex> L(M);
    Shut = true;
    Wake.notify_all();
    Gone.wait(L, [this] { return Threads == 0; });
  }

private:
  void work() {
    std::unique_lock<std::mutex> L(M);
    for (;;) {
      while (!Queue.empty()) {
        auto T = std::move(Queue.front());
        Queue.pop_front();
        L.unlock();
        T->run();
        T.reset();
        L.lock();
      }
      if (Shut)
        break;
      ++Waiting;
      Wake.wait(L, [this] { return Wakeups > 0 || Shut; });
      if (Wakeups > 0)
        --Wakeups;
      else
        --Waiting;
    }
    --Threads;
    Gone.notify_all();
  }

  std::mutex M;
  std::condition_variable Wake, Gone;
  std::deque<std::unique_ptr<Task>> Queue;
  size_t Threads = 0, Waiting = 0, Wakeups = 0;
  bool Shut = false;
};

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

Expected<std::unique_ptr<LLJIT>> build(int In, int Out, StringRef Runtime) {
  auto EPC = SimpleRemoteEPC::Create<FDSimpleRemoteEPCTransport>(
      std::make_unique<WarmPool>(),
      SimpleRemoteEPC::Setup(), In, Out);
  if (!EPC)
    return EPC.takeError();
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
  B.setCompileFunctionCreator([](JITTargetMachineBuilder JTMB)
                                  -> Expected<std::unique_ptr<IRCompileLayer::IRCompiler>> {
    return std::make_unique<PooledCompiler>(std::move(JTMB));
  });
  // Without the ORC runtime no initializer runs: LLJIT's generic IR
  // platform would look up atexit and __dso_handle per JITDylib.
  if (!Runtime.empty())
    B.setPlatformSetUp(ExecutorNativePlatform(Runtime.str()));
  else
    B.setPlatformSetUp(setUpInactivePlatform);
  return B.create();
}

int run(int argc, char **argv) {
  std::string Runtime;
  std::vector<int> FDs;
  for (int I = 1; I < argc; ++I) {
    StringRef A(argv[I]);
    int FD;
    if (A.consume_front("-orc-runtime="))
      Runtime = A.str();
    else if (!A.getAsInteger(10, FD) && FD >= 0)
      FDs.push_back(FD);
    else
      FDs.clear(), I = argc;
  }
  if (FDs.size() != 2) {
    errs() << "usage: " << Prog << " [-orc-runtime=PATH] IN OUT\n";
    return 2;
  }
  auto JOrErr = build(FDs[0], FDs[1], Runtime);
  if (!JOrErr) {
    logAllUnhandledErrors(JOrErr.takeError(), errs(), Twine(Prog) + ": ");
    return 1;
  }
  Controller C(std::move(*JOrErr));
  if (auto Err = C.registerTags()) {
    logAllUnhandledErrors(std::move(Err), errs(), Twine(Prog) + ": ");
    return 1;
  }
  if (auto Err = C.announce()) {
    logAllUnhandledErrors(std::move(Err), errs(), Twine(Prog) + ": ");
    return 1;
  }
  C.wait(FDs[0]);
  C.shutdown(); // removes every module, then hangs up
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  // Never die of a write to the Go side's closed socket: wait() notices.
  signal(SIGPIPE, SIG_IGN);
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  InitializeNativeTargetAsmParser();
  return run(argc, argv);
}
