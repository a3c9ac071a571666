#include "frontier/internal/host_table.h"

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

#include "absl/status/statusor.h"
#include "frontier/internal/parked_store.h"

namespace sieve {

HostState& HostTable::GetOrCreate(std::string_view host) {
  auto [it, inserted] = hosts_.try_emplace(AbslView(host));
  if (inserted) {
    HostState& state = it->second;
    state.name = std::string(host);
    std::optional<ParkedHost> parked;
    if (auto in_ram = parked_.find(AbslView(host)); in_ram != parked_.end()) {
      parked = in_ram->second;
      parked_.erase(in_ram);
    } else if (disk_ != nullptr) {
      absl::StatusOr<std::optional<ParkedHost>> on_disk = disk_->Take(host);
      if (on_disk.ok()) {
        parked = *on_disk;
        if (parked.has_value() && parked->dropped && revived_dropped_) {
          revived_dropped_(state.name);
        }
      } else if (status_.ok()) {
        status_ = on_disk.status();
      }
    }
    if (!parked.has_value()) {
      state.id = next_id_++;
    } else {
      state.id = parked->id;
      state.urls_dispatched = parked->urls_dispatched;
      state.politeness.crawl_delay = parked->crawl_delay;
      state.politeness.crawl_delay_capped = parked->crawl_delay_capped;
      state.dropped = parked->dropped;
      state.renders_without_links = parked->renders_without_links;
    }
  }
  return it->second;
}

uint64_t HostTable::parked_on_disk() const {
  return disk_ != nullptr ? disk_->size() : 0;
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
                 .crawl_delay_capped = state.politeness.crawl_delay_capped,
                 .dropped = state.dropped,
                 .renders_without_links = state.renders_without_links};
  hosts_.erase(it);
  if (disk_ != nullptr && parked_.size() > max_parked_in_memory_) SpillParked();
}

void HostTable::SpillParked() {
  // Any half will do: a host comes back from disk in one read when it is
  // seen again, and one batch per max/2 parks keeps the writes few.
  std::vector<std::pair<std::string, ParkedHost>> out;
  out.reserve(parked_.size() / 2);
  for (auto it = parked_.begin();
       it != parked_.end() && out.size() < parked_.size() / 2; ++it) {
    out.emplace_back(it->first, it->second);
  }
  if (absl::Status s = disk_->PutMany(out, next_id_); !s.ok()) {
    if (status_.ok()) status_ = s;  // They stay in RAM.
    return;
  }
  for (const auto& [name, parked] : out) {
    if (parked.dropped) spilled_dropped_.push_back(name);
    parked_.erase(AbslView(name));
  }
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
