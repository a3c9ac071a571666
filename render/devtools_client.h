// render/devtools_client.h: the Chrome DevTools protocol over
// --remote-debugging-pipe: JSON messages, each ended by a NUL byte.
//
// A reader thread splits the browser's stream into messages and routes them:
// a response (it has an "id") wakes the Call() waiting for that id; an event
// (it has a "method") goes to the queue of its session ("sessionId", "" for
// the browser's own), if someone Subscribe()d to that session, and is
// dropped otherwise. Every wait has a bound: Call() and NextEvent() take a
// deadline, writes time out too. When the browser's end closes (the browser
// exited or crashed), every waiter gets kUnavailable at once and so does
// every later call.
//
// With SIEVE_DEVTOOLS_TRACE set in the environment, every message (its first
// 300 bytes) is written to stderr.
//
// Thread-safe: several threads may Call() and wait for events of different
// sessions at once (one tab each).
//
// Example:
//   DevToolsClient client(browser->TakePipe());
//   absl::StatusOr<nlohmann::json> version =
//       client.Call("Browser.getVersion", {}, "", absl::Seconds(10));
#ifndef SIEVE_RENDER_DEVTOOLS_CLIENT_H_
#define SIEVE_RENDER_DEVTOOLS_CLIENT_H_

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace sieve {

struct DevToolsEvent {
  std::string method;
  nlohmann::json params;
};

class DevToolsClient {
 public:
  // Takes ownership of `fd` (a connected stream socket or a pipe to both
  // directions' browser end) and starts the reader thread.
  explicit DevToolsClient(int fd);
  // Closes the connection (the browser exits when its end reads EOF) and
  // joins the reader.
  ~DevToolsClient();
  DevToolsClient(const DevToolsClient&) = delete;
  DevToolsClient& operator=(const DevToolsClient&) = delete;

  // Sends `method` with `params` (an object; null for none) to `session`
  // ("" for the browser target) and waits for its answer until `timeout`.
  // Returns the "result" object; a protocol error is kInvalidArgument with
  // the browser's message, a timeout kDeadlineExceeded, a closed connection
  // kUnavailable.
  absl::StatusOr<nlohmann::json> Call(std::string_view method,
                                      nlohmann::json params,
                                      std::string_view session,
                                      absl::Duration timeout);
  // Sends without waiting; the answer, when it comes, is dropped.
  absl::Status Post(std::string_view method, nlohmann::json params,
                    std::string_view session);

  // Starts keeping the events of `session` (at most max_queued_events; older
  // ones are dropped past it). Unsubscribe drops the queue.
  void Subscribe(std::string_view session);
  void Unsubscribe(std::string_view session);
  // The next event of a subscribed session, waiting until `deadline`:
  // kDeadlineExceeded when none came, kUnavailable when the connection is
  // closed and the queue is empty.
  absl::StatusOr<DevToolsEvent> NextEvent(std::string_view session,
                                          absl::Time deadline);

  // Whether the browser's end closed (EOF, an error, or a broken message).
  bool closed() const;
  // Why it closed; OK while open.
  absl::Status close_reason() const;

  // Events kept per session before the oldest are dropped.
  static constexpr size_t kMaxQueuedEvents = 10000;
  // Bytes of one message before the connection is declared broken.
  static constexpr size_t kMaxMessageBytes = size_t{256} << 20;

 private:
  absl::Status Write(std::string_view method, nlohmann::json params,
                     std::string_view session, int64_t id);
  void ReadLoop();
  void Dispatch(std::string_view message);
  void CloseWith(absl::Status reason);

  const int fd_;
  const bool trace_;
  int wake_[2] = {-1, -1};  // the destructor wakes the reader's poll()
  std::thread reader_;

  absl::Mutex write_mu_;  // one message at a time on the socket

  mutable absl::Mutex mu_;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  // Calls waiting for their answer: id -> answer once it came.
  struct Pending {
    bool done = false;
    nlohmann::json message;
  };
  absl::flat_hash_map<int64_t, Pending> pending_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, std::deque<DevToolsEvent>> events_
      ABSL_GUARDED_BY(mu_);
  absl::Status closed_ ABSL_GUARDED_BY(mu_);
  absl::CondVar changed_;  // an answer, an event, or the close
};

}  // namespace sieve

#endif  // SIEVE_RENDER_DEVTOOLS_CLIENT_H_
