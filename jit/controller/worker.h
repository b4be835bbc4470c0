// Compile workers: the controller's compiles (clang, and IR to an object)
// run in child processes of the same program, so that a cancelled compile
// is stopped by killing its worker. Neither clang nor LLVM's code
// generator can be interrupted in place; a killed process frees all it
// used, and the controller's links and modules are untouched.
#ifndef ORCRT_JIT_CONTROLLER_WORKER_H
#define ORCRT_JIT_CONTROLLER_WORKER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <sys/types.h>
#include <vector>

namespace orcrt {

// CompileJob is one compile: LLVM IR (text or bitcode) or source with
// clang's arguments, to a relocatable object.
struct CompileJob {
  enum Kind : uint8_t { IR = 1, Source = 2 };
  Kind K;
  std::string Name; // names the input in diagnostics
  std::vector<std::string> Args;
  llvm::StringRef Data;
};

// CompileWorkers runs compiles in at most Max worker processes, started
// as needed and kept for the next compile. All methods are thread-safe.
class CompileWorkers {
public:
  // Self is this program; Triple the target compiled for.
  CompileWorkers(std::string Self, std::string Triple, unsigned Max);
  // Kills the workers.
  ~CompileWorkers();

  // start starts one worker ahead of the first compile.
  llvm::Error start();

  // compile runs Job in a worker. Ticket (0: none) names it for cancel.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  compile(uint64_t Ticket, const CompileJob &Job);

  // cancel ends the compile of Ticket: its worker is killed, or the
  // compile, not started yet, fails when it would start.
  void cancel(uint64_t Ticket);

private:
  struct Worker {
    pid_t Pid = -1;
    int ToWorker = -1, FromWorker = -1;
  };
  llvm::Expected<Worker> spawn();
  llvm::Expected<Worker> acquire(uint64_t Ticket, const std::string &Name);
  void retire(Worker W);
  bool takeCancelled(uint64_t Ticket); // Mu held

  std::string Self, Triple;
  unsigned Max;

  std::mutex Mu;
  std::condition_variable Freed;
  std::vector<Worker> Idle;
  unsigned Live = 0;                   // idle and busy workers
  std::map<uint64_t, pid_t> Busy;      // the worker compiling each ticket
  std::deque<uint64_t> CancelledEarly; // cancels that came first
  bool Closing = false;
};

// runCompileWorker is a worker's main: it answers compile jobs read from
// In on Out until In closes.
int runCompileWorker(int In, int Out, llvm::StringRef Triple);

} // namespace orcrt

#endif
