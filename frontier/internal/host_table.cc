#include "frontier/internal/host_table.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace sieve {

HostState& HostTable::GetOrCreate(std::string_view host) {
  auto [it, inserted] = hosts_.try_emplace(AbslView(host));
  if (inserted) {
    HostState& state = it->second;
    state.name = std::string(host);
    auto parked = parked_.find(AbslView(host));
    if (parked == parked_.end()) {
      state.id = next_id_++;
    } else {
      state.id = parked->second.id;
      state.urls_dispatched = parked->second.urls_dispatched;
      state.politeness.crawl_delay = parked->second.crawl_delay;
      state.politeness.crawl_delay_capped = parked->second.crawl_delay_capped;
      parked_.erase(parked);
    }
  }
  return it->second;
}

HostState& HostTable::CreateWithId(std::string_view host, uint64_t id) {
  HostState& state = hosts_[AbslView(host)];
  state.name = std::string(host);
  state.id = id;
  next_id_ = std::max(next_id_, id + 1);
  return state;
}

HostState* HostTable::Find(std::string_view host) {
  auto it = hosts_.find(AbslView(host));
  return it == hosts_.end() ? nullptr : &it->second;
}

const HostState* HostTable::Find(std::string_view host) const {
  auto it = hosts_.find(AbslView(host));
  return it == hosts_.end() ? nullptr : &it->second;
}

void HostTable::Erase(std::string_view host) { hosts_.erase(AbslView(host)); }

void HostTable::Park(std::string_view host) {
  auto it = hosts_.find(AbslView(host));
  if (it == hosts_.end()) return;
  const HostState& state = it->second;
  parked_[AbslView(host)] =
      ParkedHost{.id = state.id,
                 .urls_dispatched = state.urls_dispatched,
                 .crawl_delay = state.politeness.crawl_delay,
                 .crawl_delay_capped = state.politeness.crawl_delay_capped};
  hosts_.erase(it);
}

void HostTable::PushBack(HostState& host, QueuedUrl url) {
  queued_bytes_ += BytesOf(url);
  ++queued_urls_;
  // Retried URLs stay at the back, behind every fresh URL of the host.
  auto at = host.queue.end();
  if (!url.retried()) {
    while (at != host.queue.begin() && std::prev(at)->retried()) --at;
  }
  host.queue.insert(at, std::move(url));
}

void HostTable::PushFront(HostState& host, QueuedUrl url) {
  queued_bytes_ += BytesOf(url);
  ++queued_urls_;
  host.queue.push_front(std::move(url));
}

void HostTable::PushRevisit(HostState& host, QueuedUrl url) {
  queued_bytes_ += BytesOf(url);
  ++queued_urls_;
  auto at = host.queue.begin();
  while (at != host.queue.end() && at->revisit) ++at;
  host.queue.insert(at, std::move(url));
}

QueuedUrl HostTable::PopFront(HostState& host) {
  QueuedUrl url = std::move(host.queue.front());
  host.queue.pop_front();
  queued_bytes_ -= BytesOf(url);
  --queued_urls_;
  return url;
}

uint64_t HostTable::Clear(HostState& host) {
  const uint64_t n = host.queue.size();
  for (const QueuedUrl& url : host.queue) queued_bytes_ -= BytesOf(url);
  queued_urls_ -= n;
  host.queue.clear();
  return n;
}

}  // namespace sieve
