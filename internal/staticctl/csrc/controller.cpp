// orcrt-static-controller: a small llvm-jitlink, linked statically against
// one release's LLVM libraries (internal/staticctl/build.sh), so that it
// maps no libLLVM. As llvm-jitlink -oop-executor does, it starts the
// executor on two pipes (filedescs=IN,OUT), opens a SimpleRemoteEPC
// session over them, links the relocatable objects given through
// ObjectLinkingLayer with the executor's process symbols, runs main with
// the arguments after -args and exits with main's result.
//
//   orcrt-static-controller [-hold] -oop-executor=PATH OBJ... [-args ARG...]
//   orcrt-static-controller --version
//
// --version is llvm::cl's own, as in every LLVM tool. -hold first waits
// for the end of standard input, so that a test can look at the running
// process; without objects nothing else happens. It compiles no IR: code
// generation would link AsmPrinter, which holds the whole version text.

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/EPCDynamicLibrarySearchGenerator.h"
#include "llvm/ExecutionEngine/Orc/ExecutorProcessControl.h"
#include "llvm/ExecutionEngine/Orc/ObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/Orc/SimpleRemoteEPC.h"
#include "llvm/ExecutionEngine/Orc/TaskDispatch.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

using namespace llvm;
using namespace llvm::orc;

static cl::opt<std::string> OOPExecutor("oop-executor",
                                        cl::desc("Executor to start"));
static cl::opt<bool> Hold("hold",
                          cl::desc("Wait for the end of standard input first"));
static cl::list<std::string> Objects(cl::Positional, cl::desc("<object>..."));
static cl::list<std::string> Args("args", cl::Positional, cl::ConsumeAfter,
                                  cl::desc("<arguments to main>..."));

static void exitOnErr(Error Err) {
  if (Err) {
    logAllUnhandledErrors(std::move(Err), errs(), "orcrt-static-controller: ");
    exit(1);
  }
}

template <typename T> static T exitOnErr(Expected<T> V) {
  exitOnErr(V.takeError());
  return std::move(*V);
}

// launch starts the executor as llvm-jitlink's launchExecutor does.
static Expected<std::unique_ptr<ExecutorProcessControl>> launch(pid_t &Child) {
  int ToExecutor[2], FromExecutor[2];
  if (pipe(ToExecutor) != 0 || pipe(FromExecutor) != 0)
    return make_error<StringError>("pipe failed", inconvertibleErrorCode());
  Child = fork();
  if (Child == 0) {
    close(ToExecutor[1]);
    close(FromExecutor[0]);
    std::string Arg = "filedescs=" + std::to_string(ToExecutor[0]) + "," +
                      std::to_string(FromExecutor[1]);
    const char *Argv[] = {OOPExecutor.c_str(), Arg.c_str(), nullptr};
    execv(OOPExecutor.c_str(), const_cast<char **>(Argv));
    perror("orcrt-static-controller: execv");
    _exit(1);
  }
  close(ToExecutor[0]);
  close(FromExecutor[1]);
  return SimpleRemoteEPC::Create<FDSimpleRemoteEPCTransport>(
      std::make_unique<DynamicThreadPoolTaskDispatcher>(std::nullopt),
      SimpleRemoteEPC::Setup(), FromExecutor[0], ToExecutor[1]);
}

static int run() {
  pid_t Child = -1;
  auto ES = std::make_unique<ExecutionSession>(exitOnErr(launch(Child)));
  int Result;
  {
    ObjectLinkingLayer Linker(*ES);
    auto &JD = ES->createBareJITDylib("main");
    JD.addGenerator(
        exitOnErr(EPCDynamicLibrarySearchGenerator::GetForTargetProcess(*ES)));
    for (auto &Path : Objects)
      exitOnErr(Linker.add(JD, exitOnErr(errorOrToExpected(
                                   MemoryBuffer::getFile(Path)))));
    auto Main = exitOnErr(ES->lookup({&JD}, ES->intern("main")));
    std::vector<std::string> MainArgs(Args.begin(), Args.end());
    Result = exitOnErr(ES->getExecutorProcessControl().runAsMain(
        Main.getAddress(), MainArgs));
    exitOnErr(ES->endSession()); // the executor sees its input end
  }
  int Status = 0;
  if (waitpid(Child, &Status, 0) == Child)
    fprintf(stderr, "executor: exit status %d\n",
            WIFEXITED(Status) ? WEXITSTATUS(Status) : 128 + WTERMSIG(Status));
  return Result;
}

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "orcrt-static-controller\n");
  if (Hold)
    while (getchar() != EOF) {
    }
  if (Objects.empty())
    return 0;
  if (OOPExecutor.empty()) {
    errs() << "orcrt-static-controller: objects need -oop-executor=PATH\n";
    return 2;
  }
  return run();
}
