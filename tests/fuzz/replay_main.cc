// tests/fuzz/replay_main.cc: a main() for the libFuzzer targets (*/fuzz/*_fuzzer.cc)
// without libFuzzer, so the GCC test builds (ASan+UBSan) run every target as a
// ctest test (label fuzz; see sieve_add_fuzzer in cmake/SieveHelpers.cmake).
//
// It runs LLVMFuzzerTestOneInput on the empty input, on every file of the seed
// corpus directories given, then on --runs=N deterministic mutations of them
// (a fixed pseudo-random sequence seeded by --seed, so a failure repeats
// exactly; the failing input is written to --artifact before it is run). No
// coverage feedback: this is a regression and smoke run of the seeds and their
// near neighbours. Real fuzzing is scripts/fuzz/run.sh (clang + libFuzzer).
//
// Usage: <target> [--runs=N] [--seed=S] [--max_len=B] [--artifact=PATH]
//                 CORPUS_DIR_OR_FILE...
// Exits 0 when every input ran; a bad input aborts (the target or a sanitizer).
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "tests/common/files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

struct Flags {
  uint64_t runs = 1000;
  uint64_t seed = 1;
  size_t max_len = 65536;
  std::string artifact;
  std::vector<std::string> inputs;
};

bool ParseFlags(int argc, char** argv, Flags& flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](std::string_view name) -> const char* {
      return arg.starts_with(name) ? argv[i] + name.size() : nullptr;
    };
    if (const char* runs = value("--runs=")) {
      flags.runs = std::strtoull(runs, nullptr, 10);
    } else if (const char* seed = value("--seed=")) {
      flags.seed = std::strtoull(seed, nullptr, 10);
    } else if (const char* max_len = value("--max_len=")) {
      flags.max_len = std::strtoull(max_len, nullptr, 10);
    } else if (const char* artifact = value("--artifact=")) {
      flags.artifact = artifact;
    } else if (arg.starts_with("--")) {
      std::cerr << "unknown flag " << arg << "\n";
      return false;
    } else {
      flags.inputs.emplace_back(arg);
    }
  }
  return flags.max_len > 0;
}

// The seed files, sorted by path so the mutation sequence does not depend on
// the directory's order.
std::vector<std::string> LoadCorpus(const std::vector<std::string>& inputs,
                                    size_t max_len) {
  std::vector<fs::path> paths;
  for (const std::string& input : inputs) {
    if (fs::is_directory(input)) {
      for (const fs::directory_entry& e :
           fs::recursive_directory_iterator(input)) {
        if (e.is_regular_file()) paths.push_back(e.path());
      }
    } else {
      paths.emplace_back(input);
    }
  }
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> corpus;
  for (const fs::path& path : paths) {
    std::string bytes = sieve::test::ReadFile(path);
    if (bytes.size() > max_len) bytes.resize(max_len);
    corpus.push_back(std::move(bytes));
  }
  return corpus;
}

// Bytes that change meaning in the formats we read: delimiters, quotes,
// escapes, and the edges of signed and unsigned integers.
constexpr std::array<uint8_t, 16> kInterestingBytes = {
    0x00, 0x01, 0x7f, 0x80, 0xff, '\n', '\r', ' ',
    '"',  '\\', '=',  '[',  ']',  '{',  '%',  '/'};
constexpr std::array<uint64_t, 8> kInterestingWords = {
    0, 1, 0x7f, 0xff, 0x7fffffff, 0xffffffff, 1ull << 40, ~uint64_t{0}};

// One to four stacked edits of `base`, some splicing in `other`:
//   - flip a bit, set a byte to an interesting value or a random one
//   - insert or delete a run, duplicate a run elsewhere
//   - overwrite 1, 2, 4 or 8 bytes with an interesting integer
//   - cut the tail, or splice: a prefix of `base` then a suffix of `other`
std::string Mutate(std::string data, const std::string& other,
                   std::mt19937_64& rng, size_t max_len) {
  auto below = [&](size_t n) -> size_t {
    return n == 0 ? 0 : static_cast<size_t>(rng() % n);
  };
  const int edits = 1 + static_cast<int>(below(4));
  for (int e = 0; e < edits; ++e) {
    switch (below(9)) {
      case 0:
        if (!data.empty()) data[below(data.size())] ^= 1 << below(8);
        break;
      case 1:
        if (!data.empty()) {
          data[below(data.size())] = static_cast<char>(
              kInterestingBytes[below(kInterestingBytes.size())]);
        }
        break;
      case 2:
        if (!data.empty()) data[below(data.size())] = static_cast<char>(rng());
        break;
      case 3: {
        const size_t n = 1 + below(8);
        std::string run(n, '\0');
        for (char& c : run) {
          c = below(2) == 0
                  ? static_cast<char>(rng())
                  : static_cast<char>(
                        kInterestingBytes[below(kInterestingBytes.size())]);
        }
        data.insert(below(data.size() + 1), run);
        break;
      }
      case 4:
        if (!data.empty()) {
          const size_t at = below(data.size());
          data.erase(at, 1 + below(std::min<size_t>(data.size() - at, 16)));
        }
        break;
      case 5:
        if (!data.empty()) {
          const size_t from = below(data.size());
          const size_t n = 1 + below(std::min<size_t>(data.size() - from, 64));
          const std::string run = data.substr(from, n);
          data.insert(below(data.size() + 1), run);
        }
        break;
      case 6: {
        const size_t width = size_t{1} << below(4);
        if (data.size() >= width) {
          const uint64_t word =
              kInterestingWords[below(kInterestingWords.size())];
          std::memcpy(data.data() + below(data.size() - width + 1), &word,
                      width);
        }
        break;
      }
      case 7:
        data.resize(below(data.size() + 1));
        break;
      default:
        data = data.substr(0, below(data.size() + 1)) +
               other.substr(below(other.size() + 1));
        break;
    }
  }
  if (data.size() > max_len) data.resize(max_len);
  return data;
}

void Run(const std::string& input, const std::string& artifact) {
  if (!artifact.empty()) {
    std::ofstream out(artifact, std::ios::binary | std::ios::trunc);
    out.write(input.data(), static_cast<std::streamsize>(input.size()));
  }
  // A copy in its own allocation, so ASan sees reads past its end.
  std::vector<uint8_t> bytes(input.begin(), input.end());
  LLVMFuzzerTestOneInput(bytes.empty() ? nullptr : bytes.data(), bytes.size());
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags;
  if (!ParseFlags(argc, argv, flags)) {
    std::cerr << "usage: " << argv[0]
              << " [--runs=N] [--seed=S] [--max_len=B] [--artifact=PATH]"
                 " CORPUS...\n";
    return 2;
  }
  std::vector<std::string> corpus = LoadCorpus(flags.inputs, flags.max_len);
  Run("", flags.artifact);
  for (const std::string& seed : corpus) Run(seed, flags.artifact);
  if (corpus.empty()) corpus.emplace_back();
  std::mt19937_64 rng(flags.seed);
  for (uint64_t i = 0; i < flags.runs; ++i) {
    const std::string& base = corpus[rng() % corpus.size()];
    const std::string& other = corpus[rng() % corpus.size()];
    Run(Mutate(base, other, rng, flags.max_len), flags.artifact);
  }
  std::cout << "ran " << corpus.size() << " seeds and " << flags.runs
            << " mutations\n";
  if (!flags.artifact.empty()) std::remove(flags.artifact.c_str());
  return 0;
}
