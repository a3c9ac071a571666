// render/devtools_client.cc: NUL-framed JSON over the browser's socket, a
// reader thread, waits on an absl::Mutex with deadlines.
#include "render/devtools_client.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sieve {
namespace {

// A write to the browser may wait this long for room in the socket.
constexpr absl::Duration kWriteTimeout = absl::Seconds(10);

}  // namespace

DevToolsClient::DevToolsClient(int fd)
    : fd_(fd), trace_(getenv("SIEVE_DEVTOOLS_TRACE") != nullptr) {
  if (pipe2(wake_, O_CLOEXEC) != 0) {
    wake_[0] = wake_[1] = -1;
    CloseWith(absl::InternalError(absl::StrCat("pipe: ", strerror(errno))));
    return;
  }
  reader_ = std::thread([this] { ReadLoop(); });
}

DevToolsClient::~DevToolsClient() {
  shutdown(fd_, SHUT_RDWR);
  if (wake_[1] >= 0) {
    char byte = 0;
    (void)!write(wake_[1], &byte, 1);
  }
  if (reader_.joinable()) reader_.join();
  close(fd_);
  if (wake_[0] >= 0) close(wake_[0]);
  if (wake_[1] >= 0) close(wake_[1]);
}

bool DevToolsClient::closed() const {
  absl::MutexLock lock(&mu_);
  return !closed_.ok();
}

absl::Status DevToolsClient::close_reason() const {
  absl::MutexLock lock(&mu_);
  return closed_;
}

void DevToolsClient::CloseWith(absl::Status reason) {
  absl::MutexLock lock(&mu_);
  if (closed_.ok()) closed_ = std::move(reason);
  changed_.SignalAll();
}

absl::Status DevToolsClient::Write(std::string_view method,
                                   nlohmann::json params,
                                   std::string_view session, int64_t id) {
  nlohmann::json message = {{"id", id}, {"method", method}};
  if (!params.is_null()) message["params"] = std::move(params);
  if (!session.empty()) message["sessionId"] = session;
  std::string bytes =
      message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (trace_) fprintf(stderr, "devtools -> %.300s\n", bytes.c_str());
  bytes.push_back('\0');

  absl::MutexLock lock(&write_mu_);
  const absl::Time deadline = absl::Now() + kWriteTimeout;
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = send(fd_, bytes.data() + sent, bytes.size() - sent,
                     MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      const absl::Duration left = deadline - absl::Now();
      if (left <= absl::ZeroDuration()) {
        absl::Status status = absl::DeadlineExceededError(
            "the browser read nothing for 10 s (hung?)");
        CloseWith(status);
        return status;
      }
      pollfd out = {fd_, POLLOUT, 0};
      poll(&out, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
      continue;
    }
    absl::Status status = absl::UnavailableError(
        absl::StrCat("write to the browser: ", strerror(errno)));
    CloseWith(status);
    return status;
  }
  return absl::OkStatus();
}

absl::StatusOr<nlohmann::json> DevToolsClient::Call(std::string_view method,
                                                    nlohmann::json params,
                                                    std::string_view session,
                                                    absl::Duration timeout) {
  int64_t id;
  {
    absl::MutexLock lock(&mu_);
    if (!closed_.ok()) return closed_;
    id = next_id_++;
    pending_[id];
  }
  if (absl::Status written = Write(method, std::move(params), session, id);
      !written.ok()) {
    absl::MutexLock lock(&mu_);
    pending_.erase(id);
    return written;
  }
  absl::MutexLock lock(&mu_);
  // A CondVar, not an absl::Condition: TSan cannot see a condition evaluated
  // by the reader thread inside Debian's uninstrumented Abseil.
  const absl::Time deadline = absl::Now() + timeout;
  while (!pending_[id].done && closed_.ok() &&
         !changed_.WaitWithDeadline(&mu_, deadline)) {
  }
  auto node = pending_.extract(id);
  if (!node.mapped().done) {
    if (!closed_.ok()) return closed_;
    return absl::DeadlineExceededError(absl::StrCat(
        std::string(method), ": no answer from the browser within ",
        absl::FormatDuration(timeout)));
  }
  nlohmann::json& answer = node.mapped().message;
  if (answer.contains("error")) {
    return absl::InvalidArgumentError(absl::StrCat(
        std::string(method), ": ", answer["error"].value("message", "error")));
  }
  if (!answer.contains("result")) return nlohmann::json::object();
  return std::move(answer["result"]);
}

absl::Status DevToolsClient::Post(std::string_view method,
                                  nlohmann::json params,
                                  std::string_view session) {
  int64_t id;
  {
    absl::MutexLock lock(&mu_);
    if (!closed_.ok()) return closed_;
    id = next_id_++;
  }
  return Write(method, std::move(params), session, id);
}

void DevToolsClient::Subscribe(std::string_view session) {
  absl::MutexLock lock(&mu_);
  events_[std::string(session)];
}

void DevToolsClient::Unsubscribe(std::string_view session) {
  absl::MutexLock lock(&mu_);
  events_.erase(std::string(session));
}

absl::StatusOr<DevToolsEvent> DevToolsClient::NextEvent(
    std::string_view session, absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  const std::string key(session);
  auto ready = [this, &key]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto it = events_.find(key);
    return !closed_.ok() || it == events_.end() || !it->second.empty();
  };
  while (!ready() && !changed_.WaitWithDeadline(&mu_, deadline)) {
  }
  auto it = events_.find(key);
  if (it == events_.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat("no subscription to session ", key));
  }
  if (it->second.empty()) {
    if (!closed_.ok()) return closed_;
    return absl::DeadlineExceededError("no event before the deadline");
  }
  DevToolsEvent event = std::move(it->second.front());
  it->second.pop_front();
  return event;
}

void DevToolsClient::ReadLoop() {
  std::string buffer;
  char chunk[65536];
  while (true) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      CloseWith(absl::InternalError(absl::StrCat("poll: ", strerror(errno))));
      return;
    }
    if (fds[1].revents != 0) {
      CloseWith(absl::CancelledError("the DevTools client was closed"));
      return;
    }
    ssize_t n = recv(fd_, chunk, sizeof(chunk), MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      CloseWith(absl::UnavailableError(
          n == 0 ? "the browser closed its DevTools pipe (exited or crashed)"
                 : absl::StrCat("read from the browser: ", strerror(errno))));
      return;
    }
    size_t scanned = buffer.size();
    buffer.append(chunk, static_cast<size_t>(n));
    size_t start = 0;
    for (size_t end = buffer.find('\0', scanned); end != std::string::npos;
         end = buffer.find('\0', start)) {
      Dispatch(std::string_view(buffer).substr(start, end - start));
      start = end + 1;
    }
    buffer.erase(0, start);
    if (buffer.size() > kMaxMessageBytes) {
      CloseWith(absl::ResourceExhaustedError(
          "a DevTools message longer than 256 MiB"));
      return;
    }
  }
}

void DevToolsClient::Dispatch(std::string_view text) {
  if (trace_)
    fprintf(stderr, "devtools <- %.300s\n", std::string(text).c_str());
  nlohmann::json message = nlohmann::json::parse(text, nullptr, false);
  if (!message.is_object()) return;  // not JSON: skipped, the stream goes on
  absl::MutexLock lock(&mu_);
  if (auto id = message.find("id"); id != message.end()) {
    if (!id->is_number_integer()) return;
    auto it = pending_.find(id->get<int64_t>());
    if (it == pending_.end()) return;  // a Post, or a Call that gave up
    it->second.done = true;
    it->second.message = std::move(message);
    changed_.SignalAll();
    return;
  }
  auto method = message.find("method");
  if (method == message.end() || !method->is_string()) return;
  std::string session = message.value("sessionId", "");
  auto queue = events_.find(session);
  if (queue == events_.end()) return;
  if (queue->second.size() >= kMaxQueuedEvents) queue->second.pop_front();
  DevToolsEvent event;
  event.method = method->get<std::string>();
  if (auto params = message.find("params"); params != message.end()) {
    event.params = std::move(*params);
  }
  queue->second.push_back(std::move(event));
  changed_.SignalAll();
}

}  // namespace sieve
