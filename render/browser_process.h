// render/browser_process.h: one headless Chromium, spawned in a process group
// of its own and spoken to over --remote-debugging-pipe.
//
// Chromium is started directly (never through /usr/bin/chromium-headless-shell,
// a shell wrapper that does not exec) with fd 3 (what it reads) and fd 4 (what
// it writes) both one end of a Unix socket pair, the client holding the other
// end (render/devtools_client.h): a socket, not two pipes, so a write to a
// dead browser fails with EPIPE (MSG_NOSIGNAL) instead of raising SIGPIPE. The
// process:
//  - leads a new process group, so every process it starts (zygotes,
//    renderers, the GPU and network services) shares its group and
//    KillGroup() takes them all;
//  - gets SIGKILL when the thread that spawned it exits (PR_SET_PDEATHSIG), so
//    a `kill -9` of the crawler takes the browser down, and exits by itself
//    when the pipe closes (about 50 ms);
//  - when the caller is root, runs as an unprivileged user (`nobody`) with
//    Chromium's sandbox on; without the sandbox only when the options say so
//    (pages run untrusted scripts);
//  - can reach no network itself: every host name resolves to nothing and its
//    proxy is a host that does not exist, so the only bytes a page gets are the
//    ones the client supplies through Fetch.fulfillRequest.
//
// Not thread-safe; the destructor kills the group and removes the profile.
//
// Example:
//   sieve::BrowserOptions options;
//   absl::StatusOr<std::unique_ptr<sieve::BrowserProcess>> browser =
//       sieve::BrowserProcess::Spawn(options);
//   if (browser.ok()) { DevToolsClient client((*browser)->TakePipe());  // owns the fd ... }
#ifndef SIEVE_RENDER_BROWSER_PROCESS_H_
#define SIEVE_RENDER_BROWSER_PROCESS_H_

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace sieve {

struct BrowserOptions {
  // The Chromium binary itself (not a wrapper script).
  // Default: "/usr/lib/chromium/chromium-headless-shell".
  std::string binary = "/usr/lib/chromium/chromium-headless-shell";
  // Run without Chromium's sandbox (--no-sandbox). Pages run untrusted
  // scripts: set only where no sandbox can be had and the risk is accepted.
  // Default: false.
  bool no_sandbox = false;
  // The user the browser runs as when the caller is root (its sandbox refuses
  // to start as root). REQUIRES: an existing user. Default: "nobody".
  std::string unprivileged_user = "nobody";
  // Pass --disable-dev-shm-usage (shared memory in /tmp) when /dev/shm is
  // smaller than this, as in small containers (Docker's 64 MB).
  // Default: 512 MiB.
  int64_t min_dev_shm_bytes = int64_t{512} << 20;
  // Keep the browser's stderr (Chromium logs a lot); otherwise /dev/null.
  // Default: false.
  bool inherit_stderr = false;
  // Extra command-line switches ("--name=value"). Default: none.
  std::vector<std::string> extra_args;
};

class BrowserProcess {
 public:
  // Spawns the browser. Fails when the binary is missing, the unprivileged
  // user does not exist, or fork fails; a browser that starts and then dies
  // (no sandbox possible, say) shows as EOF on the pipe. Cost: a fork and an
  // exec; Chromium needs 0.3-1 s of CPU before it answers.
  static absl::StatusOr<std::unique_ptr<BrowserProcess>> Spawn(
      const BrowserOptions& options);

  // Kills the process group and removes the profile directory.
  ~BrowserProcess();
  BrowserProcess(const BrowserProcess&) = delete;
  BrowserProcess& operator=(const BrowserProcess&) = delete;

  // The client's end of the socket pair, once; the caller owns it from then
  // on (closing it makes the browser exit).
  int TakePipe();

  pid_t pid() const { return pid_; }
  // SIGKILL to every process of the group (idempotent), then reaps the
  // browser. Processes of the group that the browser started are children of
  // init by then; the kill reaches them all the same.
  void KillGroup();
  // SIGKILL to every process of the group, without reaping; safe from any
  // thread while the object lives.
  void SignalGroup();
  // Waits up to `timeout` for the browser to exit by itself (after its pipe
  // closed); true when it did.
  bool WaitExit(absl::Duration timeout);
  // Proportional set size of every live process of the group, in bytes, summed
  // from /proc/<pid>/smaps_rollup. Cost: a scan of /proc.
  int64_t PssBytes() const;
  // The pids of the group's live processes (a scan of /proc).
  std::vector<pid_t> GroupPids() const;

  // Whether `options.binary` exists and is executable.
  static bool Installed(const BrowserOptions& options);

 private:
  BrowserProcess() = default;

  pid_t pid_ = -1;
  std::atomic<bool> reaped_{false};
  int pipe_fd_ = -1;
  std::string profile_dir_;
};

}  // namespace sieve

#endif  // SIEVE_RENDER_BROWSER_PROCESS_H_
