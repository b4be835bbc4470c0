// cppdriver: drives an executor process with LLVM 22's own controller
// (SimpleRemoteEPC over FDSimpleRemoteEPCTransport on two pipes, as
// llvm-jitlink -oop-executor launches it) and prints Go benchmark lines.
//
//   driver [-pin] [-tcp] [-label NAME] [-dispatch inplace|threads] EXECUTOR BENCH TIME
//
// -tcp starts the executor with listen=127.0.0.1:PORT and connects to it
// as llvm-jitlink -oop-executor-connect does (one socket both ways, Nagle
// on, header and payload in two writes); its lines end in /transport=tcp.
//
// -connect PORT|unix:PATH times connect to Setup against a running
// `orcrt-executor serve` (EXECUTOR is then only the label's source, and
// BENCH must be start): call=connect-setup, one connection per op, 20 ms
// apart; the mean as ns/op, the connections' median as median-ns/op.
//
// BENCH is empty, write4KiB, write1MiB, alloc-cycle, lookup, start or all;
// TIME is a duration (500ms, 1s), iterations scaled as go test -benchtime
// does, or a count (100x). start launches a fresh executor per op and opens
// no other session, so EXECUTOR may be a program that only sends Setup
// (bench/cmd/gofloor).

#include "llvm/ExecutionEngine/JITLink/JITLinkMemoryManager.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Shared/OrcRTBridge.h"
#include "llvm/ExecutionEngine/Orc/SimpleRemoteEPC.h"
#include "llvm/ExecutionEngine/Orc/TaskDispatch.h"
#include "llvm/Support/raw_ostream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace llvm;
using namespace llvm::orc;

namespace {

const char *Prog = "cppdriver";

[[noreturn]] void usage() {
  errs() << "usage: " << Prog
         << " [-pin] [-tcp] [-connect PORT|unix:PATH] [-label NAME] [-dispatch inplace|threads] EXECUTOR "
            "empty|write4KiB|write1MiB|alloc-cycle|lookup|start|all 500ms|100x\n";
  exit(2);
}

Error fail(const Twine &Msg) {
  return make_error<StringError>(Msg, inconvertibleErrorCode());
}

Error pinToCPU0() {
  cpu_set_t Set;
  CPU_ZERO(&Set);
  CPU_SET(0, &Set);
  if (sched_setaffinity(0, sizeof(Set), &Set) != 0)
    return fail(Twine("sched_setaffinity(CPU 0): ") + strerror(errno));
  return Error::success();
}

// Budget is a -benchtime: a duration, or a fixed count when Count > 0.
struct Budget {
  std::chrono::nanoseconds Dur{0};
  uint64_t Count = 0;
};

bool parseBudget(StringRef S, Budget &B) {
  if (S.consume_back("x"))
    return !S.getAsInteger(10, B.Count) && B.Count > 0;
  static const std::pair<const char *, double> Units[] = {
      {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}};
  for (auto &[Suffix, Scale] : Units) {
    StringRef Num = S;
    double V;
    if (Num.consume_back(Suffix) && !Num.getAsDouble(V) && V > 0) {
      B.Dur = std::chrono::nanoseconds(int64_t(V * Scale));
      return true;
    }
  }
  return false;
}

using OpFn = std::function<Error(uint64_t N)>;

// run mirrors testing.B: n=1 first (also the warm-up), then predicted
// counts (+20%, at most 100x per step) until one run lasts Dur.
Error run(const Budget &B, OpFn &Op, uint64_t &N, double &NsPerOp) {
  using Clock = std::chrono::steady_clock;
  auto Once = [&](uint64_t K, int64_t &Ns) -> Error {
    auto T0 = Clock::now();
    if (auto Err = Op(K))
      return Err;
    Ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - T0)
             .count();
    return Error::success();
  };
  int64_t Ns = 0;
  if (B.Count) {
    if (auto Err = Once(1, Ns))
      return Err;
    N = B.Count;
    if (auto Err = Once(N, Ns))
      return Err;
  } else {
    N = 1;
    if (auto Err = Once(N, Ns))
      return Err;
    const double Goal = B.Dur.count();
    while (Ns < Goal && N < 1000000000) {
      uint64_t Last = N;
      double Next = Goal * double(Last) / double(std::max<int64_t>(Ns, 1));
      N = uint64_t(Next + Next / 5);
      N = std::min(N, 100 * Last);
      N = std::max(N, Last + 1);
      N = std::min<uint64_t>(N, 1000000000);
      if (auto Err = Once(N, Ns))
        return Err;
    }
  }
  NsPerOp = double(Ns) / double(N);
  return Error::success();
}

// Formats ns/op as testing.BenchmarkResult does.
std::string fmtNs(double V) {
  const char *F = V == 0 || V >= 999.95 ? "%10.0f"
                  : V >= 99.995         ? "%12.1f"
                  : V >= 9.9995         ? "%13.2f"
                                        : "%14.3f";
  char Buf[64];
  snprintf(Buf, sizeof Buf, F, V);
  return Buf;
}

// median of V (sorted in place); 0 when empty.
double median(std::vector<int64_t> &V) {
  if (V.empty())
    return 0;
  std::sort(V.begin(), V.end());
  size_t M = V.size() / 2;
  return V.size() % 2 ? double(V[M]) : (double(V[M - 1]) + double(V[M])) / 2;
}

struct Child {
  pid_t Pid = -1;
  int ToExec = -1, FromExec = -1;
};

// freePort asks the kernel for an unused loopback port. Another process
// may take it before the executor binds it; connectTCP then fails.
Expected<int> freePort() {
  int S = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (S < 0)
    return fail(Twine("socket: ") + strerror(errno));
  sockaddr_in A{};
  A.sin_family = AF_INET;
  A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t Len = sizeof A;
  if (bind(S, reinterpret_cast<sockaddr *>(&A), sizeof A) != 0 ||
      getsockname(S, reinterpret_cast<sockaddr *>(&A), &Len) != 0) {
    close(S);
    return fail(Twine("bind: ") + strerror(errno));
  }
  close(S);
  return ntohs(A.sin_port);
}

// connectTCP connects to 127.0.0.1:Port, retrying for up to 10 s while
// the executor starts to listen; the socket keeps its defaults (Nagle
// on), as llvm-jitlink's does.
Expected<int> connectTCP(int Port) {
  sockaddr_in A{};
  A.sin_family = AF_INET;
  A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  A.sin_port = htons(Port);
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (;;) {
    int S = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (S < 0)
      return fail(Twine("socket: ") + strerror(errno));
    if (connect(S, reinterpret_cast<sockaddr *>(&A), sizeof A) == 0)
      return S;
    int E = errno;
    close(S);
    if (E != ECONNREFUSED || std::chrono::steady_clock::now() > Deadline)
      return fail(Twine("connect to 127.0.0.1:") + Twine(Port) + ": " +
                  strerror(E));
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// launch forks and execs the executor with filedescs=IN,OUT, closing the
// other ends on both sides as llvm-jitlink's launchExecutor does; with
// Port > 0 it passes listen=127.0.0.1:Port instead and connects.
Expected<Child> launch(const std::string &Path, bool Pin, int Port = 0) {
  int To[2] = {-1, -1}, From[2] = {-1, -1};
  std::string FDs = "listen=127.0.0.1:" + std::to_string(Port);
  if (Port == 0) {
    if (pipe(To) != 0 || pipe(From) != 0)
      return fail(Twine("pipe: ") + strerror(errno));
    FDs = "filedescs=" + std::to_string(To[0]) + "," + std::to_string(From[1]);
  }
  pid_t Pid = fork();
  if (Pid < 0)
    return fail(Twine("fork: ") + strerror(errno));
  if (Pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    if (Port == 0) {
      close(To[1]);
      close(From[0]);
    }
    cpu_set_t Set;
    CPU_ZERO(&Set);
    CPU_SET(0, &Set);
    if (Pin && sched_setaffinity(0, sizeof(Set), &Set) != 0) {
      const char M[] = "cppdriver: child: sched_setaffinity failed\n";
      (void)!write(2, M, sizeof M - 1);
      _exit(127);
    }
    char *const Argv[] = {const_cast<char *>(Path.c_str()),
                          const_cast<char *>(FDs.c_str()), nullptr};
    execv(Path.c_str(), Argv);
    const char M[] = "cppdriver: child: exec of the executor failed\n";
    (void)!write(2, M, sizeof M - 1);
    _exit(127);
  }
  if (Port != 0) {
    auto S = connectTCP(Port);
    if (!S) {
      kill(Pid, SIGKILL);
      waitpid(Pid, nullptr, 0);
      return S.takeError();
    }
    return Child{Pid, *S, *S};
  }
  close(To[0]);
  close(From[1]);
  return Child{Pid, To[1], From[0]};
}

Error waitChild(pid_t Pid) {
  int St;
  while (waitpid(Pid, &St, 0) < 0)
    if (errno != EINTR)
      return fail(Twine("waitpid: ") + strerror(errno));
  if (WIFEXITED(St) && WEXITSTATUS(St) == 0)
    return Error::success();
  if (WIFSIGNALED(St))
    return fail(Twine("executor killed by signal ") + Twine(WTERMSIG(St)));
  return fail(Twine("executor exited with status ") + Twine(WEXITSTATUS(St)));
}

struct Bench {
  const char *Name;
  int64_t Bytes; // reported as MB/s, like b.SetBytes
  OpFn Op;
};

// setup builds the benchmarks over one session; Cleanup undoes what
// setup reserved in the executor.
Error setup(SimpleRemoteEPC &EPC, std::vector<Bench> &Out,
            std::vector<std::function<Error()>> &Cleanup) {
  ExecutorAddr WriteU8s, WriteBufs, MMInst, MMReserve, MMRelease;
  if (auto Err = EPC.getBootstrapSymbols(
          {{WriteU8s, rt::MemoryWriteUInt8sWrapperName},
           {WriteBufs, rt::MemoryWriteBuffersWrapperName},
           {MMInst, rt::SimpleExecutorMemoryManagerInstanceName},
           {MMReserve, rt::SimpleExecutorMemoryManagerReserveWrapperName},
           {MMRelease, rt::SimpleExecutorMemoryManagerReleaseWrapperName}}))
    return Err;

  Out.push_back({"empty", 0, [&EPC, WriteU8s](uint64_t N) -> Error {
                   using Sig =
                       void(shared::SPSSequence<shared::SPSMemoryAccessUInt8Write>);
                   ArrayRef<tpctypes::UInt8Write> None;
                   for (uint64_t I = 0; I < N; ++I)
                     if (auto Err = EPC.callSPSWrapper<Sig>(WriteU8s, None))
                       return Err;
                   return Error::success();
                 }});

  // One reservation, RW until initialized, for both write sizes.
  constexpr uint64_t MiB = 1 << 20;
  Expected<ExecutorAddr> Base((ExecutorAddr()));
  if (auto Err = EPC.callSPSWrapper<
                 rt::SPSSimpleExecutorMemoryManagerReserveSignature>(
          MMReserve, Base, MMInst, MiB))
    return Err;
  if (!Base)
    return Base.takeError();
  Cleanup.push_back([&EPC, MMInst, MMRelease, Addr = *Base]() -> Error {
    Error Res = Error::success();
    if (auto Err = EPC.callSPSWrapper<
                   rt::SPSSimpleExecutorMemoryManagerReleaseSignature>(
            MMRelease, Res, MMInst, ArrayRef<ExecutorAddr>(Addr)))
      return joinErrors(std::move(Err), std::move(Res));
    return Res;
  });
  // Once, untimed: what a 1 MiB write puts in memory is what it sent
  // (the executor may copy it straight from the connection to its
  // address; docs/protocol.md §5.3), read back with readBuffers.
  {
    std::vector<char> Pat(MiB);
    for (size_t I = 0; I < MiB; ++I)
      Pat[I] = char(I * 7 + (I >> 12));
    if (auto Err = EPC.getMemoryAccess().writeBuffers(
            tpctypes::BufferWrite(*Base, ArrayRef<char>(Pat.data(), MiB))))
      return Err;
    auto Back = EPC.getMemoryAccess().readBuffers(
        {ExecutorAddrRange(*Base, ExecutorAddrDiff(MiB))});
    if (!Back)
      return Back.takeError();
    if (Back->size() != 1 || (*Back)[0].size() != MiB ||
        memcmp((*Back)[0].data(), Pat.data(), MiB) != 0)
      return fail("write1MiB: the memory read back differs from what was "
                  "written");
  }
  auto Buf = std::make_shared<std::vector<char>>(MiB, 'x');
  auto Write = [&EPC, Addr = *Base, Buf](size_t Size) {
    return [&EPC, Addr, Buf, Size](uint64_t N) -> Error {
      tpctypes::BufferWrite W(Addr, ArrayRef<char>(Buf->data(), Size));
      for (uint64_t I = 0; I < N; ++I)
        if (auto Err = EPC.getMemoryAccess().writeBuffers(W))
          return Err;
      return Error::success();
    };
  };
  Out.push_back({"write4KiB", 4096, Write(4096)});
  Out.push_back({"write1MiB", int64_t(MiB), Write(MiB)});

  // LLVM's own allocation path: reserve, initialize, release.
  Out.push_back({"alloc-cycle", 0, [&EPC](uint64_t N) -> Error {
                   using jitlink::SimpleSegmentAlloc;
                   for (uint64_t I = 0; I < N; ++I) {
                     auto A = SimpleSegmentAlloc::Create(
                         EPC.getMemMgr(), EPC.getSymbolStringPool(),
                         EPC.getTargetTriple(), nullptr,
                         {{MemProt::Read | MemProt::Exec, {16384, Align(16)}},
                          {MemProt::Read, {8192, Align(16)}},
                          {MemProt::Read | MemProt::Write, {8192, Align(16)}}});
                     if (!A)
                       return A.takeError();
                     auto FA = A->finalize();
                     if (!FA)
                       return FA.takeError();
                     if (auto Err = EPC.getMemMgr().deallocate(std::move(*FA)))
                       return Err;
                   }
                   return Error::success();
                 }});

  auto H = EPC.getDylibMgr().loadDylib(nullptr);
  if (!H)
    return H.takeError();
  auto Syms = std::make_shared<SymbolLookupSet>(EPC.intern("printf"));
  Out.push_back({"lookup", 0, [&EPC, Handle = *H, Syms](uint64_t N) -> Error {
                   DylibManager::LookupRequest Req(Handle, *Syms);
                   for (uint64_t I = 0; I < N; ++I) {
                     auto R = EPC.getDylibMgr().lookupSymbols(Req);
                     if (!R)
                       return R.takeError();
                     if (R->size() != 1 || R->front().size() != 1 ||
                         !R->front().front() || !R->front().front()->getAddress())
                       return fail("lookup of printf found no address");
                   }
                   return Error::success();
                 }});
  return Error::success();
}

// startOnce launches an executor, connects (Create returns once Setup
// has arrived) and hangs up; SetupNs gets exec-to-Setup, the caller
// times the whole cycle (exec, Setup, end of input, exit).
Error startOnce(const std::string &Exe, bool Pin, int64_t &SetupNs) {
  using Clock = std::chrono::steady_clock;
  auto T0 = Clock::now();
  auto C = launch(Exe, Pin);
  if (!C)
    return C.takeError();
  auto EPC = SimpleRemoteEPC::Create<FDSimpleRemoteEPCTransport>(
      std::make_unique<InPlaceTaskDispatcher>(), SimpleRemoteEPC::Setup(),
      C->FromExec, C->ToExec);
  if (!EPC)
    return joinErrors(EPC.takeError(), waitChild(C->Pid));
  SetupNs += std::chrono::duration_cast<std::chrono::nanoseconds>(
                 Clock::now() - T0)
                 .count();
  return joinErrors((*EPC)->disconnect(), waitChild(C->Pid));
}

// connectUnix connects to the Unix-domain socket at Path.
Expected<int> connectUnix(const std::string &Path) {
  sockaddr_un A{};
  A.sun_family = AF_UNIX;
  if (Path.size() >= sizeof A.sun_path)
    return fail("socket path too long: " + Path);
  memcpy(A.sun_path, Path.c_str(), Path.size() + 1);
  int S = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (S < 0)
    return fail(Twine("socket: ") + strerror(errno));
  if (connect(S, reinterpret_cast<sockaddr *>(&A), sizeof A) != 0) {
    int E = errno;
    close(S);
    return fail("connect to " + Path + ": " + strerror(E));
  }
  return S;
}

// connectOnce connects to a serving executor, waits for Setup (Create
// returns once it has arrived) and hangs up, shutting the socket down
// first (see the end of main); SetupNs gets connect-to-Setup.
Error connectOnce(const std::string &Addr, int64_t &SetupNs) {
  using Clock = std::chrono::steady_clock;
  auto T0 = Clock::now();
  Expected<int> S = StringRef(Addr).starts_with("unix:")
                        ? connectUnix(Addr.substr(5))
                        : connectTCP(std::stoi(Addr));
  if (!S)
    return S.takeError();
  auto EPC = SimpleRemoteEPC::Create<FDSimpleRemoteEPCTransport>(
      std::make_unique<InPlaceTaskDispatcher>(), SimpleRemoteEPC::Setup(), *S,
      *S);
  if (!EPC)
    return EPC.takeError();
  SetupNs += std::chrono::duration_cast<std::chrono::nanoseconds>(
                 Clock::now() - T0)
                 .count();
  shutdown(*S, SHUT_RDWR);
  return (*EPC)->disconnect();
}

// startBenches are the start-up figures, each a fresh executor per op.
void startBenches(const std::string &Exe, bool Pin, std::vector<Bench> &Out,
                  int64_t &SetupNs) {
  Out.push_back({"start-setup-exit", 0, [&Exe, Pin, &SetupNs](uint64_t N) -> Error {
                   SetupNs = 0;
                   for (uint64_t I = 0; I < N; ++I)
                     if (auto Err = startOnce(Exe, Pin, SetupNs))
                       return Err;
                   return Error::success();
                 }});
}

} // namespace

int main(int argc, char **argv) {
  bool Pin = false, TCP = false;
  std::string Label, Dispatch = "inplace", Connect;
  int I = 1;
  for (; I < argc && argv[I][0] == '-'; ++I) {
    StringRef A = argv[I];
    if (A == "-pin")
      Pin = true;
    else if (A == "-tcp")
      TCP = true;
    else if (A == "-label" && I + 1 < argc)
      Label = argv[++I];
    else if (A == "-dispatch" && I + 1 < argc)
      Dispatch = argv[++I];
    else if (A == "-connect" && I + 1 < argc)
      Connect = argv[++I];
    else
      usage();
  }
  if (argc - I != 3 || (Dispatch != "inplace" && Dispatch != "threads"))
    usage();
  std::string Exe = argv[I], Which = argv[I + 1];
  Budget B;
  if (!parseBudget(argv[I + 2], B))
    usage();
  if (Label.empty()) {
    StringRef Base = StringRef(Exe).rsplit('/').second;
    if (Base.empty())
      Base = Exe;
    Label = Base.contains("orcrt")                    ? "orcrt"
            : Base.starts_with("llvm-jitlink-executor") ? "stock"
                                                      : Base.str();
  }

  static const char *Names[] = {"empty",  "write4KiB", "write1MiB",
                                "alloc-cycle", "lookup", "start",
                                "all"};
  if (llvm::find(Names, Which) == std::end(Names))
    usage();

  // A dead executor must surface as an Error, not kill us via SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  if (!Connect.empty()) {
    if (Which != "start")
      usage();
    int64_t SetupNs = 0;
    std::vector<int64_t> Each; // per connection, for the median
    uint64_t N;
    double Ns;
    OpFn Op = [&](uint64_t N) -> Error {
      SetupNs = 0;
      Each.clear();
      for (uint64_t I = 0; I < N; ++I) {
        int64_t Before = SetupNs;
        if (auto Err = connectOnce(Connect, SetupNs))
          return Err;
        Each.push_back(SetupNs - Before);
        // Paced, so the server's pool refills between connections: this
        // times a ready pool, not how fast workers start.
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      return Error::success();
    };
    if (auto Err = run(B, Op, N, Ns)) {
      logAllUnhandledErrors(std::move(Err), errs(), Twine(Prog) + ": -connect: ");
      return 1;
    }
    outs() << "goos: linux\ngoarch: amd64\n"
              "pkg: github.com/orcgo/orcrt/bench/cppdriver\n"
           << "BenchmarkCppController/call=connect-setup/executor=" << Label
           << "/transport="
           << (StringRef(Connect).starts_with("unix:") ? "unix" : "tcp")
           << "\t" << format("%8llu", (unsigned long long)N) << "\t"
           << fmtNs(double(SetupNs) / double(N)) << " ns/op\t"
           << fmtNs(median(Each)) << " median-ns/op\n";
    return 0;
  }
  auto Die = [](Error Err, const Twine &Ctx) {
    logAllUnhandledErrors(std::move(Err), errs(),
                          Twine(Prog) + ": " + Ctx + ": ");
    exit(1);
  };
  // The parent is pinned first so that the transport's listener thread
  // inherits the mask.
  if (Pin)
    if (auto Err = pinToCPU0())
      Die(std::move(Err), "pin");

  int Port = 0;
  if (TCP) {
    auto P = freePort();
    if (!P)
      Die(P.takeError(), "port");
    Port = *P;
  }
  // The start figures launch an executor per op and need no session of
  // their own, so a program that only sends Setup (bench/cmd/gofloor, the
  // Go floor) is timed the same way as the executors. Declared first: the
  // benches hold symbols of the session's string pool.
  std::optional<Child> C;
  std::unique_ptr<SimpleRemoteEPC> EPC;

  // The first failure names the context; later ones are joined to it.
  Error Err = Error::success();
  std::string Ctx;
  auto Note = [&](Error E, StringRef Where) {
    if (E && !Err)
      Ctx = Where.str();
    Err = joinErrors(std::move(Err), std::move(E));
  };
  std::vector<Bench> Benches;
  std::vector<std::function<Error()>> Cleanup;

  if (Which != "start" || TCP) {
    auto L = launch(Exe, Pin, Port);
    if (!L)
      Die(L.takeError(), "launch " + Exe);
    C = *L;
    // llvm-jitlink 22 uses a DynamicThreadPoolTaskDispatcher, which runs
    // each async completion on a new thread; inplace runs it on the
    // listener.
    std::unique_ptr<TaskDispatcher> D;
    if (Dispatch == "threads")
      D = std::make_unique<DynamicThreadPoolTaskDispatcher>(
          std::max(1u, std::thread::hardware_concurrency()));
    else
      D = std::make_unique<InPlaceTaskDispatcher>();
    // On failure Create has disconnected, closing both pipe ends.
    auto E = SimpleRemoteEPC::Create<FDSimpleRemoteEPCTransport>(
        std::move(D), SimpleRemoteEPC::Setup(), C->FromExec, C->ToExec);
    if (!E)
      Die(joinErrors(E.takeError(), waitChild(C->Pid)), "connect to " + Exe);
    EPC = std::move(*E);
    Note(setup(*EPC, Benches, Cleanup), "setup");
  }
  int64_t SetupNs = 0;
  if (!TCP) // start-up is measured over pipes, as llvm-jitlink spawns
    startBenches(Exe, Pin, Benches, SetupNs);
  if (!Err)
    outs() << "goos: linux\ngoarch: amd64\n"
              "pkg: github.com/orcgo/orcrt/bench/cppdriver\n";
  for (auto &Bn : Benches) {
    if (Err)
      break;
    bool Start = StringRef(Bn.Name).starts_with("start");
    if (Which != "all" && Which != Bn.Name && !(Which == "start" && Start))
      continue;
    uint64_t N;
    double Ns;
    Note(run(B, Bn.Op, N, Ns), Bn.Name);
    if (Err)
      break;
    std::string Name = std::string("BenchmarkCppController/call=") + Bn.Name +
                       "/executor=" + Label + "/pin=" + (Pin ? "yes" : "no");
    if (Dispatch != "inplace")
      Name += "/dispatch=" + Dispatch;
    if (TCP)
      Name += "/transport=tcp";
    if (Start) {
      // exec to Setup, from the same launches as the whole cycle.
      std::string Setup = std::string("BenchmarkCppController/call=start-setup") +
                          "/executor=" + Label + "/pin=" + (Pin ? "yes" : "no");
      outs() << Setup << "\t" << format("%8llu", (unsigned long long)N)
             << "\t" << fmtNs(double(SetupNs) / double(N)) << " ns/op\n";
    }
    outs() << Name << "\t" << format("%8llu", (unsigned long long)N) << "\t"
           << fmtNs(Ns) << " ns/op";
    if (Bn.Bytes)
      outs() << format("\t%7.2f MB/s", double(Bn.Bytes) * 1e3 / Ns);
    outs() << "\n";
    outs().flush();
  }
  for (auto &F : Cleanup)
    Note(F(), "release");
  // Hang up (disconnect closes both pipes, the executor sees end of
  // input and exits), then reap the executor. Over one socket, close()
  // neither sends FIN nor wakes the transport's reader blocked on the
  // same descriptor, so LLVM 22's disconnect would wait for ever (the
  // llvm-jitlink -oop-executor-connect exit hang): shut it down first.
  if (EPC) {
    if (TCP)
      shutdown(C->ToExec, SHUT_RDWR);
    Note(EPC->disconnect(), "disconnect");
    Note(waitChild(C->Pid), "executor exit");
  }
  if (Err)
    Die(std::move(Err), Ctx);
  return 0;
}
