#!/usr/bin/python3
"""The freshness benchmark's loopback site: pages that change as Poisson processes
(freshness_model.py), answered over HTTP/1.1 with validators, every request logged.

  freshness_site.py DIR PAGES HOSTS MIN_INTERVAL MAX_INTERVAL SEED HORIZON

Serves host h on 127.0.0.(h+1), one port for all hosts (free, chosen at start). When it listens it
writes DIR/meta.json (the parameters, the port and t0, the Unix time the pages' clocks start)
and DIR/seeds.txt (every host's "/"), and logs each request to DIR/requests.log, one line:

    START END HOST PATH STATUS PAGE VERSION CONDITION

START and END are Unix times when the request was read and when its answer began to be written
(the client cannot have the answer earlier); PAGE is the page index
(-1 for "/", robots.txt and 404s), VERSION the page's version served (or confirmed by a 304),
CONDITION "inm" (If-None-Match decided), "ims" (If-Modified-Since decided) or "-".

Page i's body names its version; ETag "i-VERSION"; Last-Modified the whole second at or after
its last change (never earlier than the change). A matching If-None-Match gets 304; without
If-None-Match (RFC 9110 section 13.2.2) an If-Modified-Since not older than that Last-Modified
gets 304. "/" on host h lists the host's pages; each page links "/" and three other pages
(freshness_model.links); robots.txt allows everything. Ends on SIGTERM or SIGINT.
"""
import email.utils
import http.server
import json
import math
import os
import signal
import socket
import sys
import threading
import time

from freshness_model import SiteModel

ROBOTS = b"User-agent: *\nDisallow:\n"


class Site:
    def __init__(self, model, t0, port, log):
        self.model = model
        self.t0 = t0
        self.port = port
        self.log = log
        self.lock = threading.Lock()

    def url(self, i):
        return "http://%s:%d%s" % (SiteModel.address(self.model.host_of(i)), self.port,
                                   SiteModel.path(i))

    def page_body(self, i, version):
        links = "".join('<li><a href="%s">page %d</a></li>' % (self.url(j), j)
                        for j in self.model.links(i))
        return ("<!DOCTYPE html><html><head><title>page %d</title></head><body>"
                "<h1>page %d</h1><p>version %d</p><ul><li><a href=\"/\">home</a></li>%s</ul>"
                "</body></html>\n" % (i, i, version, links)).encode()

    def index_body(self, host):
        links = "".join('<li><a href="%s">page %d</a></li>' % (SiteModel.path(i), i)
                        for i in self.model.pages_on(host))
        return ("<!DOCTYPE html><html><head><title>host %d</title></head><body><ul>%s</ul>"
                "</body></html>\n" % (host, links)).encode()

    def record(self, start, end, host, path, status, page, version, condition):
        line = "%.6f %.6f %d %s %d %d %d %s\n" % (start, end, host, path, status, page, version,
                                                  condition)
        with self.lock:
            if not self.log.closed:
                self.log.write(line)


def not_modified(headers, etag, last_modified):
    """304 or not, and which header decided (RFC 9110 section 13.2.2: If-None-Match first)."""
    inm = headers.get("If-None-Match")
    if inm is not None:
        tags = [t.strip() for t in inm.split(",")]
        return any(t == "*" or t.removeprefix("W/") == etag for t in tags), "inm"
    ims = headers.get("If-Modified-Since")
    if ims is not None:
        try:
            since = email.utils.parsedate_to_datetime(ims).timestamp()
        except (TypeError, ValueError, IndexError):
            return False, "-"
        return since >= last_modified, "ims"
    return False, "-"


def make_handler(site, host):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "FreshnessSite/1"

        def setup(self):
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def log_message(self, *args):
            pass

        def do_HEAD(self):
            self.answer(head=True)

        def do_GET(self):
            self.answer(head=False)

        def answer(self, head):
            start = time.time()
            path = self.path.split("?", 1)[0]
            page, version, condition = -1, 0, "-"
            last_modified = math.ceil(site.t0)
            if path == "/robots.txt":
                body, etag, ctype = ROBOTS, '"robots"', "text/plain"
            elif path == "/":
                body, etag, ctype = None, '"index-%d"' % host, "text/html; charset=utf-8"
            else:
                page = site.model.page_of(host, path)
                if page is None:
                    self.send(404, b"not found\n", "text/plain", None, None, head)
                    site.record(start, self.sent, host, path, 404, -1, 0, "-")
                    return
                version = site.model.version(page, start - site.t0)
                etag = '"%d-%d"' % (page, version)
                last_modified = math.ceil(site.t0 + site.model.last_change(page, version))
                ctype = "text/html; charset=utf-8"
                body = None
            unchanged, condition = not_modified(self.headers, etag, last_modified)
            if unchanged:
                self.send(304, b"", None, etag, last_modified, head)
                site.record(start, self.sent, host, path, 304, page, version, condition)
                return
            if body is None:
                body = site.index_body(host) if page < 0 else site.page_body(page, version)
            self.send(200, body, ctype, etag, last_modified, head)
            site.record(start, self.sent, host, path, 200, page, version, condition)

        def send(self, status, body, ctype, etag, last_modified, head):
            self.send_response(status)
            if ctype:
                self.send_header("Content-Type", ctype)
            if etag:
                self.send_header("ETag", etag)
            if last_modified is not None:
                self.send_header("Last-Modified",
                                 email.utils.formatdate(last_modified, usegmt=True))
            if status != 304:
                self.send_header("Content-Length", str(len(body)))
            # The answer's end as logged: just before it is written, so the client cannot
            # have it earlier (a thread descheduled after the write would log it late).
            self.sent = time.time()
            self.end_headers()
            if body and not head:
                self.wfile.write(body)

    return Handler


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def bind_all(hosts, site_for):
    """One server per host address, all on one free port (another port if one is taken)."""
    for _ in range(50):
        probe = socket.socket()
        probe.bind((SiteModel.address(0), 0))
        port = probe.getsockname()[1]
        probe.close()
        servers = []
        try:
            for h in range(hosts):
                servers.append(Server((SiteModel.address(h), port), site_for(h)))
            return port, servers
        except OSError:
            for s in servers:
                s.server_close()
    raise SystemExit("no port free on all %d loopback addresses" % hosts)


def main(argv):
    if len(argv) != 8:
        sys.exit(__doc__)
    out = argv[1]
    pages, hosts, seed = int(argv[2]), int(argv[3]), int(argv[6])
    tmin, tmax, horizon = float(argv[4]), float(argv[5]), float(argv[7])
    model = SiteModel(pages, hosts, tmin, tmax, seed, horizon)
    os.makedirs(out, exist_ok=True)
    log = open(os.path.join(out, "requests.log"), "w", buffering=1)
    site = Site(model, 0.0, 0, log)
    port, servers = bind_all(hosts, lambda h: make_handler(site, h))
    site.port = port
    site.t0 = time.time()
    for s in servers:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    with open(os.path.join(out, "seeds.txt"), "w") as f:
        for h in range(hosts):
            f.write("http://%s:%d/\n" % (SiteModel.address(h), port))
    meta = {"pages": pages, "hosts": hosts, "min_interval": tmin, "max_interval": tmax,
            "seed": seed, "horizon": horizon, "port": port, "t0": site.t0}
    with open(os.path.join(out, "meta.json.tmp"), "w") as f:
        json.dump(meta, f)
    os.rename(os.path.join(out, "meta.json.tmp"), os.path.join(out, "meta.json"))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    while not stop.wait(1):
        pass
    with site.lock:
        log.close()


if __name__ == "__main__":
    main(sys.argv)
