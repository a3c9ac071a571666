"""A loopback test site for the Scrapy tests: one HTTP server per host (its
own loopback address, 127.0.0.2, 127.0.0.3 ...: its own politeness key), each with pages /p0 ... /p{n-1} that
link to each other and to the next host's /p0, a robots.txt (optionally with
a Crawl-delay) and, optionally, a page answering 429 with Retry-After once.

Every request is logged as (host, path, status, start, end, user_agent) in
the server's own clock, so politeness is checked where it matters: at the server.
"""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Host:
    def __init__(self, site, pages, crawl_delay=None, throttle_path=None, retry_after=1, private=True):
        self.site = site
        self.pages = pages
        self.crawl_delay = crawl_delay
        self.throttle_path = throttle_path
        self.retry_after = retry_after
        self.private = private  # Links to /private, which robots.txt disallows.
        self.throttled = False
        host = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                start = time.monotonic()
                status, headers, body = host.answer(self.path)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                self.wfile.flush()
                site.record(host.name, self.path, status, start, time.monotonic(),
                            self.headers.get("User-Agent", ""))

        address = f"127.0.0.{len(site.hosts) + 2}"
        self.server = ThreadingHTTPServer((address, 0), Handler)
        self.name = f"{address}:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path):
        return f"http://{self.name}{path}"

    def answer(self, path):
        if path == "/robots.txt":
            lines = ["User-agent: *", "Disallow: /private"]
            if self.crawl_delay is not None:
                lines.append(f"Crawl-delay: {self.crawl_delay}")
            return 200, {"Content-Type": "text/plain"}, ("\n".join(lines) + "\n").encode()
        if path == self.throttle_path and not self.throttled:
            self.throttled = True
            return 429, {"Retry-After": str(self.retry_after)}, b"slow down"
        if not path.startswith("/p") or not path[2:].isdigit() or int(path[2:]) >= self.pages:
            return 404, {}, b"not found"
        i = int(path[2:])
        links = [f"/p{(i + 1) % self.pages}", f"/p{(i + 2) % self.pages}", "/p0"]
        links += ["/private"] if self.private else []
        links.append(self.site.next_host(self).url("/p0"))
        body = "".join(f'<a href="{h}">{h}</a>\n' for h in links)
        return 200, {"Content-Type": "text/html"}, f"<html><body>{body}</body></html>".encode()


class Site:
    def __init__(self):
        self.hosts = []
        self.log = []
        self._lock = threading.Lock()

    def add_host(self, pages, **kwargs):
        host = Host(self, pages, **kwargs)
        self.hosts.append(host)
        return host

    def next_host(self, host):
        return self.hosts[(self.hosts.index(host) + 1) % len(self.hosts)]

    def record(self, host, path, status, start, end, agent):
        with self._lock:
            self.log.append((host, path, status, start, end, agent))

    def requests(self):
        with self._lock:
            return list(self.log)

    def page_counts(self):
        counts = {}
        for host, path, status, *_ in self.requests():
            if path != "/robots.txt" and status == 200:
                counts[(host, path)] = counts.get((host, path), 0) + 1
        return counts

    def all_pages(self):
        return {(h.name, f"/p{i}") for h in self.hosts for i in range(h.pages)}

    def politeness_violations(self, delay):
        """Requests to a host that started sooner after the end of the host's
        previous answer than its delay (Crawl-delay, Retry-After), or while
        another request to it was in progress."""
        by_host = {}
        for entry in self.requests():
            by_host.setdefault(entry[0], []).append(entry)
        host_of = {h.name: h for h in self.hosts}
        violations = []
        for name, entries in by_host.items():
            entries.sort(key=lambda e: e[3])
            host = host_of[name]
            for prev, cur in zip(entries, entries[1:]):
                need = max(delay, host.crawl_delay or 0)
                if prev[2] == 429:
                    need = max(need, host.retry_after)
                if cur[3] - prev[4] < need - 0.01:
                    violations.append((name, prev[1], cur[1], round(cur[3] - prev[4], 3), need))
        return violations

    def close(self):
        for h in self.hosts:
            h.server.shutdown()
            h.server.server_close()
