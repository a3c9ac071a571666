#include "crawler/demo/hostile_pages.h"

#include <httplib.h>

#include <algorithm>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace sieve {

HostilePages::HostilePages() {
  std::mt19937 gen(42);
  random_chunk_.resize(64 << 10);
  for (char& c : random_chunk_) c = static_cast<char>('a' + gen() % 26);
  binary_.resize(256 << 10);
  for (char& c : binary_) c = static_cast<char>(gen());
  links_ = "<html><body>";
  for (int i = 0; links_.size() < (10u << 20) - 64; ++i) {
    absl::StrAppend(&links_, "<a href=\"/hostile/l/", i, "\">", i, "</a>\n");
  }
  links_ += "</body></html>";
}

void HostilePages::Register(httplib::Server& server) {
  RegisterPages(server);
  RegisterStreams(server);
  RegisterBodies(server);
}

void HostilePages::RegisterPages(httplib::Server& server) {
  using httplib::Request;
  using httplib::Response;
  server.Get("/hostile/", [](const Request&, Response& res) {
    std::string body = "<html><body>";
    for (const char* page : {"endless", "trickle", "reset", "badgzip", "binary",
                             "links10mb", "ok.html"}) {
      absl::StrAppend(&body, "<a href=\"/hostile/", page, "\">x</a>");
    }
    res.set_content(body + "</body></html>", "text/html");
  });
  server.Get("/hostile/ok.html", [](const Request&, Response& res) {
    res.set_content("<html><a href=\"/hostile/ok2.html\">ok</a></html>",
                    "text/html");
  });
  server.Get("/hostile/ok2.html", [](const Request&, Response& res) {
    res.set_content("<html>fine</html>", "text/html");
  });
}

void HostilePages::RegisterStreams(httplib::Server& server) {
  using httplib::DataSink;
  using httplib::Request;
  using httplib::Response;
  server.Get("/hostile/endless", [this](const Request&, Response& res) {
    res.set_chunked_content_provider(
        "application/octet-stream", [this](size_t, DataSink& sink) {
          return !stopping_.load() &&
                 sink.write(random_chunk_.data(), random_chunk_.size());
        });
  });
  server.Get("/hostile/trickle", [this](const Request&, Response& res) {
    res.set_chunked_content_provider("text/html",
                                     [this](size_t offset, DataSink& sink) {
                                       if (stopping_.load() || offset > 60)
                                         return false;
                                       absl::SleepFor(absl::Seconds(1));
                                       return sink.write("<", 1);
                                     });
  });
  server.Get("/hostile/reset", [](const Request&, Response& res) {
    res.set_content_provider(100'000, "text/html",
                             [](size_t, size_t, DataSink& sink) {
                               sink.write("<html><bod", 10);
                               return false;
                             });
  });
}

void HostilePages::RegisterBodies(httplib::Server& server) {
  using httplib::DataSink;
  using httplib::Request;
  using httplib::Response;
  server.Get("/hostile/badgzip", [](const Request&, Response& res) {
    res.set_header("Content-Encoding", "gzip");
    res.set_content(
        std::string("\x1f\x8b\x08\x00garbage that is not deflate data", 36),
        "text/html");
  });
  server.Get("/hostile/binary", [this](const Request&, Response& res) {
    res.set_content(binary_, "text/html");
  });
  server.Get("/hostile/links10mb", [this](const Request&, Response& res) {
    res.set_content(links_, "text/html");
  });
  server.Get("/hostile/big12mb", [](const Request&, Response& res) {
    constexpr size_t kSize = 12'000'000;
    std::string head = "<html><body>";
    for (int i = 1000001; i <= 1000005; ++i)
      absl::StrAppend(&head, "<a href=\"/hostile/l/", i, "\">", i, "</a>\n");
    head += "<p>";
    const std::string tail =
        "</p><a href=\"/hostile/l/2000000\">past the cut</a></body></html>";
    res.set_content_provider(
        kSize, "text/html",
        [head, tail](size_t offset, size_t length, DataSink& sink) {
          std::string chunk(std::min<size_t>(length, 64 << 10), 'x');
          for (size_t i = 0; i < chunk.size(); ++i) {
            const size_t at = offset + i;
            if (at < head.size()) {
              chunk[i] = head[at];
            } else if (at >= kSize - tail.size()) {
              chunk[i] = tail[at - (kSize - tail.size())];
            } else if (at % 64 == 0) {
              chunk[i] = ' ';
            }
          }
          return sink.write(chunk.data(), chunk.size());
        });
  });
  server.Get(R"(/hostile/l/\d+)", [](const Request&, Response& res) {
    res.set_content("<html>leaf</html>", "text/html");
  });
}

}  // namespace sieve
