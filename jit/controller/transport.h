// A leader/follower transport for orcrt-jit-controller: the pool threads
// that run the controller's tasks take turns reading the executor's pipe,
// and a request's handler runs on the thread that read it, with no thread
// hand-off between the request and its answer. Results complete their
// calls on the reader, as with LLVM's FDSimpleRemoteEPCTransport. The wire
// is FDSimpleRemoteEPCTransport's: a header of four little-endian uint64s
// (message size with the header, opcode, sequence number, tag address),
// then the argument bytes.
#ifndef ORCRT_JIT_CONTROLLER_TRANSPORT_H
#define ORCRT_JIT_CONTROLLER_TRANSPORT_H

#include "llvm/ExecutionEngine/Orc/Shared/SimpleRemoteEPCUtils.h"
#include "llvm/ExecutionEngine/Orc/SimpleRemoteEPC.h"
#include "llvm/ExecutionEngine/Orc/TaskDispatch.h"
#include "llvm/Support/Error.h"

#include <chrono>
#include <memory>

namespace orcrt {

// LeaderFollowerState is what the transport, the dispatcher and the pool
// threads share; it outlives both objects as long as a thread runs.
class LeaderFollowerState;

// LeaderFollowerDispatcher runs each task on a thread of its own, as
// LLVM's DynamicThreadPoolTaskDispatcher does (tasks block on the
// executor's answers, so none may wait for another), keeping finished
// threads for the next task. A task dispatched from a pool thread that
// runs a task runs there at once. The first one dispatched by the reading
// thread while it handles a message runs there once the message is
// handled, with the reading lent to it: the thread reads on when it
// returns, unless a follower had to take the reading over meanwhile (a
// call to the executor was made, or the task took longer than LoanLimit).
class LeaderFollowerDispatcher : public llvm::orc::TaskDispatcher {
public:
  explicit LeaderFollowerDispatcher(std::shared_ptr<LeaderFollowerState> S);
  ~LeaderFollowerDispatcher() override;

  void dispatch(std::unique_ptr<llvm::orc::Task> T) override;
  // shutdown waits for every task and for the reader's end (end of input
  // or an error; a disconnect first closes the output, so the executor
  // ends its side), then for every pool thread to leave.
  void shutdown() override;

private:
  std::shared_ptr<LeaderFollowerState> S;
};

// LeaderFollowerTransport reads In and writes Out, FDSimpleRemoteEPC's
// framing, with the reading done by LeaderFollowerDispatcher's threads.
// disconnect closes Out (and, for a socket, shuts In down); In is closed
// by the reader when it ends, so that its descriptor is never reused
// under a read.
class LeaderFollowerTransport : public llvm::orc::SimpleRemoteEPCTransport {
public:
  static llvm::Expected<std::unique_ptr<LeaderFollowerTransport>>
  Create(llvm::orc::SimpleRemoteEPCTransportClient &C,
         std::shared_ptr<LeaderFollowerState> S, int InFD, int OutFD);
  ~LeaderFollowerTransport() override;

  llvm::Error start() override;
  llvm::Error sendMessage(llvm::orc::SimpleRemoteEPCOpcode OpC, uint64_t SeqNo,
                          llvm::orc::ExecutorAddr TagAddr,
                          llvm::ArrayRef<char> ArgBytes) override;
  void disconnect() override;

private:
  explicit LeaderFollowerTransport(std::shared_ptr<LeaderFollowerState> S)
      : S(std::move(S)) {}
  std::shared_ptr<LeaderFollowerState> S;
};

// LeaderFollowerOptions tunes the reading.
struct LeaderFollowerOptions {
  // LoanLimit bounds how long the reading stays lent to a task (nobody
  // reads meanwhile) before a follower takes it over: a request that comes
  // meanwhile waits up to about twice this to be read. The loans' watch
  // wakes once a LoanLimit while requests come.
  std::chrono::microseconds LoanLimit{200};
};

// createLeaderFollowerEPC makes a SimpleRemoteEPC over InFD and OutFD with
// a LeaderFollowerTransport and LeaderFollowerDispatcher, and waits for
// the executor's Setup message, as SimpleRemoteEPC::Create does.
llvm::Expected<std::unique_ptr<llvm::orc::SimpleRemoteEPC>>
createLeaderFollowerEPC(int InFD, int OutFD,
                        llvm::orc::SimpleRemoteEPC::Setup S = {},
                        LeaderFollowerOptions Opts = {});

} // namespace orcrt

#endif
