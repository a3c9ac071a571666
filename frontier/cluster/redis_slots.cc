#include "frontier/cluster/redis_slots.h"

#include <array>
#include <charconv>

#include "absl/strings/ascii.h"

namespace sieve::cluster {
namespace {

// CRC16-XMODEM (polynomial 0x1021, init 0), bit by bit: keys are short.
uint16_t Crc16(std::string_view bytes) {
  uint16_t crc = 0;
  for (unsigned char c : bytes) {
    crc ^= static_cast<uint16_t>(c) << 8;
    for (int i = 0; i < 8; ++i)
      crc = (crc & 0x8000) ? static_cast<uint16_t>((crc << 1) ^ 0x1021)
                           : static_cast<uint16_t>(crc << 1);
  }
  return crc;
}

struct KeyPosition {
  std::string_view command;
  int position;  // 0: no key.
};

// Commands whose key is not argument 1. Every other command: argument 1.
constexpr std::array<KeyPosition, 9> kKeyPositions = {{
    {"EVAL", 3},
    {"EVALSHA", 3},
    {"SCRIPT", 0},
    {"PING", 0},
    {"INFO", 0},
    {"CLUSTER", 0},
    {"ASKING", 0},
    {"SELECT", 0},
    {"DBSIZE", 0},
}};

bool SameWord(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (absl::ascii_toupper(static_cast<unsigned char>(a[i])) != b[i])
      return false;
  }
  return true;
}

}  // namespace

uint16_t KeySlot(std::string_view key) {
  const size_t open = key.find('{');
  if (open != std::string_view::npos) {
    const size_t close = key.find('}', open + 1);
    if (close != std::string_view::npos && close > open + 1)
      key = key.substr(open + 1, close - open - 1);
  }
  return Crc16(key) % kClusterSlots;
}

std::optional<std::string_view> CommandKey(
    const std::vector<std::string>& args) {
  if (args.empty()) return std::nullopt;
  int position = 1;
  for (const KeyPosition& k : kKeyPositions) {
    if (SameWord(args[0], k.command)) position = k.position;
  }
  if (position == 3 && (args.size() < 4 || args[2] == "0")) return std::nullopt;
  if (position == 0 || args.size() <= static_cast<size_t>(position))
    return std::nullopt;
  return args[position];
}

std::optional<Redirect> ParseRedirect(std::string_view error) {
  Redirect r;
  if (error.starts_with("MOVED ")) {
    error.remove_prefix(6);
  } else if (error.starts_with("ASK ")) {
    r.ask = true;
    error.remove_prefix(4);
  } else {
    return std::nullopt;
  }
  const size_t space = error.find(' ');
  const size_t colon = error.rfind(':');
  if (space == std::string_view::npos || colon == std::string_view::npos ||
      colon < space)
    return std::nullopt;
  int slot = -1;
  auto [p1, e1] = std::from_chars(error.data(), error.data() + space, slot);
  auto [p2, e2] = std::from_chars(error.data() + colon + 1,
                                  error.data() + error.size(), r.port);
  if (e1 != std::errc() || e2 != std::errc() || slot < 0 ||
      slot >= kClusterSlots || r.port <= 0 || r.port > 65535)
    return std::nullopt;
  r.slot = static_cast<uint16_t>(slot);
  r.host = std::string(error.substr(space + 1, colon - space - 1));
  return r;
}

}  // namespace sieve::cluster
