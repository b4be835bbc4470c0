// A leader/follower transport for orcrt-jit-controller (transport.h).
//
// One pool thread at a time, the leader, reads the input and hands each
// message to the client (SimpleRemoteEPC::handleMessage) itself. A task the
// client dispatches meanwhile (a request's handler, a result's
// continuation) is kept, and run by the leader once handleMessage returns,
// with the reading lent to it: nobody reads while it runs, and the leader
// reads on when it returns, so that a short request costs no thread
// hand-off at all. The loan ends early, a follower (or a new thread)
// taking over the reading, when
//
//  - a call to the executor is made, or one is outstanding when the loan
//    would start: a task may wait for any answer (its own, or one another
//    thread's work waits for), so while one is due somebody reads;
//  - it lasts longer than LoanLimit, checked by a watch thread: a request
//    that comes meanwhile waits at most about twice that for a reader.
//
// The leader whose loan ended early becomes a follower once its task is
// done.

#include "transport.h"

#include "llvm/Support/Endian.h"

#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

using namespace llvm;
using namespace llvm::orc;

namespace orcrt {

// HeaderSize is the message header's: size (header included), opcode,
// sequence number and tag address, each a little-endian uint64.
static constexpr size_t HeaderSize = 4 * sizeof(uint64_t);

// ReadSize is how much a read asks for: a message and the next one's
// start usually arrive in one read.
static constexpr size_t ReadSize = 64 << 10;

class LeaderFollowerState {
public:
  explicit LeaderFollowerState(const LeaderFollowerOptions &Opts)
      : Opts(Opts) {}
  ~LeaderFollowerState() {
    // Only a transport that never started gets here with In open: a
    // started one's reader closes it.
    if (!InClosed && InFD >= 0)
      ::close(InFD);
    if (!OutClosed && OutFD >= 0 && OutFD != InFD)
      ::close(OutFD);
  }

  const LeaderFollowerOptions Opts;

  // The pool, under M.
  std::mutex M;
  std::condition_variable Wake;  // followers: a wake-up, or Shut
  std::condition_variable Gone;  // shutdown: a thread left
  std::condition_variable Watch; // the loan watch: a loan, or the end
  std::deque<std::unique_ptr<Task>> Queue;
  size_t Threads = 0, Waiting = 0, Wakeups = 0;
  bool Vacant = false; // nobody reads: the next free thread takes over
  bool Started = false, Shut = false, InClosed = false, ReaderDone = false;

  // The loan of the reading to the leader's task.
  std::atomic<bool> Lent{false};
  std::atomic<uint64_t> Loans{0};      // loans started
  std::atomic<int64_t> Outstanding{0}; // calls to the executor unanswered
  std::atomic<bool> WatchIdle{false};  // the watch sleeps until a loan

  // The connection.
  SimpleRemoteEPCTransportClient *C = nullptr;
  int InFD = -1, OutFD = -1;
  std::atomic<bool> Disconnected{false};
  std::mutex SendM; // one message's writes at a time, and Out's close
  bool OutClosed = false;

  // The reader's own, handed on with the reading (under M).
  std::vector<char> Buf;
  size_t Begin = 0, End = 0;
};

// Worker is a pool thread's: whether it reads, and the task dispatched
// while it handled a message.
struct Worker {
  LeaderFollowerState *S = nullptr;
  bool Leader = false;
  bool Handling = false;
  std::unique_ptr<Task> Kept;
};

static thread_local Worker *Current = nullptr;

static Error errnoError(const char *What, int Errno) {
  return createStringError(std::error_code(Errno, std::generic_category()),
                           "%s: %s", What, strerror(Errno));
}

static void work(std::shared_ptr<LeaderFollowerState> S);

// wakeOrStart gives the pool's new work (a task queued, the reading made
// vacant) a thread: a waiting one, else a new one. M is held.
static void wakeOrStart(const std::shared_ptr<LeaderFollowerState> &S) {
  if (S->Waiting > 0) {
    --S->Waiting;
    ++S->Wakeups;
    S->Wake.notify_one();
    return;
  }
  ++S->Threads;
  std::thread(work, S).detach();
}

// takeBack ends a loan of the reading, if one is on, by making the reading
// vacant. M is held.
static void takeBack(const std::shared_ptr<LeaderFollowerState> &S) {
  if (!S->Lent.exchange(false))
    return;
  S->Vacant = true;
  wakeOrStart(S);
}

// watch ends loans that last longer than LoanLimit, until the reader
// ends. It wakes once a LoanLimit while loans go on, and sleeps once none
// was made in one.
static void watch(std::shared_ptr<LeaderFollowerState> S) {
  std::unique_lock<std::mutex> L(S->M);
  uint64_t Seen = S->Loans;
  while (!S->ReaderDone) {
    S->Watch.wait_for(L, S->Opts.LoanLimit, [&] { return S->ReaderDone; });
    uint64_t Now = S->Loans;
    if (Now != Seen) {
      Seen = Now;
      continue;
    }
    // The same loan, if any, since a LoanLimit ago.
    if (S->Lent) {
      takeBack(S);
      continue;
    }
    S->WatchIdle = true;
    // A loan started after the check above either sees WatchIdle or is
    // seen here.
    if (S->Loans == Seen && !S->Lent)
      S->Watch.wait(L, [&] { return !S->WatchIdle || S->ReaderDone; });
    S->WatchIdle = false;
    Seen = S->Loans;
  }
  --S->Threads;
  S->Gone.notify_all();
}

// lend lends the reading to the task the leader runs next, unless a call
// is outstanding: its answer must be read meanwhile.
static void lend(const std::shared_ptr<LeaderFollowerState> &S) {
  ++S->Loans;
  S->Lent = true;
  if (S->WatchIdle) {
    std::lock_guard<std::mutex> L(S->M);
    S->WatchIdle = false;
    S->Watch.notify_one();
  }
  // A call made from here on sees Lent and takes the reading back itself.
  if (S->Outstanding > 0) {
    std::lock_guard<std::mutex> L(S->M);
    takeBack(S);
  }
}

// closeConnection makes sends fail, closes Out and, when the reader never
// ran, In. A started reader closes In itself when it ends, so that no read
// is made on a descriptor closed (and reused) under it.
static void closeConnection(LeaderFollowerState &S) {
  if (S.Disconnected.exchange(true))
    return;
  bool OneFD = S.InFD == S.OutFD;
  {
    std::lock_guard<std::mutex> L(S.SendM);
    // A socket's shutdown wakes a reader or writer blocked on it; on a
    // pipe it fails (ENOTSOCK) and the reader ends when the executor,
    // seeing Out closed, closes its end.
    ::shutdown(S.OutFD, OneFD ? SHUT_RDWR : SHUT_WR);
    if (!OneFD)
      ::close(S.OutFD);
    S.OutClosed = true;
  }
  std::lock_guard<std::mutex> L(S.M);
  if (S.InClosed)
    return;
  if (!S.Started) {
    ::close(S.InFD);
    S.InClosed = true;
  } else if (!OneFD) {
    ::shutdown(S.InFD, SHUT_RD);
  }
}

// fill reads until Need bytes (at most Buf's size) are buffered. At a
// message boundary the end of input is AtEnd, not an error.
static Error fill(LeaderFollowerState &S, size_t Need, bool &AtEnd) {
  bool Boundary = S.Begin == S.End;
  if (Boundary)
    S.Begin = S.End = 0;
  else if (S.Buf.size() - S.Begin < Need) {
    std::memmove(S.Buf.data(), S.Buf.data() + S.Begin, S.End - S.Begin);
    S.End -= S.Begin;
    S.Begin = 0;
  }
  while (S.End - S.Begin < Need) {
    ssize_t N = ::read(S.InFD, S.Buf.data() + S.End, S.Buf.size() - S.End);
    if (N > 0) {
      S.End += N;
      continue;
    }
    if (N == 0) {
      if (S.Begin == S.End) {
        AtEnd = true;
        return Error::success();
      }
      return createStringError("the executor's pipe ended inside a message");
    }
    int Errno = errno;
    if (Errno == EINTR || Errno == EAGAIN)
      continue;
    if (S.Disconnected && S.Begin == S.End) { // our own disconnect
      AtEnd = true;
      return Error::success();
    }
    return errnoError("reading from the executor", Errno);
  }
  return Error::success();
}

// readExact reads Size bytes into Dst, past the buffer: the rest of a
// message bigger than it.
static Error readExact(LeaderFollowerState &S, char *Dst, size_t Size) {
  while (Size > 0) {
    ssize_t N = ::read(S.InFD, Dst, Size);
    if (N > 0) {
      Dst += N;
      Size -= N;
      continue;
    }
    if (N == 0)
      return createStringError("the executor's pipe ended inside a message");
    if (errno != EINTR && errno != EAGAIN)
      return errnoError("reading from the executor", errno);
  }
  return Error::success();
}

struct Message {
  SimpleRemoteEPCOpcode OpC;
  uint64_t SeqNo;
  ExecutorAddr TagAddr;
  shared::WrapperFunctionBuffer Args;
};

static Error readMessage(LeaderFollowerState &S, Message &Msg, bool &AtEnd) {
  if (auto Err = fill(S, HeaderSize, AtEnd))
    return Err;
  if (AtEnd)
    return Error::success();
  const char *H = S.Buf.data() + S.Begin;
  uint64_t Size = support::endian::read64le(H);
  uint64_t OpC = support::endian::read64le(H + 8);
  Msg.SeqNo = support::endian::read64le(H + 16);
  Msg.TagAddr = ExecutorAddr(support::endian::read64le(H + 24));
  if (Size < HeaderSize)
    return createStringError("message size %llu is less than its header's",
                             static_cast<unsigned long long>(Size));
  // Unknown opcodes are the client's to reject, once they fit its type.
  if (OpC > UINT8_MAX)
    return createStringError("unexpected opcode %llu",
                             static_cast<unsigned long long>(OpC));
  Msg.OpC = static_cast<SimpleRemoteEPCOpcode>(OpC);

  size_t ArgSize = Size - HeaderSize;
  Msg.Args = shared::WrapperFunctionBuffer::allocate(ArgSize);
  if (Size <= S.Buf.size()) {
    if (auto Err = fill(S, Size, AtEnd))
      return Err;
    std::memcpy(Msg.Args.data(), S.Buf.data() + S.Begin + HeaderSize, ArgSize);
    S.Begin += Size;
    return Error::success();
  }
  size_t Have = S.End - S.Begin - HeaderSize;
  std::memcpy(Msg.Args.data(), S.Buf.data() + S.Begin + HeaderSize, Have);
  S.Begin = S.End = 0;
  return readExact(S, Msg.Args.data() + Have, ArgSize - Have);
}

// finish ends the reading: the connection is closed and the client told,
// once. Tasks the client dispatches meanwhile go to other threads.
static void finish(LeaderFollowerState &S, Worker &W, Error Err) {
  closeConnection(S);
  {
    std::lock_guard<std::mutex> L(S.M);
    if (!S.InClosed)
      ::close(S.InFD);
    S.InClosed = true;
  }
  S.C->handleDisconnect(std::move(Err));
  W.Leader = false;
  {
    std::lock_guard<std::mutex> L(S.M);
    S.ReaderDone = true;
    S.Watch.notify_all();
  }
  if (auto T = std::move(W.Kept))
    T->run();
}

// lead reads and handles messages until the input ends or a loan of the
// reading ends early.
static void lead(const std::shared_ptr<LeaderFollowerState> &S, Worker &W) {
  for (;;) {
    Message Msg;
    bool AtEnd = false;
    Error Err = readMessage(*S, Msg, AtEnd);
    if (Err || AtEnd)
      return finish(*S, W, std::move(Err));
    if (Msg.OpC == SimpleRemoteEPCOpcode::Result)
      --S->Outstanding;
    W.Handling = true;
    auto Action = S->C->handleMessage(Msg.OpC, Msg.SeqNo, Msg.TagAddr,
                                      std::move(Msg.Args));
    W.Handling = false;
    if (!Action)
      return finish(*S, W, Action.takeError());
    if (*Action == SimpleRemoteEPCTransportClient::EndSession)
      return finish(*S, W, Error::success());
    if (!W.Kept)
      continue;
    lend(S);
    W.Leader = false;
    auto T = std::move(W.Kept);
    T->run();
    T.reset();
    if (!S->Lent.exchange(false))
      return; // a follower reads now
    W.Leader = true;
  }
}

// work is a pool thread: it reads when the reading is vacant, runs queued
// tasks, and otherwise waits, until shutdown.
static void work(std::shared_ptr<LeaderFollowerState> S) {
  Worker W;
  W.S = S.get();
  Current = &W;
  std::unique_lock<std::mutex> L(S->M);
  for (;;) {
    if (S->Vacant) {
      S->Vacant = false;
      W.Leader = true;
      L.unlock();
      lead(S, W);
      L.lock();
      continue;
    }
    if (!S->Queue.empty()) {
      auto T = std::move(S->Queue.front());
      S->Queue.pop_front();
      L.unlock();
      T->run();
      T.reset();
      L.lock();
      continue;
    }
    if (S->Shut)
      break;
    ++S->Waiting;
    S->Wake.wait(L, [&] { return S->Wakeups > 0 || S->Shut; });
    if (S->Wakeups > 0)
      --S->Wakeups;
    else
      --S->Waiting;
  }
  Current = nullptr;
  --S->Threads;
  S->Gone.notify_all();
}

LeaderFollowerDispatcher::LeaderFollowerDispatcher(
    std::shared_ptr<LeaderFollowerState> S)
    : S(std::move(S)) {}

LeaderFollowerDispatcher::~LeaderFollowerDispatcher() = default;

void LeaderFollowerDispatcher::dispatch(std::unique_ptr<Task> T) {
  if (Worker *W = Current; W && W->S == S.get()) {
    // A task's thread runs what it dispatches, as an in-place dispatcher.
    if (!W->Leader) {
      T->run();
      return;
    }
    // The reader keeps one task for when the message is handled; any other
    // needs a thread of its own.
    if (W->Handling && !W->Kept) {
      W->Kept = std::move(T);
      return;
    }
  }
  std::lock_guard<std::mutex> L(S->M);
  S->Queue.push_back(std::move(T));
  wakeOrStart(S);
}

void LeaderFollowerDispatcher::shutdown() {
  // A pool thread that shuts down waits for every thread but itself.
  size_t Self = Current && Current->S == S.get() ? 1 : 0;
  std::unique_lock<std::mutex> L(S->M);
  S->Shut = true;
  S->Wake.notify_all();
  S->Gone.wait(L, [&] { return S->Threads == Self; });
}

Expected<std::unique_ptr<LeaderFollowerTransport>>
LeaderFollowerTransport::Create(SimpleRemoteEPCTransportClient &C,
                                std::shared_ptr<LeaderFollowerState> S,
                                int InFD, int OutFD) {
  if (InFD < 0 || OutFD < 0)
    return createStringError("invalid file descriptors %d, %d", InFD, OutFD);
  if (S->C)
    return createStringError("the pool already has a transport");
  S->C = &C;
  S->InFD = InFD;
  S->OutFD = OutFD;
  S->Buf.resize(ReadSize);
  return std::unique_ptr<LeaderFollowerTransport>(
      new LeaderFollowerTransport(std::move(S)));
}

LeaderFollowerTransport::~LeaderFollowerTransport() = default;

Error LeaderFollowerTransport::start() {
  std::lock_guard<std::mutex> L(S->M);
  if (S->Started || S->Disconnected)
    return createStringError("the transport was started or disconnected");
  S->Started = true;
  ++S->Threads;
  std::thread(watch, S).detach();
  S->Vacant = true;
  wakeOrStart(S);
  return Error::success();
}

// writeMessage writes one message, whole: a pipe may take part of a big
// one per write.
static Error writeMessage(LeaderFollowerState &S, SimpleRemoteEPCOpcode OpC,
                          uint64_t SeqNo, ExecutorAddr TagAddr,
                          ArrayRef<char> ArgBytes) {
  char H[HeaderSize];
  support::endian::write64le(H, HeaderSize + ArgBytes.size());
  support::endian::write64le(H + 8, static_cast<uint64_t>(OpC));
  support::endian::write64le(H + 16, SeqNo);
  support::endian::write64le(H + 24, TagAddr.getValue());
  struct iovec V[2] = {{H, HeaderSize},
                       {const_cast<char *>(ArgBytes.data()), ArgBytes.size()}};
  struct iovec *P = V;
  int N = 2;
  std::lock_guard<std::mutex> L(S.SendM);
  if (S.OutClosed)
    return createStringError("the transport is disconnected");
  while (N > 0) {
    ssize_t Wrote = ::writev(S.OutFD, P, N);
    if (Wrote < 0) {
      if (errno == EINTR || errno == EAGAIN)
        continue;
      return errnoError("writing to the executor", errno);
    }
    size_t Left = Wrote;
    while (N > 0 && Left >= P->iov_len) {
      Left -= P->iov_len;
      ++P;
      --N;
    }
    if (N > 0) {
      P->iov_base = static_cast<char *>(P->iov_base) + Left;
      P->iov_len -= Left;
    }
  }
  return Error::success();
}

Error LeaderFollowerTransport::sendMessage(SimpleRemoteEPCOpcode OpC,
                                           uint64_t SeqNo, ExecutorAddr TagAddr,
                                           ArrayRef<char> ArgBytes) {
  if (OpC != SimpleRemoteEPCOpcode::CallWrapper)
    return writeMessage(*S, OpC, SeqNo, TagAddr, ArgBytes);
  // The answer to a call must be read: end a loan of the reading.
  ++S->Outstanding;
  if (S->Lent) {
    std::lock_guard<std::mutex> L(S->M);
    takeBack(S);
  }
  Error Err = writeMessage(*S, OpC, SeqNo, TagAddr, ArgBytes);
  if (Err)
    --S->Outstanding; // no answer will come
  return Err;
}

void LeaderFollowerTransport::disconnect() { closeConnection(*S); }

Expected<std::unique_ptr<SimpleRemoteEPC>>
createLeaderFollowerEPC(int InFD, int OutFD, SimpleRemoteEPC::Setup Setup,
                        LeaderFollowerOptions Opts) {
  auto S = std::make_shared<LeaderFollowerState>(Opts);
  return SimpleRemoteEPC::Create<LeaderFollowerTransport>(
      std::make_unique<LeaderFollowerDispatcher>(S), std::move(Setup), S, InFD,
      OutFD);
}

} // namespace orcrt
