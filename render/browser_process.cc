// render/browser_process.cc: fork + exec of Chromium in a process group of its
// own, as an unprivileged user when root.
#include "render/browser_process.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sieve {
namespace {

// Switches every browser gets. The browser's own network is made useless:
// every host name resolves to nothing (so DNS prefetch, preconnect and
// WebSockets go nowhere) and every connection would go through a proxy that
// does not exist, loopback included (<-loopback). Pages get bytes only
// through Fetch.fulfillRequest. Frames stay in the page's renderer (no
// site-per-process) so one DevTools session sees every iframe.
constexpr const char* kBaseArgs[] = {
    "--remote-debugging-pipe",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-extensions",
    "--disable-breakpad",
    "--disable-gpu",
    // No compositing on the GPU process, no page kept for Back (a tab
    // navigates from page to page: render/internal/tab.h): ~10 % less CPU a
    // page (docs/benchmarks.md, rendering).
    "--disable-gpu-compositing",
    "--disable-back-forward-cache",
    "--run-all-compositor-stages-before-draw",
    "--mute-audio",
    "--hide-scrollbars",
    "--disable-site-isolation-trials",
    "--disable-features=IsolateOrigins,site-per-process,Translate,"
    "OptimizationHints,MediaRouter,DialMediaRouteProvider,"
    "InterestFeedContentSuggestions,AutofillServerCommunication,PaintHolding,"
    "BackForwardCache",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--proxy-server=http://sieve-no-network.invalid:9",
    "--proxy-bypass-list=<-loopback>",
};

// Moves fd above the range dup2() writes (3, 4) and marks it close-on-exec.
int HighFd(int fd) {
  int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  close(fd);
  return high;
}

int64_t DevShmBytes() {
  struct statvfs st;
  if (statvfs("/dev/shm", &st) != 0) return 0;
  return static_cast<int64_t>(st.f_bsize) * static_cast<int64_t>(st.f_blocks);
}

// The process group of /proc/<pid>/stat: the fields after the ')' that ends
// the command name are state, ppid, pgrp.
pid_t ProcessGroupOf(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(in, line)) return -1;
  size_t close = line.rfind(')');
  if (close == std::string::npos) return -1;
  std::istringstream rest(line.substr(close + 1));
  std::string state;
  long ppid = 0, pgrp = -1;
  rest >> state >> ppid >> pgrp;
  return static_cast<pid_t>(pgrp);
}

}  // namespace

bool BrowserProcess::Installed(const BrowserOptions& options) {
  return access(options.binary.c_str(), X_OK) == 0;
}

absl::StatusOr<std::unique_ptr<BrowserProcess>> BrowserProcess::Spawn(
    const BrowserOptions& options) {
  if (!Installed(options)) {
    return absl::NotFoundError(
        absl::StrCat("no Chromium at ", options.binary,
                     " (Debian package chromium-headless-shell)"));
  }
  const bool root = geteuid() == 0;
  uid_t uid = 0;
  gid_t gid = 0;
  if (root) {
    // getpwnam_r before fork: the child may only make async-signal-safe calls.
    std::vector<char> buffer(16384);
    struct passwd pw;
    struct passwd* found = nullptr;
    if (getpwnam_r(options.unprivileged_user.c_str(), &pw, buffer.data(),
                   buffer.size(), &found) != 0 ||
        found == nullptr) {
      return absl::FailedPreconditionError(absl::StrCat(
          "running as root, and the user '", options.unprivileged_user,
          "' to run Chromium as does not exist"));
    }
    uid = pw.pw_uid;
    gid = pw.pw_gid;
  }

  auto process = std::unique_ptr<BrowserProcess>(new BrowserProcess());
  char dir_template[] = "/tmp/sieve-chromium-XXXXXX";
  if (mkdtemp(dir_template) == nullptr) {
    return absl::InternalError(
        absl::StrCat("mkdtemp for the browser profile: ", strerror(errno)));
  }
  process->profile_dir_ = dir_template;
  if (root && chown(dir_template, uid, gid) != 0) {
    return absl::InternalError(
        absl::StrCat("chown of the browser profile: ", strerror(errno)));
  }

  std::vector<std::string> args = {options.binary};
  for (const char* arg : kBaseArgs) args.emplace_back(arg);
  args.push_back("--user-data-dir=" + process->profile_dir_);
  if (options.no_sandbox) args.emplace_back("--no-sandbox");
  if (DevShmBytes() < options.min_dev_shm_bytes) {
    args.emplace_back("--disable-dev-shm-usage");
  }
  for (const std::string& arg : options.extra_args) args.push_back(arg);
  args.emplace_back("about:blank");
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env = {"HOME=" + process->profile_dir_,
                                  "PATH=/usr/bin:/bin", "LANG=C.UTF-8"};
  std::vector<char*> envp;
  for (std::string& entry : env) envp.push_back(entry.data());
  envp.push_back(nullptr);

  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return absl::InternalError(absl::StrCat("socketpair: ", strerror(errno)));
  }
  const int ours = HighFd(pair[0]);
  const int theirs = HighFd(pair[1]);
  const int devnull = HighFd(open("/dev/null", O_RDWR | O_CLOEXEC));
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    close(ours);
    close(theirs);
    close(devnull);
    return absl::InternalError(absl::StrCat("fork: ", strerror(error)));
  }
  if (pid == 0) {
    // The child: async-signal-safe calls only, then exec.
    setpgid(0, 0);
    if (root &&
        (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0)) {
      _exit(126);
    }
    // After setuid, which clears it. Then check the parent did not die before.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(125);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig = 1; sig < NSIG; ++sig) signal(sig, SIG_DFL);
    dup2(devnull, 0);
    dup2(devnull, 1);
    if (!options.inherit_stderr) dup2(devnull, 2);
    dup2(theirs, 3);
    dup2(theirs, 4);
    close_range(5, ~0U, 0);
    execve(argv[0], argv.data(), envp.data());
    _exit(127);
  }
  // Also from the parent, so the group exists before we might kill it.
  setpgid(pid, pid);
  close(theirs);
  close(devnull);
  process->pid_ = pid;
  process->pipe_fd_ = ours;
  return process;
}

BrowserProcess::~BrowserProcess() {
  if (pipe_fd_ >= 0) close(pipe_fd_);
  if (pid_ > 0) KillGroup();
  // The group's last processes (children of init now) may still hold files
  // open; removal of what they write later is best effort.
  std::error_code ignored;
  if (!profile_dir_.empty()) std::filesystem::remove_all(profile_dir_, ignored);
}

int BrowserProcess::TakePipe() {
  int fd = pipe_fd_;
  pipe_fd_ = -1;
  return fd;
}

void BrowserProcess::KillGroup() {
  if (reaped_ || pid_ <= 0) return;
  // While the leader is unreaped its pid cannot be reused, so -pid_ is still
  // our group.
  kill(-pid_, SIGKILL);
  while (waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  reaped_ = true;
}

void BrowserProcess::SignalGroup() {
  if (pid_ > 0 && !reaped_) kill(-pid_, SIGKILL);
}

bool BrowserProcess::WaitExit(absl::Duration timeout) {
  if (reaped_) return true;
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    siginfo_t info;
    info.si_pid = 0;
    // WNOWAIT: leave the zombie so KillGroup can still name the group.
    if (waitid(P_PID, static_cast<id_t>(pid_), &info,
               WEXITED | WNOHANG | WNOWAIT) == 0 &&
        info.si_pid == pid_) {
      return true;
    }
    if (absl::Now() >= deadline) return false;
    absl::SleepFor(absl::Milliseconds(10));
  }
}

std::vector<pid_t> BrowserProcess::GroupPids() const {
  std::vector<pid_t> pids;
  if (pid_ <= 0) return pids;
  std::error_code error;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    int value = 0;
    if (!absl::SimpleAtoi(name, &value)) continue;
    if (ProcessGroupOf(name) == pid_) pids.push_back(value);
  }
  return pids;
}

int64_t BrowserProcess::PssBytes() const {
  int64_t total = 0;
  for (pid_t pid : GroupPids()) {
    std::ifstream in(absl::StrCat("/proc/", pid, "/smaps_rollup"));
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("Pss:", 0) != 0) continue;
      std::istringstream fields(line.substr(4));
      int64_t kb = 0;
      fields >> kb;
      total += kb * 1024;
      break;
    }
  }
  return total;
}

}  // namespace sieve
