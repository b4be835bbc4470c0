// inproc: the physical reference of package jit's benchmarks: the same
// steps done by LLJIT inside this process, linking the same LLVM 22, with
// no IPC at all.
//
//   inproc ir|object|c FILE SYMBOL N
//   inproc start N
//
// Each operation makes a JITDylib, adds FILE to it (LLVM IR, an object,
// or C source that clang-22 first compiles, as package jit runs it: the
// source on its standard input, the object on its standard output),
// looks SYMBOL up, and (untimed) removes the JITDylib. After one untimed
// warm-up operation it prints the mean time of N operations:
// "ns/op <ns>". start times the creation of the LLJIT (until it can take
// a module) and its destruction, N times.

#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IRReader/IRReader.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

using namespace llvm;
using namespace llvm::orc;

extern char **environ;

namespace {

Error fail(const Twine &Msg) {
  return make_error<StringError>(Msg, inconvertibleErrorCode());
}

// clang compiles Src as package jit does and returns the object.
Expected<std::unique_ptr<MemoryBuffer>> clang(StringRef Src) {
  int In[2], Out[2];
  if (pipe(In) || pipe(Out))
    return fail("pipe");
  posix_spawn_file_actions_t FA;
  posix_spawn_file_actions_init(&FA);
  posix_spawn_file_actions_adddup2(&FA, In[0], 0);
  posix_spawn_file_actions_adddup2(&FA, Out[1], 1);
  for (int FD : {In[0], In[1], Out[0], Out[1]})
    posix_spawn_file_actions_addclose(&FA, FD);
  const char *Argv[] = {"clang-22", "-c", "-fPIC", "-O2", "-x", "c",
                        "-o",       "-",  "-",     nullptr};
  pid_t Pid;
  int E = posix_spawnp(&Pid, "clang-22", &FA, nullptr,
                       const_cast<char **>(Argv), environ);
  posix_spawn_file_actions_destroy(&FA);
  close(In[0]);
  close(Out[1]);
  if (E)
    return fail("spawning clang-22");
  if (write(In[1], Src.data(), Src.size()) != ssize_t(Src.size()))
    return fail("writing to clang-22");
  close(In[1]);
  std::string Obj;
  char Buf[65536];
  for (ssize_t N; (N = read(Out[0], Buf, sizeof Buf)) > 0;)
    Obj.append(Buf, N);
  close(Out[0]);
  int Status;
  waitpid(Pid, &Status, 0);
  if (!WIFEXITED(Status) || WEXITSTATUS(Status))
    return fail("clang-22 failed");
  return MemoryBuffer::getMemBufferCopy(Obj, "c.o");
}

Error once(LLJIT &J, StringRef Mode, MemoryBuffer &File, StringRef Symbol,
           unsigned I, std::chrono::nanoseconds &Took) {
  auto T0 = std::chrono::steady_clock::now();
  auto JD = J.createJITDylib("m#" + std::to_string(I));
  if (!JD)
    return JD.takeError();
  if (Mode == "ir") {
    auto Ctx = std::make_unique<LLVMContext>();
    SMDiagnostic Diag;
    auto M = parseIR(File.getMemBufferRef(), Diag, *Ctx);
    if (!M)
      return fail("bad IR: " + Diag.getMessage());
    if (auto Err = J.addIRModule(*JD, ThreadSafeModule(std::move(M),
                                                         std::move(Ctx))))
      return Err;
  } else {
    std::unique_ptr<MemoryBuffer> Obj;
    if (Mode == "c") {
      auto O = clang(File.getBuffer());
      if (!O)
        return O.takeError();
      Obj = std::move(*O);
    } else {
      Obj = MemoryBuffer::getMemBufferCopy(File.getBuffer(), "obj.o");
    }
    if (auto Err = J.addObjectFile(*JD, std::move(Obj)))
      return Err;
  }
  auto Sym = J.lookup(*JD, Symbol);
  if (!Sym)
    return Sym.takeError();
  Took += std::chrono::steady_clock::now() - T0;
  return J.getExecutionSession().removeJITDylib(*JD);
}

} // namespace

// startMean creates and destroys an LLJIT N times, as orcrt-jit-controller
// creates its one, and returns the mean.
static Expected<double> startMean(unsigned N) {
  std::chrono::nanoseconds Took{0};
  for (unsigned I = 0; I <= N; ++I) {
    auto T0 = std::chrono::steady_clock::now();
    auto J = LLJITBuilder().setPlatformSetUp(setUpInactivePlatform).create();
    if (!J)
      return J.takeError();
    J->reset();
    if (I > 0) // the first is the warm-up
      Took += std::chrono::steady_clock::now() - T0;
  }
  return double(Took.count()) / N;
}

int main(int argc, char **argv) {
  InitializeNativeTarget();
  InitializeNativeTargetAsmPrinter();
  InitializeNativeTargetAsmParser();
  if (argc == 3 && StringRef(argv[1]) == "start") {
    auto Mean = startMean(std::stoul(argv[2]));
    if (!Mean) {
      logAllUnhandledErrors(Mean.takeError(), errs(), "inproc: ");
      return 1;
    }
    outs() << "ns/op " << *Mean << "\n";
    return 0;
  }
  if (argc != 5) {
    errs() << "usage: inproc ir|object|c FILE SYMBOL N | inproc start N\n";
    return 2;
  }
  StringRef Mode(argv[1]);
  unsigned N = std::stoul(argv[4]);
  auto File = MemoryBuffer::getFile(argv[2]);
  if (!File) {
    errs() << "inproc: " << argv[2] << ": " << File.getError().message()
           << "\n";
    return 1;
  }
  // As orcrt-jit-controller without the ORC runtime: no initializers.
  auto J = LLJITBuilder().setPlatformSetUp(setUpInactivePlatform).create();
  if (!J) {
    logAllUnhandledErrors(J.takeError(), errs(), "inproc: ");
    return 1;
  }
  std::chrono::nanoseconds Warm{0}, Took{0};
  if (auto Err = once(**J, Mode, **File, argv[3], 0, Warm)) {
    logAllUnhandledErrors(std::move(Err), errs(), "inproc: ");
    return 1;
  }
  for (unsigned I = 1; I <= N; ++I)
    if (auto Err = once(**J, Mode, **File, argv[3], I, Took)) {
      logAllUnhandledErrors(std::move(Err), errs(), "inproc: ");
      return 1;
    }
  outs() << "ns/op " << double(Took.count()) / N << "\n";
  return 0;
}
