#include "fetch/dns_cache.h"

#include <ares.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fetch/address_guard.h"

namespace sieve {
namespace {

// `host` lower-cased, without IPv6 brackets or a trailing dot.
std::string NameKey(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (!host.empty() && host.back() == '.') host.remove_suffix(1);
  return absl::AsciiStrToLower(absl::string_view(host.data(), host.size()));
}

ares_channel Channel(void* channel) {
  return static_cast<ares_channel>(channel);
}

}  // namespace

struct DnsCache::Query {
  DnsCache* cache;
  std::string name;
};

absl::Status ValidateDnsOptions(const DnsOptions& o) {
  auto invalid = [](std::string_view option, std::string_view rule) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DnsOptions.", absl::string_view(option.data(), option.size()),
        " must be ", absl::string_view(rule.data(), rule.size())));
  };
  if (o.min_ttl < absl::ZeroDuration()) return invalid("min_ttl", ">= 0");
  if (o.max_ttl < o.min_ttl) return invalid("max_ttl", ">= min_ttl");
  if (o.negative_ttl < absl::ZeroDuration())
    return invalid("negative_ttl", ">= 0");
  if (o.timeout <= absl::ZeroDuration()) return invalid("timeout", "> 0");
  if (o.tries < 1) return invalid("tries", ">= 1");
  if (o.max_entries < 1) return invalid("max_entries", ">= 1");
  return absl::OkStatus();
}

bool DnsCache::IsIpLiteral(std::string_view host) {
  const std::string key = NameKey(host);
  unsigned char buffer[sizeof(in6_addr)];
  return inet_pton(AF_INET, key.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, key.c_str(), buffer) == 1;
}

absl::StatusOr<std::unique_ptr<DnsCache>> DnsCache::Create(DnsOptions options) {
  if (absl::Status s = ValidateDnsOptions(options); !s.ok()) return s;
  static const int library = ares_library_init(ARES_LIB_INIT_ALL);
  if (library != ARES_SUCCESS) {
    return absl::InternalError(
        absl::StrCat("ares_library_init: ", ares_strerror(library)));
  }
  ares_options ares{};
  ares.timeout = static_cast<int>(std::clamp<int64_t>(
      absl::ToInt64Milliseconds(options.timeout), 1, INT_MAX));
  ares.tries = options.tries;
  ares.domains = nullptr;  // No search list: a URL's host is a full name.
  ares.ndomains = 0;
  ares_channel channel = nullptr;
  int rc = ares_init_options(
      &channel, &ares, ARES_OPT_TIMEOUTMS | ARES_OPT_TRIES | ARES_OPT_DOMAINS);
  if (rc != ARES_SUCCESS) {
    return absl::InternalError(
        absl::StrCat("ares_init_options: ", ares_strerror(rc)));
  }
  if (!options.servers.empty()) {
    const std::string csv = absl::StrJoin(options.servers, ",");
    rc = ares_set_servers_ports_csv(channel, csv.c_str());
    if (rc != ARES_SUCCESS) {
      ares_destroy(channel);
      return absl::InvalidArgumentError(absl::StrCat(
          "DnsOptions.servers \"", csv, "\": ", ares_strerror(rc)));
    }
  }
  int wake[2];
  if (pipe2(wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    ares_destroy(channel);
    return absl::ResourceExhaustedError(
        absl::StrCat("pipe2: ", std::strerror(errno)));
  }
  return std::unique_ptr<DnsCache>(
      new DnsCache(std::move(options), channel, wake[0], wake[1]));
}

DnsCache::DnsCache(DnsOptions options, void* channel, int wake_read,
                   int wake_write)
    : options_(std::move(options)),
      channel_(channel),
      wake_read_(wake_read),
      wake_write_(wake_write),
      thread_([this] { Run(); }) {}

DnsCache::~DnsCache() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  const char byte = 0;
  (void)!write(wake_write_, &byte, 1);
  thread_.join();
  close(wake_read_);
  close(wake_write_);
}

void DnsCache::SetListener(std::function<void()> listener) {
  std::lock_guard lock(listener_mu_);
  listener_ = std::move(listener);
}

DnsStats DnsCache::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

size_t DnsCache::size() const {
  std::lock_guard lock(mu_);
  return lru_.size();
}

DnsCache::Entry& DnsCache::Use(const std::string& name) {
  auto it = index_.find(name);
  if (it != index_.end()) {
    lru_.splice(lru_.begin(), lru_, it->second);
    return lru_.front();
  }
  // Past the budget, drop the least recently used answers; a lookup under
  // way goes to the front instead (there are at most as many as transfers
  // wait on names), so this loop ends within one pass.
  for (size_t turns = lru_.size();
       lru_.size() >= options_.max_entries && turns > 0; --turns) {
    auto last = std::prev(lru_.end());
    if (last->answer.state == DnsAnswer::kPending) {
      lru_.splice(lru_.begin(), lru_, last);
      continue;
    }
    index_.erase(last->name);
    lru_.erase(last);
  }
  lru_.push_front(Entry{.name = name, .answer = {}});
  index_.emplace(lru_.front().name, lru_.begin());
  return lru_.front();
}

DnsAnswer DnsCache::Lookup(std::string_view host) {
  std::string name = NameKey(host);
  if (IsIpLiteral(name)) {
    return DnsAnswer{.state = DnsAnswer::kResolved, .addresses = {name}};
  }
  if (name.empty()) {
    return DnsAnswer{.state = DnsAnswer::kFailed, .error = "empty host name"};
  }
  const absl::Time now = absl::Now();
  {
    std::lock_guard lock(mu_);
    Entry& entry = Use(name);
    if (entry.answer.state == DnsAnswer::kPending &&
        entry.expires != absl::InfinitePast()) {
      return entry.answer;  // Its lookup is under way.
    }
    if (entry.answer.state != DnsAnswer::kPending && now < entry.expires) {
      ++stats_.hits;
      if (entry.answer.state == DnsAnswer::kFailed) ++stats_.negative_hits;
      return entry.answer;
    }
    // New or expired: look it up.
    entry.answer = DnsAnswer{};
    entry.expires = absl::InfiniteFuture();  // Marks the lookup under way.
    ++stats_.lookups;
    to_start_.push_back(std::move(name));
  }
  const char byte = 0;
  (void)!write(wake_write_, &byte, 1);  // A full pipe is awake enough.
  return DnsAnswer{};
}

DnsAnswer DnsCache::Peek(std::string_view host) const {
  const std::string name = NameKey(host);
  std::lock_guard lock(mu_);
  auto it = index_.find(name);
  return it == index_.end() ? DnsAnswer{} : it->second->answer;
}

DnsAnswer DnsCache::Resolve(std::string_view host, absl::Duration max_wait) {
  DnsAnswer answer = Lookup(host);
  if (answer.state != DnsAnswer::kPending) return answer;
  const std::string name = NameKey(host);
  const auto deadline = absl::ToChronoTime(absl::Now() + max_wait);
  std::unique_lock lock(mu_);
  while (true) {
    auto it = index_.find(name);
    if (it == index_.end()) return DnsAnswer{};  // Dropped: never, pending.
    const DnsAnswer& stored = it->second->answer;
    if (stored.state != DnsAnswer::kPending) {
      ++stats_.hits;
      if (stored.state == DnsAnswer::kFailed) ++stats_.negative_hits;
      return stored;
    }
    if (answered_.wait_until(lock, deadline) == std::cv_status::timeout) {
      return DnsAnswer{};
    }
  }
}

void DnsCache::Store(const std::string& name, DnsAnswer answer,
                     absl::Duration ttl) {
  {
    std::lock_guard lock(mu_);
    if (answer.state == DnsAnswer::kFailed) ++stats_.failures;
    Entry& entry = Use(name);
    entry.answer = std::move(answer);
    entry.expires = absl::Now() + ttl;
  }
  answered_.notify_all();
  std::lock_guard lock(listener_mu_);
  if (listener_) listener_();
}

void DnsCache::OnAnswer(void* arg, int status, int /*timeouts*/,
                        void* result_ptr) {
  std::unique_ptr<Query> query(static_cast<Query*>(arg));
  auto* result = static_cast<ares_addrinfo*>(result_ptr);
  DnsCache* self = query->cache;
  if (status == ARES_EDESTRUCTION) {  // The cache is going away.
    if (result != nullptr) ares_freeaddrinfo(result);
    return;
  }
  DnsAnswer answer;
  int ttl = std::numeric_limits<int>::max();
  if (status == ARES_SUCCESS && result != nullptr) {
    for (const ares_addrinfo_node* node = result->nodes; node != nullptr;
         node = node->ai_next) {
      if (node->ai_addr == nullptr) continue;
      std::string text = AddressText(*node->ai_addr);
      if (text == "?") continue;
      ttl = std::min(ttl, std::max(node->ai_ttl, 0));
      if (std::find(answer.addresses.begin(), answer.addresses.end(), text) ==
          answer.addresses.end()) {
        answer.addresses.push_back(std::move(text));
      }
    }
  }
  if (result != nullptr) ares_freeaddrinfo(result);
  const DnsOptions& o = self->options_;
  if (!answer.addresses.empty()) {
    answer.state = DnsAnswer::kResolved;
    // The record's TTL, bounded: the smallest TTL of the answer's records.
    self->Store(query->name, std::move(answer),
                std::clamp(absl::Seconds(ttl), o.min_ttl, o.max_ttl));
    return;
  }
  answer.state = DnsAnswer::kFailed;
  answer.error = absl::StrCat(
      "DNS lookup of ", query->name, " failed: ",
      status == ARES_SUCCESS ? "no address" : ares_strerror(status));
  self->Store(query->name, std::move(answer), o.negative_ttl);
}

void DnsCache::Run() {
  ares_channel channel = Channel(channel_);
  std::vector<std::string> starting;
  while (true) {
    {
      std::lock_guard lock(mu_);
      if (stopping_) break;
      starting.swap(to_start_);
    }
    for (std::string& name : starting) {
      ares_addrinfo_hints hints{};
      hints.ai_family = AF_UNSPEC;  // A and AAAA.
      auto* query = new Query{this, std::move(name)};
      ares_getaddrinfo(
          channel, query->name.c_str(), nullptr, &hints,
          [](void* arg, int status, int timeouts, ares_addrinfo* result) {
            OnAnswer(arg, status, timeouts, result);
          },
          query);
    }
    starting.clear();

    ares_socket_t sockets[ARES_GETSOCK_MAXNUM];
    const int bits = ares_getsock(channel, sockets, ARES_GETSOCK_MAXNUM);
    std::vector<pollfd> fds = {
        {.fd = wake_read_, .events = POLLIN, .revents = 0}};
    for (int i = 0; i < ARES_GETSOCK_MAXNUM; ++i) {
      const bool readable = ARES_GETSOCK_READABLE(bits, i);
      const bool writable = ARES_GETSOCK_WRITABLE(bits, i);
      if (!readable && !writable) continue;
      fds.push_back({.fd = sockets[i],
                     .events = static_cast<short>((readable ? POLLIN : 0) |
                                                  (writable ? POLLOUT : 0)),
                     .revents = 0});
    }
    timeval most{.tv_sec = 1, .tv_usec = 0};
    timeval next{};
    const timeval* wait = ares_timeout(channel, &most, &next);
    const int wait_ms =
        static_cast<int>(wait->tv_sec * 1000 + (wait->tv_usec + 999) / 1000);
    poll(fds.data(), fds.size(), wait_ms);
    if (fds[0].revents != 0) {
      char drain[64];
      while (read(wake_read_, drain, sizeof(drain)) > 0) {
      }
    }
    for (size_t i = 1; i < fds.size(); ++i) {
      const short r = fds[i].revents;
      ares_process_fd(
          channel,
          (r & (POLLIN | POLLERR | POLLHUP)) ? fds[i].fd : ARES_SOCKET_BAD,
          (r & POLLOUT) ? fds[i].fd : ARES_SOCKET_BAD);
    }
    // Timeouts and retries of the queries no socket event moved.
    ares_process_fd(channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
  }
  ares_destroy(channel);  // Calls each pending query back with EDESTRUCTION.
}

}  // namespace sieve
