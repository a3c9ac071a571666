#!/usr/bin/python3
"""A stand-in crawler that proves the freshness harness without Sieve (not a Sieve figure).

  standin_client.py DIR POLICY RATE DURATION DELAY

Reads DIR/meta.json and DIR/seeds.txt (freshness_site.py), fetches each host's robots.txt and
"/", then the pages "/" lists, at most RATE requests per second overall, one connection and at
most one request in flight per host, DELAY seconds between the end of one answer and the next
request to that host, sending If-None-Match with the last ETag seen, for DURATION seconds.
POLICY decides when a page is due again after a fetch, earliest due first:
  uniform  immediately: a fixed-order round robin, every page every N / RATE seconds
  optimal  every 1 / f_i seconds, f_i the optimal allocation computed from the true change rates
           (freshness_math.optimal_allocation; an oracle), never again when f_i = 0
Measured from the site's log after the first pass, uniform should match the analytic uniform
freshness and optimal the analytic optimal.
"""
import heapq
import http.client
import json
import math
import os
import re
import sys
import time
import urllib.parse

from freshness_math import optimal_allocation
from freshness_model import SiteModel

PAGE = re.compile(r'href="(/p/(\d+)\.html)"')


class Hosts:
    """One keep-alive connection per host, and when each host may be asked again."""

    def __init__(self, delay):
        self.delay = delay
        self.connections = {}
        self.ready_at = {}

    def get(self, netloc, path, etag):
        conn = self.connections.get(netloc)
        if conn is None:
            conn = self.connections[netloc] = http.client.HTTPConnection(netloc, timeout=10)
        headers = {"User-Agent": "FreshnessStandIn/1"}
        if etag:
            headers["If-None-Match"] = etag
        try:
            conn.request("GET", path, headers=headers)
            response = conn.getresponse()
            body = response.read()
            status, tag = response.status, response.getheader("ETag")
        except (OSError, http.client.HTTPException):
            conn.close()
            self.connections.pop(netloc, None)
            status, body, tag = 0, b"", None
        self.ready_at[netloc] = time.monotonic() + self.delay
        return status, body, tag


def main(argv):
    if len(argv) != 6:
        sys.exit(__doc__)
    out, policy = argv[1], argv[2]
    rate, duration, delay = float(argv[3]), float(argv[4]), float(argv[5])
    if policy not in ("uniform", "optimal"):
        sys.exit("POLICY: uniform or optimal")
    meta = json.load(open(os.path.join(out, "meta.json")))
    seeds = [line.strip() for line in open(os.path.join(out, "seeds.txt")) if line.strip()]
    hosts = Hosts(delay)
    spacing = 1.0 / rate
    deadline = time.monotonic() + duration
    next_start = time.monotonic()

    def paced_get(netloc, path, etag=None):
        nonlocal next_start
        now = time.monotonic()
        wait = max(next_start, hosts.ready_at.get(netloc, now)) - now
        if wait > 0:
            time.sleep(wait)
        # Keep the average at RATE: a late request does not push the later ones back.
        next_start = max(time.monotonic() - spacing, next_start) + spacing
        return hosts.get(netloc, path, etag)

    pages = {}
    for seed in seeds:
        netloc = urllib.parse.urlsplit(seed).netloc
        paced_get(netloc, "/robots.txt")
        _, body, _ = paced_get(netloc, "/")
        for path, number in PAGE.findall(body.decode()):
            pages[int(number)] = (netloc, path)
    if policy == "optimal":
        rates = SiteModel.from_meta(meta).rates
        intervals = [1.0 / f if f > 0 else math.inf for f in optimal_allocation(rates, rate)]
    else:
        intervals = [0.0] * meta["pages"]
    due = [(0.0, i) for i in sorted(pages)]
    heapq.heapify(due)
    etags = {}
    while due and time.monotonic() < deadline:
        now = time.monotonic()
        # Earliest due page whose host may be asked now (or soonest).
        held, pick = [], None
        while due:
            item = heapq.heappop(due)
            if hosts.ready_at.get(pages[item[1]][0], 0) <= max(now, next_start):
                pick = item
                break
            held.append(item)
        if pick is None:
            pick = min(held)
            held.remove(pick)
        for item in held:
            heapq.heappush(due, item)
        if pick[0] > now:
            time.sleep(min(pick[0] - now, max(0.0, deadline - now)))
            if time.monotonic() >= deadline:
                break
        i = pick[1]
        netloc, path = pages[i]
        _, _, tag = paced_get(netloc, path, etags.get(i))
        if tag:
            etags[i] = tag
        if intervals[i] < math.inf:
            heapq.heappush(due, (time.monotonic() + intervals[i], i))


if __name__ == "__main__":
    main(sys.argv)
