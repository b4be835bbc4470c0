// clang's libraries inside the controller: a compile costs what clang's
// front end and optimizer cost, without starting clang (loading
// libclang-cpp and libLLVM dominates a short compile; RATIONALE.md, "The
// sidecar JIT").

#include "clang.h"

#include "clang/Basic/Diagnostic.h"
#include "clang/Basic/DiagnosticOptions.h"
#include "clang/CodeGen/CodeGenAction.h"
#include "clang/Driver/CreateInvocationFromArgs.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/CompilerInvocation.h"
#include "clang/Frontend/TextDiagnosticPrinter.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

// SourceDir holds the source in the compile's in-memory file system; it is
// cut from the diagnostics, which then name the module as given.
static const char *SourceDir = "/orcrt-jit-source/";

Expected<orc::ThreadSafeModule>
compileSource(const std::string &Name, const std::vector<std::string> &Args,
              const std::string &Source, const std::string &Triple) {
  std::string Path = SourceDir + Name;
  auto Mem = makeIntrusiveRefCnt<vfs::InMemoryFileSystem>();
  Mem->addFile(Path, 0, MemoryBuffer::getMemBufferCopy(Source, Path));
  auto FS =
      makeIntrusiveRefCnt<vfs::OverlayFileSystem>(vfs::getRealFileSystem());
  FS->pushOverlay(Mem);

  std::string Text;
  raw_string_ostream OS(Text);
  clang::DiagnosticOptions DiagOpts;
  DiagOpts.ShowColors = false;
  auto *Printer = new clang::TextDiagnosticPrinter(OS, DiagOpts);
  auto Diags =
      clang::CompilerInstance::createDiagnostics(*FS, DiagOpts, Printer);

  // The driver finds the resource directory (stddef.h, ...) and the
  // system headers from the path of clang itself.
  std::string Clang = ORCRT_LLVM_PREFIX "/bin/clang";
  // No -c: the invocation is the compile job's whatever the driver would
  // do next, and -c would only be reported unused.
  std::vector<const char *> Argv = {Clang.c_str(), "-target", Triple.c_str(),
                                    "-fPIC", "-O2"};
  for (auto &A : Args)
    Argv.push_back(A.c_str());
  Argv.push_back(Path.c_str());

  clang::CreateInvocationOptions CIOpts;
  CIOpts.Diags = Diags;
  CIOpts.VFS = FS;
  std::shared_ptr<clang::CompilerInvocation> Inv =
      clang::createInvocation(Argv, CIOpts);
  auto Ctx = std::make_unique<LLVMContext>();
  std::unique_ptr<Module> M;
  if (Inv) {
    // The driver asks a compile to leak its AST and the like (a process
    // that exits frees them faster); one of many compiles must free them.
    Inv->getFrontendOpts().DisableFree = false;
    Inv->getCodeGenOpts().DisableFree = false;
    // -fstack-size-section, as the worker's TargetMachine, which makes the
    // object, has it (facts.h).
    Inv->getCodeGenOpts().StackSizeSection = true;
    clang::CompilerInstance CI(Inv);
    CI.setVirtualFileSystem(FS);
    CI.createDiagnostics(Printer, /*ShouldOwnClient=*/false);
    clang::EmitLLVMOnlyAction Act(Ctx.get());
    if (CI.ExecuteAction(Act))
      M = Act.takeModule();
  }
  OS.flush();
  // Diagnostics name the file as the module was named.
  for (size_t At; (At = Text.find(SourceDir)) != std::string::npos;)
    Text.erase(At, strlen(SourceDir));
  if (!M)
    return createStringError(Text.empty() ? "clang could not compile " + Name
                                          : Text);
  return orc::ThreadSafeModule(std::move(M), std::move(Ctx));
}
