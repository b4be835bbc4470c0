// orcrt-jit-controller: LLVM 22's ORC (LLJIT over SimpleRemoteEPC) run as a
// sidecar of a Go process that is its executor (package jit). The Go side
// creates two pipes, starts this program with its ends, and asks for work
// with executor-to-controller calls (jit-dispatch) whose tags it publishes
// as bootstrap symbols in Setup. Their names, signatures and the protocol
// version are in requests.inc, generated from jit/requests.txt:
//
//   orcrt_jit_add       (name, kind, bytes, want object, ticket, links)
//                                           -> Expected<Added>
//   orcrt_jit_compile   (name, clang args, source, want object, ticket,
//                        links)             -> Expected<Added>
//   orcrt_jit_lookup    (module, names)     -> Expected<Seq<addr>> (0: absent)
//   orcrt_jit_remove    (module)            -> Error
//   orcrt_jit_library   (path)              -> Error
//   orcrt_jit_close     ()                  -> Error
//   orcrt_jit_ping      ()                  -> ()
//   orcrt_jit_cancel    (ticket)            -> ()
//
// Added is the module's id, every symbol it defines with its address and,
// for functions, what the link proved about them (facts.h: size, calls,
// stack size), the executor calls held back for the Go side to run
// before it returns (the memory's initialize: docs/protocol.md §11), and
// the object compiled when asked for (package jit's compile cache). Once
// the requests are registered it calls the executor's orcrt_jit_ready
// wrapper with its LLVM version, the version of these requests and the
// target it compiles for. Each module is a JITDylib of its own, so
// modules may define the same names; links are the modules whose
// exported symbols it sees, before the process's and the libraries'.
// Removing a module removes its JITDylib; one that others link against
// is refused. Compiles run in worker processes (worker.h): cancel with a
// compile's ticket kills its worker. The program ends when the Go side
// closes (orcrt_jit_close: every module is removed, then Hangup) or its
// end of the pipe (the Go process died).
//
//   orcrt-jit-controller [-orc-runtime=PATH] IN OUT
//   orcrt-jit-controller -compile-worker -target=TRIPLE IN OUT

#include "facts.h"
#include "memory.h"
#include "requests.inc"
#include "transport.h"
#include "worker.h"

#include "llvm/ExecutionEngine/Orc/EHFrameRegistrationPlugin.h"
#include "llvm/ExecutionEngine/Orc/EPCDynamicLibrarySearchGenerator.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ObjectFileInterface.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/Orc/Shared/WrapperFunctionUtils.h"
#include "llvm/ExecutionEngine/Orc/SimpleRemoteEPC.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <fcntl.h>
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
namespace wire = orcrt::wire;

static const char *Prog = "orcrt-jit-controller";

// SlabSize is the granularity of the executor memory reserved for code:
// address space, not memory, until written.
static constexpr size_t SlabSize = 64 << 20;

// Added is what wire::SPSAdded carries; AddedSymbol one of its symbols
// (name, address, facts).
using AddedSymbol =
    std::tuple<std::string, ExecutorAddr, uint64_t, uint8_t, bool, uint64_t>;
using Added = std::tuple<
    uint64_t, std::vector<AddedSymbol>,
    std::vector<std::tuple<ExecutorAddr, std::vector<char>, ExecutorAddr>>,
    std::vector<char>>;

namespace {
// Parts is what build makes: the JIT, and the compiler and mapper inside
// it that requests use directly.
struct Parts {
  std::unique_ptr<LLJIT> J;
  orcrt::SharedSlabMapper *Mapper = nullptr;
  orcrt::FunctionFacts *Facts = nullptr;
};

class Controller {
public:
  Controller(Parts P, std::unique_ptr<orcrt::CompileWorkers> Workers)
      : J(std::move(P.J)), Mapper(P.Mapper), Facts(P.Facts),
        Workers(std::move(Workers)) {}

  Error registerTags();
  Error announce();
  // wait returns once the Go side asks to close; the process exits when
  // the Go side closes its end of In.
  void wait(int In);
  void shutdown() {
    Workers.reset();
    J.reset();
  }

private:
  Expected<Added> add(const std::string &Name, uint8_t Kind,
                      const std::vector<char> &Bytes, bool WantObject,
                      uint64_t Ticket, const std::vector<uint64_t> &Links);
  Expected<Added> compile(const std::string &Name,
                          const std::vector<std::string> &Args,
                          const std::string &Source, bool WantObject,
                          uint64_t Ticket, const std::vector<uint64_t> &Links);
  // addObject makes a module's JITDylib, linked against the modules of
  // Links, links Obj into it, runs its initializers and looks up
  // everything it defines; on failure nothing of it stays.
  Expected<Added> addObject(const std::string &Name,
                            std::unique_ptr<MemoryBuffer> Obj, bool WantObject,
                            const std::vector<uint64_t> &Links);
  Expected<std::vector<ExecutorAddr>>
  lookup(uint64_t ID, const std::vector<std::string> &Names);
  Error remove(uint64_t ID);
  Error addLibrary(const std::string &Path);
  Expected<JITDylib &> module(uint64_t ID);
  Error removeModule(JITDylib &JD);

  std::unique_ptr<LLJIT> J;
  orcrt::SharedSlabMapper *Mapper;
  orcrt::FunctionFacts *Facts;
  std::unique_ptr<orcrt::CompileWorkers> Workers;
  JITDylib *Libraries = nullptr; // shared libraries every module links against

  struct Loaded {
    JITDylib *JD;
    std::vector<uint64_t> Links; // the modules it links against
  };
  std::mutex M;
  std::map<uint64_t, Loaded> Modules;
  std::vector<JITDylibSP> Uninitialized; // see keepAddress
  void keepAddress(JITDylib &JD);
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
} // namespace

// ReportedLimit bounds the reported errors kept.
static constexpr size_t ReportedLimit = 64;

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
  return createStringError("%s: %s", toString(std::move(Err)).c_str(),
                           Why.c_str());
}

// handle adds Request's handler (requests.inc) to H.
template <typename Request, typename HandlerT>
static void handle(ExecutionSession &ES,
                   ExecutionSession::JITDispatchHandlerAssociationMap &H,
                   HandlerT &&Handler) {
  H[ES.intern(Request::Name)] = ES.wrapAsyncWithSPS<typename Request::Sig>(
      std::forward<HandlerT>(Handler));
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
  for (const char *Name : wire::RequestNames) {
    auto I = EPC.getBootstrapSymbolsMap().find(Name);
    if (I == EPC.getBootstrapSymbolsMap().end())
      return createStringError("the executor published no %s: it is not a Go "
                               "host of this version of package jit",
                               Name);
    Addrs[ES.intern(Name)] = {I->second, JITSymbolFlags::Exported};
  }
  if (auto Err = Tags.define(absoluteSymbols(std::move(Addrs))))
    return Err;

  ExecutionSession::JITDispatchHandlerAssociationMap H;
  handle<wire::Add>(ES, H,
                    [this](unique_function<void(Expected<Added>)> Send,
                           std::string Name, uint8_t Kind,
                           std::vector<char> Bytes, bool WantObject,
                           uint64_t Ticket, std::vector<uint64_t> Links) {
                      Send(add(Name, Kind, Bytes, WantObject, Ticket, Links));
                    });
  handle<wire::Compile>(
      ES, H,
      [this](unique_function<void(Expected<Added>)> Send, std::string Name,
             std::vector<std::string> Args, std::string Source, bool WantObject,
             uint64_t Ticket, std::vector<uint64_t> Links) {
        Send(compile(Name, Args, Source, WantObject, Ticket, Links));
      });
  handle<wire::Lookup>(
      ES, H,
      [this](unique_function<void(Expected<std::vector<ExecutorAddr>>)> Send,
             uint64_t ID,
             std::vector<std::string> Names) { Send(lookup(ID, Names)); });
  handle<wire::Remove>(ES, H,
                       [this](unique_function<void(Error)> Send, uint64_t ID) {
                         Send(remove(ID));
                       });
  handle<wire::Library>(ES, H,
                        [this](unique_function<void(Error)> Send,
                               std::string Path) { Send(addLibrary(Path)); });
  handle<wire::Close>(ES, H, [this](unique_function<void(Error)> Send) {
    Send(Error::success());
    std::call_once(CloseOnce, [this] { Closing.set_value(); });
  });
  handle<wire::Ping>(
      ES, H, [](unique_function<void(SPSEmpty)> Send) { Send(SPSEmpty()); });
  handle<wire::Cancel>(
      ES, H, [this](unique_function<void(SPSEmpty)> Send, uint64_t Ticket) {
        Workers->cancel(Ticket);
        Send(SPSEmpty());
      });
  // A request of the table without its handler here fails every start.
  for (const char *Name : wire::RequestNames)
    if (!H.count(ES.intern(Name)))
      return createStringError("no handler for %s", Name);
  return ES.registerJITDispatchHandlers(Tags, std::move(H));
}

Error Controller::announce() {
  auto &EPC = J->getExecutionSession().getExecutorProcessControl();
  ExecutorAddr Ready;
  if (auto Err = EPC.getBootstrapSymbols({{Ready, wire::Ready::Name}}))
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
  return EPC.callSPSWrapper<wire::Ready::Sig>(
      Ready, std::string(LLVM_VERSION_STRING), wire::ProtocolVersion, Target);
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
    return createStringError("no module %llu (removed, or never added)",
                             static_cast<unsigned long long>(ID));
  return *I->second.JD;
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
                                      bool WantObject,
                                      const std::vector<uint64_t> &Links) {
  auto &ES = J->getExecutionSession();
  auto Interface = getObjectFileInterface(ES, Obj->getMemBufferRef());
  if (!Interface)
    return Interface.takeError();
  std::vector<char> Copy;
  if (WantObject)
    Copy.assign(Obj->getBufferStart(), Obj->getBufferEnd());

  uint64_t ID;
  JITDylibSearchOrder Order;
  {
    std::lock_guard<std::mutex> L(M);
    for (uint64_t Dep : Links) {
      auto I = Modules.find(Dep);
      if (I == Modules.end())
        return createStringError("no module %llu to link against (removed, "
                                 "or never added)",
                                 static_cast<unsigned long long>(Dep));
      Order.push_back(
          {I->second.JD, JITDylibLookupFlags::MatchExportedSymbolsOnly});
    }
    ID = NextID++;
  }
  auto JDOrErr = J->createJITDylib(Name + "#" + std::to_string(ID));
  if (!JDOrErr)
    return JDOrErr.takeError();
  JITDylib &JD = *JDOrErr;
  // The linked modules first, then LLJIT's defaults (the process), then
  // the libraries.
  JD.withLinkOrderDo([&](const JITDylibSearchOrder &Defaults) {
    for (auto &E : Defaults)
      if (E.first != &JD)
        Order.push_back(E);
  });
  Order.push_back({Libraries, JITDylibLookupFlags::MatchExportedSymbolsOnly});
  JD.setLinkOrder(std::move(Order));

  // Everything the module defines is linked now, so that a link error is
  // the add's, and its addresses travel with the answer.
  SymbolLookupSet Defined;
  for (auto &[Sym, Flags] : Interface->SymbolFlags)
    if (!Flags.hasMaterializationSideEffectsOnly())
      Defined.add(Sym);
  uint64_t Seq = reportSeq();
  // With the interface already read, the layer does not parse it again.
  Error Err = J->getObjLinkingLayer().add(
      JD.getDefaultResourceTracker(), std::move(Obj), std::move(*Interface));
  // Linked before it is initialized, so that a link error leaves a
  // JITDylib the platform has not seen.
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
  // Static constructors run now (with the ORC runtime's platform); without
  // it this is a no-op.
  if (Error InitErr = J->initialize(JD)) {
    keepAddress(JD);
    return joinErrors(std::move(InitErr), removeModule(JD));
  }

  auto FnFacts = Facts->take(JD);
  std::vector<AddedSymbol> Syms;
  Syms.reserve(Found->size());
  for (auto &[Sym, Def] : *Found) {
    orcrt::Facts F; // data: none
    auto I = FnFacts.find(Sym);
    if (I != FnFacts.end())
      F = I->second;
    Syms.emplace_back((*Sym).str(), Def.getAddress(), F.Size, F.Calls,
                      F.HasStackSize, F.StackSize);
  }
  std::vector<std::tuple<ExecutorAddr, std::vector<char>, ExecutorAddr>> Calls;
  for (auto &C : Mapper->takeDeferred(&JD))
    Calls.emplace_back(C.Fn, std::move(C.Args), C.Key);
  {
    std::lock_guard<std::mutex> L(M);
    Modules[ID] = Loaded{&JD, Links};
  }
  return Added(ID, std::move(Syms), std::move(Calls), std::move(Copy));
}

Expected<Added> Controller::add(const std::string &Name, uint8_t Kind,
                                const std::vector<char> &Bytes, bool WantObject,
                                uint64_t Ticket,
                                const std::vector<uint64_t> &Links) {
  StringRef Data(Bytes.data(), Bytes.size());
  switch (Kind) {
  case wire::KindObject:
    return addObject(Name, MemoryBuffer::getMemBufferCopy(Data, Name),
                     WantObject, Links);
  case wire::KindIR: {
    auto Obj =
        Workers->compile(Ticket, {orcrt::CompileJob::IR, Name, {}, Data});
    if (!Obj)
      return Obj.takeError();
    return addObject(Name, std::move(*Obj), WantObject, Links);
  }
  default:
    return createStringError("unknown module kind %u", unsigned(Kind));
  }
}

Expected<Added> Controller::compile(const std::string &Name,
                                    const std::vector<std::string> &Args,
                                    const std::string &Source, bool WantObject,
                                    uint64_t Ticket,
                                    const std::vector<uint64_t> &Links) {
  auto Obj =
      Workers->compile(Ticket, {orcrt::CompileJob::Source, Name, Args, Source});
  if (!Obj)
    return Obj.takeError();
  return addObject(Name, std::move(*Obj), WantObject, Links);
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
      return createStringError("no module %llu (removed, or never added)",
                               static_cast<unsigned long long>(ID));
    // Its users' code calls into it: package jit refuses this first.
    for (auto &[User, Mod] : Modules)
      if (is_contained(Mod.Links, ID))
        return createStringError("module %llu is linked against by module %llu",
                                 static_cast<unsigned long long>(ID),
                                 static_cast<unsigned long long>(User));
    JD = I->second.JD;
    Modules.erase(I);
  }
  Error Err = J->deinitialize(*JD);
  if (Err)
    keepAddress(*JD);
  return joinErrors(std::move(Err),
                    J->getExecutionSession().removeJITDylib(*JD));
}

// keepAddress keeps JD's memory, removed or not, for the life of the
// controller. LLJIT's ORC platform support remembers every JITDylib it
// initialized by address and forgets one only when its deinitialize
// succeeds: a new JITDylib at the address of one that failed would be
// taken for it (its dlupdate and dlclose then fail).
void Controller::keepAddress(JITDylib &JD) {
  std::lock_guard<std::mutex> L(M);
  Uninitialized.push_back(&JD);
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
  auto Facts = std::make_unique<orcrt::FunctionFacts>(
      [M = P.Mapper](ExecutorAddr A) { return M->contains(A); });
  P.Facts = Facts.get();
  auto MemMgr = orcrt::createMemoryManager(SlabSize, std::move(*Mapper));

  LLJITBuilder B;
  // The executor is this machine's Go process: compile for this CPU, as an
  // in-process LLJIT does, when the triples agree.
  auto JTMB = (*EPC)->getTargetTriple() == Triple(sys::getProcessTriple())
                  ? JITTargetMachineBuilder::detectHost()
                  : JITTargetMachineBuilder((*EPC)->getTargetTriple());
  if (!JTMB)
    return JTMB.takeError();
  // Code compiled here records its stack use, as the workers' does.
  JTMB->getOptions().EmitStackSizeSection = true;
  B.setJITTargetMachineBuilder(std::move(*JTMB));
  B.setExecutorProcessControl(std::move(*EPC));
  B.setObjectLinkingLayerCreator(
      [&MemMgr,
       &Facts](ExecutionSession &ES) -> Expected<std::unique_ptr<ObjectLayer>> {
        auto L = std::make_unique<ObjectLinkingLayer>(ES, std::move(MemMgr));
        L->addPlugin(std::move(Facts));
        auto EH = EHFrameRegistrationPlugin::Create(ES);
        if (!EH)
          return EH.takeError();
        L->addPlugin(std::move(*EH));
        return std::move(L);
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
  std::string Runtime, Target;
  std::vector<int> FDs;
  bool Usage = false, Worker = false;
  for (int I = 1; I < argc && !Usage; ++I) {
    StringRef A(argv[I]);
    int FD;
    if (A.consume_front("-orc-runtime="))
      Runtime = A.str();
    else if (A == "-compile-worker")
      Worker = true;
    else if (A.consume_front("-target="))
      Target = A.str();
    else if (!A.getAsInteger(10, FD) && FD >= 0)
      FDs.push_back(FD);
    else
      Usage = true;
  }
  if (Usage || FDs.size() != 2 || Worker == Target.empty()) {
    errs() << "usage: " << Prog << " [-orc-runtime=PATH] IN OUT\n"
           << "       " << Prog << " -compile-worker -target=TRIPLE IN OUT\n";
    return 2;
  }
  if (Worker)
    return orcrt::runCompileWorker(FDs[0], FDs[1], Target);
  // The compile workers inherit none of the Go side's pipe: its end of
  // file must come when this process exits.
  for (int FD : FDs)
    fcntl(FD, F_SETFD, fcntl(FD, F_GETFD) | FD_CLOEXEC);
  ExitOnError ExitOnErr(std::string(Prog) + ": ");
  auto P = ExitOnErr(build(FDs[0], FDs[1], Runtime));
  auto Workers = std::make_unique<orcrt::CompileWorkers>(
      "/proc/self/exe", P.J->getTargetTriple().str(),
      std::max(1u, std::thread::hardware_concurrency()));
  auto *W = Workers.get();
  Controller C(std::move(P), std::move(Workers));
  ExitOnErr(C.registerTags());
  // Started before the Go side may ask for a compile, which would start
  // another: its start-up (loading LLVM's and clang's libraries) runs
  // while the Go side starts, and the host takes its first steps.
  if (auto Err = W->start())
    logAllUnhandledErrors(std::move(Err), errs(), std::string(Prog) + ": ");
  ExitOnErr(C.announce());
  C.wait(FDs[0]);
  C.shutdown(); // removes every module, then hangs up
  return 0;
}

int main(int argc, char **argv) {
  // A crash prints LLVM's stack trace on stderr, whose tail package jit
  // keeps (ControllerExitError). A write to the Go side's closed pipe
  // kills nothing: wait() notices.
  InitLLVM X(argc, argv, /*InstallPipeSignalExitHandler=*/false);
  signal(SIGPIPE, SIG_IGN);
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  InitializeNativeTargetAsmParser();
  InitializeNativeTargetDisassembler();
  return run(argc, argv);
}
