#include "tests/fetch/test_servers.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <utility>

#include "absl/strings/str_cat.h"

namespace sieve::fetch_test {

void StopSignal::Notify() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
  }
  cv_.notify_all();
}

bool StopSignal::HasBeenNotified() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stopped_;
}

bool StopSignal::WaitFor(absl::Duration d) const {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, absl::ToChronoNanoseconds(d),
                      [this] { return stopped_; });
}

bool Connection::ReadRequestHead(std::string* head) {
  while (true) {
    if (size_t end = buffer_.find("\r\n\r\n"); end != std::string::npos) {
      *head = buffer_.substr(0, end + 4);
      buffer_.erase(0, end + 4);
      return true;
    }
    if (stop_.HasBeenNotified()) return false;
    char chunk[4096];
    const ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

bool Connection::Send(absl::string_view data) {
  while (!data.empty()) {
    const ssize_t n = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

void Connection::WaitForClose() {
  char chunk[4096];
  while (!stop_.HasBeenNotified() && recv(fd_, chunk, sizeof(chunk), 0) > 0) {
  }
}

void Connection::ResetOnClose() {
  linger option{.l_onoff = 1, .l_linger = 0};
  setsockopt(fd_, SOL_SOCKET, SO_LINGER, &option, sizeof(option));
}

RawServer::RawServer(Handler handler, std::string address_text)
    : handler_(std::move(handler)), address_(std::move(address_text)) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (inet_pton(AF_INET, address_.c_str(), &address.sin_addr) != 1 ||
      listen_fd_ < 0 ||
      bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
      listen(listen_fd_, 128) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) !=
          0) {
    std::abort();  // The test cannot run without its server.
  }
  port_ = ntohs(address.sin_port);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

RawServer::~RawServer() {
  stop_.Notify();
  accept_thread_.join();
  close(listen_fd_);
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int fd : open_fds_)
      shutdown(fd, SHUT_RDWR);  // Unblocks recv/send in handlers.
    threads = std::move(connection_threads_);
  }
  for (std::thread& t : threads) t.join();
}

std::string RawServer::Url(absl::string_view path) const {
  return absl::StrCat("http://", address_, ":", port_, path);
}

void RawServer::AcceptLoop() {
  while (!stop_.HasBeenNotified()) {
    pollfd waiting{.fd = listen_fd_, .events = POLLIN, .revents = 0};
    if (poll(&waiting, 1, 20) <= 0) continue;  // Re-check stop_ every 20 ms.
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    accepted_.fetch_add(1);
    const int open = open_.fetch_add(1) + 1;
    int seen = max_open_.load();
    while (open > seen && !max_open_.compare_exchange_weak(seen, open)) {
    }
    std::lock_guard<std::mutex> lock(mu_);
    open_fds_.insert(fd);
    connection_threads_.emplace_back([this, fd] { Serve(fd); });
  }
}

void RawServer::Serve(int fd) {
  Connection connection(fd, stop_);
  handler_(connection);
  open_.fetch_sub(1);
  std::lock_guard<std::mutex> lock(mu_);  // Close under the lock so ~RawServer
                                          // never shuts down a reused fd.
  open_fds_.erase(fd);
  close(fd);
}

HttpServer::~HttpServer() {
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

void HttpServer::Start() {
  port_ = server_.bind_to_any_port(address_);
  if (port_ <= 0) std::abort();
  // bind_to_any_port also listens, so connections queue before the thread
  // starts accepting.
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  // stop() is a no-op until the server runs, so ~HttpServer must not race ahead
  // of the thread.
  while (!server_.is_running()) absl::SleepFor(absl::Milliseconds(1));
}

std::string HttpServer::Url(absl::string_view path) const {
  return absl::StrCat("http://", address_, ":", port_, path);
}

std::vector<FetchResponse> PollUntilIdle(Fetcher& fetcher) {
  std::vector<FetchResponse> all;
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (fetcher.in_flight() > 0 && absl::Now() < give_up) {
    for (FetchResponse& r : fetcher.Poll(absl::Milliseconds(200)))
      all.push_back(std::move(r));
  }
  return all;
}

FetchResponse FetchOne(Fetcher& fetcher, FetchRequest request) {
  const uint64_t id = request.id;
  fetcher.Submit(std::move(request));
  std::vector<FetchResponse> responses = PollUntilIdle(fetcher);
  if (responses.size() != 1 || responses[0].id != id) {
    FetchResponse missing;
    missing.error = FetchError::kOther;
    missing.error_message =
        absl::StrCat("expected one response, got ", responses.size());
    return missing;
  }
  return std::move(responses[0]);
}

FetchOptions TestOptions() {
  FetchOptions options;
  options.connect_timeout = absl::Seconds(2);
  options.total_timeout = absl::Seconds(5);
  options.private_address_hosts = {"127.0.0.1"};  // The test servers' host.
  return options;
}

}  // namespace sieve::fetch_test
