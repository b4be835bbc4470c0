// Compile workers (worker.h). A job travels over a pipe pair as
//
//   job:    kind u8, argument count u32, name, the arguments, the data
//   answer: ok u8, then the object (ok) or the error's text
//
// each string a little-endian u64 length and its bytes. The worker is this
// program started with -compile-worker; it needs no trust in what it
// reads beyond that it comes from its parent.

#include "worker.h"

#include "clang.h"

#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace llvm;

namespace orcrt {

// MaxField bounds a field a worker reads: far above any compile's input.
static constexpr uint64_t MaxField = uint64_t(1) << 32;
// CancelledKept bounds the cancels kept for compiles not started yet.
static constexpr size_t CancelledKept = 256;

static bool writeAll(int FD, const void *P, size_t N) {
  auto *B = static_cast<const char *>(P);
  while (N > 0) {
    ssize_t W = ::write(FD, B, N);
    if (W < 0 && errno == EINTR)
      continue;
    if (W <= 0)
      return false;
    B += W;
    N -= size_t(W);
  }
  return true;
}

static bool readAll(int FD, void *P, size_t N) {
  auto *B = static_cast<char *>(P);
  while (N > 0) {
    ssize_t R = ::read(FD, B, N);
    if (R < 0 && errno == EINTR)
      continue;
    if (R <= 0)
      return false;
    B += R;
    N -= size_t(R);
  }
  return true;
}

static bool writeString(int FD, StringRef S) {
  uint64_t N = S.size();
  return writeAll(FD, &N, sizeof N) && writeAll(FD, S.data(), S.size());
}

static bool readString(int FD, std::string &S) {
  uint64_t N;
  if (!readAll(FD, &N, sizeof N) || N > MaxField)
    return false;
  S.resize(N);
  return readAll(FD, S.data(), N);
}

namespace {
// Compiler turns a module into an object with one TargetMachine, made as
// the controller's LLJIT makes its own: for this CPU when the target is
// this machine.
class Compiler {
public:
  explicit Compiler(StringRef Triple) : Triple(Triple) {}

  Expected<std::unique_ptr<MemoryBuffer>> operator()(Module &M) {
    if (!TM) {
      auto JTMB = llvm::Triple(Triple) == llvm::Triple(sys::getProcessTriple())
                      ? orc::JITTargetMachineBuilder::detectHost()
                      : orc::JITTargetMachineBuilder(llvm::Triple(Triple));
      if (!JTMB)
        return JTMB.takeError();
      // The stack each function's frame uses, for package jit's call tiers
      // (facts.h).
      JTMB->getOptions().EmitStackSizeSection = true;
      auto Made = JTMB->createTargetMachine();
      if (!Made)
        return Made.takeError();
      TM = std::move(*Made);
    }
    return orc::SimpleCompiler(*TM)(M);
  }

  Expected<std::unique_ptr<MemoryBuffer>> compile(const CompileJob &Job) {
    if (Job.K == CompileJob::Source) {
      auto TSM = compileSource(Job.Name, Job.Args, Job.Data.str(), Triple);
      if (!TSM)
        return TSM.takeError();
      return TSM->withModuleDo([this](Module &M) { return (*this)(M); });
    }
    LLVMContext Ctx;
    SMDiagnostic Diag;
    // LLVM's IR parser reads up to a terminating NUL: copy into one.
    auto MB = MemoryBuffer::getMemBufferCopy(Job.Data, Job.Name);
    auto Mod = parseIR(MB->getMemBufferRef(), Diag, Ctx);
    if (!Mod) {
      std::string Msg;
      raw_string_ostream OS(Msg);
      Diag.print(nullptr, OS, /*ShowColors=*/false);
      return createStringError(StringRef(Msg).rtrim());
    }
    return (*this)(*Mod);
  }

private:
  std::string Triple;
  std::unique_ptr<TargetMachine> TM;
};
} // namespace

static bool readJob(int FD, CompileJob &Job, std::string &Data) {
  uint8_t K;
  uint32_t NArgs;
  if (!readAll(FD, &K, 1) || !readAll(FD, &NArgs, sizeof NArgs) ||
      (K != CompileJob::IR && K != CompileJob::Source) || NArgs > 4096 ||
      !readString(FD, Job.Name))
    return false;
  Job.K = CompileJob::Kind(K);
  Job.Args.resize(NArgs);
  for (auto &A : Job.Args)
    if (!readString(FD, A))
      return false;
  if (!readString(FD, Data))
    return false;
  Job.Data = Data;
  return true;
}

static bool writeJob(int FD, const CompileJob &Job) {
  uint8_t K = Job.K;
  uint32_t NArgs = Job.Args.size();
  if (!writeAll(FD, &K, 1) || !writeAll(FD, &NArgs, sizeof NArgs) ||
      !writeString(FD, Job.Name))
    return false;
  for (auto &A : Job.Args)
    if (!writeString(FD, A))
      return false;
  return writeString(FD, Job.Data);
}

static std::string describeExit(int Status) {
  if (WIFSIGNALED(Status))
    return "died of signal " + std::to_string(WTERMSIG(Status)) + " (" +
           strsignal(WTERMSIG(Status)) + ")";
  if (WIFEXITED(Status))
    return "exited with status " + std::to_string(WEXITSTATUS(Status));
  return "ended";
}

CompileWorkers::CompileWorkers(std::string Self, std::string Triple,
                               unsigned Max)
    : Self(std::move(Self)), Triple(std::move(Triple)),
      Max(Max == 0 ? 1 : Max) {}

CompileWorkers::~CompileWorkers() {
  std::lock_guard<std::mutex> L(Mu);
  Closing = true;
  for (auto &[Ticket, Pid] : Busy)
    if (Pid > 0)
      ::kill(Pid, SIGKILL);
  for (auto &W : Idle) {
    ::close(W.ToWorker); // the worker exits when its input closes
    ::close(W.FromWorker);
    ::kill(W.Pid, SIGKILL);
    ::waitpid(W.Pid, nullptr, 0);
  }
}

Expected<CompileWorkers::Worker> CompileWorkers::spawn() {
  int ToW[2], FromW[2];
  if (::pipe2(ToW, O_CLOEXEC) != 0)
    return errorCodeToError(std::error_code(errno, std::generic_category()));
  if (::pipe2(FromW, O_CLOEXEC) != 0) {
    int E = errno;
    ::close(ToW[0]);
    ::close(ToW[1]);
    return errorCodeToError(std::error_code(E, std::generic_category()));
  }
  posix_spawn_file_actions_t FA;
  posix_spawn_file_actions_init(&FA);
  // dup2 clears close-on-exec on the copies (also when they are already
  // 3 and 4); nothing else of the controller's is inherited.
  posix_spawn_file_actions_adddup2(&FA, ToW[0], 3);
  posix_spawn_file_actions_adddup2(&FA, FromW[1], 4);
  std::string Target = "-target=" + Triple;
  const char *Argv[] = {"orcrt-jit-controller",
                        "-compile-worker",
                        Target.c_str(),
                        "3",
                        "4",
                        nullptr};
  pid_t Pid;
  int E = posix_spawn(&Pid, Self.c_str(), &FA, nullptr,
                      const_cast<char *const *>(Argv), environ);
  posix_spawn_file_actions_destroy(&FA);
  ::close(ToW[0]);
  ::close(FromW[1]);
  if (E != 0) {
    ::close(ToW[1]);
    ::close(FromW[0]);
    return createStringError("starting a compile worker: " +
                             Twine(std::strerror(E)));
  }
  return Worker{Pid, ToW[1], FromW[0]};
}

Error CompileWorkers::start() {
  auto W = spawn();
  if (!W)
    return W.takeError();
  std::lock_guard<std::mutex> L(Mu);
  ++Live;
  Idle.push_back(*W);
  return Error::success();
}

bool CompileWorkers::takeCancelled(uint64_t Ticket) {
  for (auto I = CancelledEarly.begin(); I != CancelledEarly.end(); ++I)
    if (*I == Ticket) {
      CancelledEarly.erase(I);
      return true;
    }
  return false;
}

Expected<CompileWorkers::Worker>
CompileWorkers::acquire(uint64_t Ticket, const std::string &Name) {
  std::unique_lock<std::mutex> L(Mu);
  Worker W;
  for (;;) {
    if (Ticket != 0 && takeCancelled(Ticket))
      return createStringError("compiling " + Name + ": cancelled");
    if (!Idle.empty()) {
      W = Idle.back();
      Idle.pop_back();
      break;
    }
    if (Live < Max) {
      ++Live;
      L.unlock();
      auto New = spawn();
      L.lock();
      if (!New) {
        --Live;
        Freed.notify_one();
        return New.takeError();
      }
      W = *New;
      break;
    }
    Freed.wait(L);
  }
  if (Ticket != 0)
    Busy[Ticket] = W.Pid;
  return W;
}

void CompileWorkers::retire(Worker W) {
  ::close(W.ToWorker);
  ::close(W.FromWorker);
  ::kill(W.Pid, SIGKILL);
  ::waitpid(W.Pid, nullptr, 0);
}

Expected<std::unique_ptr<MemoryBuffer>>
CompileWorkers::compile(uint64_t Ticket, const CompileJob &Job) {
  auto W = acquire(Ticket, Job.Name);
  if (!W)
    return W.takeError();
  uint8_t Ok = 0;
  std::string Answer;
  bool Talked = writeJob(W->ToWorker, Job) && readAll(W->FromWorker, &Ok, 1) &&
                readString(W->FromWorker, Answer);
  bool Cancelled = false;
  {
    std::lock_guard<std::mutex> L(Mu);
    if (Ticket != 0) {
      Cancelled = Busy[Ticket] == 0;
      Busy.erase(Ticket);
    }
    if (Talked && !Cancelled && !Closing) {
      Idle.push_back(*W);
      Freed.notify_one();
    }
  }
  if (!Talked || Cancelled || Closing) {
    ::close(W->ToWorker);
    ::close(W->FromWorker);
    if (!Cancelled)
      ::kill(W->Pid, SIGKILL); // a worker that talks nonsense is done
    int Status = 0;
    ::waitpid(W->Pid, &Status, 0);
    bool StartNext;
    {
      std::lock_guard<std::mutex> L(Mu);
      --Live;
      StartNext = Live == 0 && !Closing;
      Freed.notify_one();
    }
    // The next compile need not wait for a worker's start-up.
    if (StartNext)
      consumeError(start());
    if (Cancelled)
      return createStringError("compiling " + Job.Name + ": cancelled");
    if (!Talked)
      return createStringError("compiling " + Job.Name +
                               ": the compile worker " + describeExit(Status));
  }
  if (!Ok)
    return createStringError(Answer);
  return MemoryBuffer::getMemBufferCopy(Answer, Job.Name);
}

void CompileWorkers::cancel(uint64_t Ticket) {
  if (Ticket == 0)
    return;
  std::lock_guard<std::mutex> L(Mu);
  auto I = Busy.find(Ticket);
  if (I != Busy.end()) {
    if (I->second > 0)
      ::kill(I->second, SIGKILL);
    I->second = 0;
    return;
  }
  CancelledEarly.push_back(Ticket);
  if (CancelledEarly.size() > CancelledKept)
    CancelledEarly.pop_front();
  Freed.notify_all();
}

int runCompileWorker(int In, int Out, StringRef Triple) {
  // A controller that died leaves nothing worth finishing.
  std::thread([In] {
    struct pollfd P = {In, 0, 0};
    while (poll(&P, 1, -1) < 0 && errno == EINTR)
      ;
    _exit(0);
  }).detach();
  Compiler C(Triple);
  for (;;) {
    CompileJob Job;
    std::string Data;
    if (!readJob(In, Job, Data))
      return 0;
    auto Obj = C.compile(Job);
    bool Sent;
    if (Obj) {
      uint8_t Ok = 1;
      Sent = writeAll(Out, &Ok, 1) && writeString(Out, (*Obj)->getBuffer());
    } else {
      uint8_t Ok = 0;
      Sent =
          writeAll(Out, &Ok, 1) && writeString(Out, toString(Obj.takeError()));
    }
    if (!Sent)
      return 0;
  }
}

} // namespace orcrt
