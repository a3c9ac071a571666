#include "tests/crawler/crawl/many_hosts_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace sieve::testing_util {
namespace {

int ListenOnLoopback(int* port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      listen(fd, 64) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    close(fd);
    return -1;
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

std::string Answer(std::string_view request, int pages) {
  // "GET /path HTTP/1.1"
  std::string_view path = request.substr(0, request.find("\r\n"));
  const size_t sp = path.find(' ');
  path = sp == std::string_view::npos ? "" : path.substr(sp + 1);
  path = path.substr(0, path.find(' '));
  int status = 200;
  std::string body;
  if (path == "/") {
    body = "<!doctype html><title>home</title>";
    for (int i = 1; i < pages; ++i) {
      absl::StrAppend(&body, "<a href=\"/", i, ".html\">", i, "</a>\n");
    }
  } else if (path.size() > 6 && path.substr(path.size() - 5) == ".html") {
    body = "<!doctype html><title>page</title><a href=\"/\">home</a>";
  } else {
    status = 404;
    body = "not found";
  }
  return absl::StrCat("HTTP/1.1 ", status, status == 200 ? " OK" : " Not Found",
                      "\r\nContent-Type: text/html\r\nContent-Length: ",
                      body.size(), "\r\nConnection: close\r\n\r\n", body);
}

}  // namespace

ManyHostsServer::ManyHostsServer(int hosts, int pages) : pages_(pages) {
  for (int i = 0; i < hosts; ++i) {
    int port = 0;
    const int fd = ListenOnLoopback(&port);
    if (fd < 0) {
      ADD_FAILURE() << "cannot bind a port on 127.0.0.1";
      break;
    }
    listen_fds_.push_back(fd);
    ports_.push_back(port);
  }
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) ADD_FAILURE() << "pipe";
  thread_ = std::thread([this] { Serve(); });
}

ManyHostsServer::~ManyHostsServer() {
  (void)!write(wake_[1], "x", 1);
  thread_.join();
  for (int fd : listen_fds_) close(fd);
  close(wake_[0]);
  close(wake_[1]);
}

std::vector<std::string> ManyHostsServer::RootUrls() const {
  std::vector<std::string> urls;
  for (int port : ports_)
    urls.push_back(absl::StrCat("http://127.0.0.1:", port, "/"));
  return urls;
}

void ManyHostsServer::Serve() {
  std::map<int, std::string> open;  // Accepted connection -> bytes read.
  for (;;) {
    std::vector<pollfd> fds;
    fds.push_back({wake_[0], POLLIN, 0});
    for (int fd : listen_fds_) fds.push_back({fd, POLLIN, 0});
    for (const auto& [fd, buffer] : open) fds.push_back({fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), 1000) < 0) continue;
    if (fds[0].revents != 0) break;
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      const int fd = fds[i].fd;
      if (i <= listen_fds_.size()) {
        for (int c; (c = accept4(fd, nullptr, nullptr,
                                 SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) {
          open[c];
        }
        continue;
      }
      char chunk[4096];
      const ssize_t n = read(fd, chunk, sizeof(chunk));
      std::string& buffer = open[fd];
      if (n > 0) buffer.append(chunk, static_cast<size_t>(n));
      if (n > 0 && buffer.find("\r\n\r\n") == std::string::npos) continue;
      if (n > 0) {
        // Small answers fit the socket buffer: one write.
        const std::string answer = Answer(buffer, pages_);
        (void)!write(fd, answer.data(), answer.size());
        ++requests_;
      }
      close(fd);
      open.erase(fd);
    }
  }
  for (const auto& [fd, buffer] : open) close(fd);
}

}  // namespace sieve::testing_util
