#include "fetch/internal/curl_multis.h"

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace sieve::fetch_internal {

namespace {

absl::Status MultiOption(CURLM* multi, CURLMoption option, long value) {
  if (CURLMcode rc = curl_multi_setopt(multi, option, value); rc != CURLM_OK) {
    return absl::InternalError(
        absl::StrCat("curl_multi_setopt: ", curl_multi_strerror(rc)));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<CurlMultis>> CurlMultis::Create(
    int count, long max_connects_each, bool http2) {
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0)
    return absl::ResourceExhaustedError(
        absl::StrCat("epoll_create1: ", std::strerror(errno)));
  const int wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd < 0) {
    const int error = errno;
    close(epoll_fd);
    return absl::ResourceExhaustedError(
        absl::StrCat("eventfd: ", std::strerror(error)));
  }
  std::unique_ptr<CurlMultis> set(new CurlMultis(epoll_fd, wake_fd));
  epoll_event wake{};
  wake.events = EPOLLIN;
  wake.data.fd = wake_fd;
  if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &wake) != 0)
    return absl::ResourceExhaustedError(
        absl::StrCat("epoll_ctl: ", std::strerror(errno)));
  for (int i = 0; i < count; ++i) {
    auto m = std::make_unique<Multi>();
    m->handle.reset(curl_multi_init());
    if (m->handle == nullptr)
      return absl::ResourceExhaustedError("curl_multi_init failed");
    m->set = set.get();
    m->index = i;
    CURLM* h = m->handle.get();
    if (curl_multi_setopt(h, CURLMOPT_SOCKETFUNCTION, &CurlMultis::OnSocket) !=
            CURLM_OK ||
        curl_multi_setopt(h, CURLMOPT_SOCKETDATA, m.get()) != CURLM_OK ||
        curl_multi_setopt(h, CURLMOPT_TIMERFUNCTION, &CurlMultis::OnTimer) !=
            CURLM_OK ||
        curl_multi_setopt(h, CURLMOPT_TIMERDATA, m.get()) != CURLM_OK) {
      return absl::InternalError("curl_multi_setopt: callbacks refused");
    }
    if (absl::Status s =
            MultiOption(h, CURLMOPT_MAXCONNECTS, max_connects_each);
        !s.ok())
      return s;
    // No CURLMOPT_MAX_HOST_CONNECTIONS: a transfer curl held back for a free
    // connection would already run its timeouts. Per-host concurrency is the
    // caller's (the Frontier's) to bound.
    if (absl::Status s =
            MultiOption(h, CURLMOPT_PIPELINING,
                        http2 ? CURLPIPE_MULTIPLEX : CURLPIPE_NOTHING);
        !s.ok())
      return s;
    set->multis_.push_back(std::move(m));
  }
  return set;
}

CurlMultis::~CurlMultis() {
  // curl_multi_cleanup may still call OnSocket (CURL_POLL_REMOVE): the epoll
  // set outlives the handles.
  multis_.clear();
  close(wake_fd_);
  close(epoll_fd_);
}

int CurlMultis::OnTimer(CURLM*, long timeout_ms, void* userp) {
  Multi* m = static_cast<Multi*>(userp);
  m->due = timeout_ms < 0 ? absl::InfiniteFuture()
                          : absl::Now() + absl::Milliseconds(timeout_ms);
  return 0;
}

int CurlMultis::OnSocket(CURL*, curl_socket_t fd, int what, void* userp,
                         void*) {
  Multi* m = static_cast<Multi*>(userp);
  return m->set->Watch(m->index, fd, what);
}

int CurlMultis::Watch(int index, curl_socket_t fd, int what) {
  if (fd < 0) return 0;
  const size_t slot = static_cast<size_t>(fd);
  if (owner_.size() <= slot) owner_.resize(slot + 1, -1);
  int& owner = owner_[slot];
  if (what == CURL_POLL_REMOVE) {
    // A closed socket has already left the epoll set: ENOENT is no error.
    if (owner == index) {
      epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd, nullptr);
      owner = -1;
    }
    return 0;
  }
  epoll_event event{};
  event.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) |
                 ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
  event.data.fd = fd;
  // `owner` may be stale either way (a socket closed without a REMOVE, its
  // number reused): try the other operation before giving up.
  const int first = owner < 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
  if (epoll_ctl(epoll_fd_, first, fd, &event) != 0) {
    const int second = first == EPOLL_CTL_ADD ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (epoll_ctl(epoll_fd_, second, fd, &event) != 0) {
      owner = -1;
      return -1;  // curl fails the transfer: no wait for a socket unwatched.
    }
  }
  owner = index;
  return 0;
}

void CurlMultis::Run(absl::Duration max_wait) {
  absl::Time now = absl::Now();
  absl::Duration wait = std::min(max_wait, absl::Seconds(1));
  for (const auto& m : multis_) wait = std::min(wait, m->due - now);
  wait = std::max(wait, absl::ZeroDuration());
  // Round up: a wait rounded down to 0 ms would spin until curl's timeout.
  const int wait_ms = static_cast<int>(
      absl::ToInt64Milliseconds(absl::Ceil(wait, absl::Milliseconds(1))));
  epoll_event events[256];
  const int ready = epoll_wait(epoll_fd_, events, 256, wait_ms);
  int running = 0;
  for (int i = 0; i < ready; ++i) {
    const int fd = events[i].data.fd;
    if (fd == wake_fd_) {
      uint64_t count = 0;
      [[maybe_unused]] ssize_t n = read(wake_fd_, &count, sizeof(count));
      // Read, then cleared: a Wakeup in between wrote nothing, and this
      // Run returns after it anyway. The exchange reads that Wakeup's own
      // exchange, so what its thread did before is seen by Run's caller.
      wake_pending_.exchange(false, std::memory_order_acq_rel);
      continue;
    }
    const size_t slot = static_cast<size_t>(fd);
    // A socket an earlier action this round closed; its event is stale.
    if (slot >= owner_.size() || owner_[slot] < 0) continue;
    const uint32_t e = events[i].events;
    int mask = ((e & EPOLLIN) ? CURL_CSELECT_IN : 0) |
               ((e & EPOLLOUT) ? CURL_CSELECT_OUT : 0);
    // An error or hang-up: let curl find out by reading and writing.
    if (e & (EPOLLERR | EPOLLHUP)) mask |= CURL_CSELECT_IN | CURL_CSELECT_OUT;
    curl_multi_socket_action(multis_[owner_[slot]]->handle.get(), fd, mask,
                             &running);
  }
  now = absl::Now();
  for (const auto& m : multis_) {
    if (m->due > now) continue;
    m->due = absl::InfiniteFuture();  // One-shot: curl sets the next.
    curl_multi_socket_action(m->handle.get(), CURL_SOCKET_TIMEOUT, 0, &running);
  }
}

void CurlMultis::Wakeup() {
  if (wake_pending_.exchange(true, std::memory_order_acq_rel)) return;
  const uint64_t one = 1;
  [[maybe_unused]] ssize_t n = write(wake_fd_, &one, sizeof(one));
}

}  // namespace sieve::fetch_internal
