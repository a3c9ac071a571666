// fetch/open_file_limit.h: the process's open-file limit (RLIMIT_NOFILE),
// which bounds how many connections a Fetcher may keep open.
//
// A broad crawl keeps one idle connection per host in rotation so that the
// next request to the host skips TCP and TLS setup; each costs a file
// descriptor. Debian's default soft limit is 1024 while the hard limit is
// usually 524288 or more, so a crawler raises the soft limit to the hard one
// at start (as nginx's worker_rlimit_nofile and Heritrix's start script do).
//
// Example:
//   sieve::OpenFileLimit limit = sieve::RaiseOpenFileLimit();
//   Log("open files: {} (was {}, hard {})", limit.soft, limit.before,
//       limit.hard);
#ifndef SIEVE_FETCH_OPEN_FILE_LIMIT_H_
#define SIEVE_FETCH_OPEN_FILE_LIMIT_H_

#include <cstdint>

namespace sieve {

struct OpenFileLimit {
  uint64_t before = 0;  // Soft limit before the call.
  uint64_t soft = 0;    // Soft limit now.
  uint64_t hard = 0;    // Hard limit (RLIM_INFINITY reported as UINT64_MAX).
};

// Raises the soft RLIMIT_NOFILE to the hard limit (capped at 1,048,576, what
// an unprivileged process may set on Linux by default, fs.nr_open). Never
// fails: when setrlimit refuses, the limit stays as it was. Process-wide.
OpenFileLimit RaiseOpenFileLimit();

// The current soft RLIMIT_NOFILE (1024 if it cannot be read).
uint64_t CurrentOpenFileLimit();

}  // namespace sieve

#endif  // SIEVE_FETCH_OPEN_FILE_LIMIT_H_
