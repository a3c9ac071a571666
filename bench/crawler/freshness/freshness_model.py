"""The freshness benchmark's site, as data: which pages exist, where, how fast each changes, and
when it changed (bench/crawler/freshness/freshness_bench.sh; docs/benchmarks.md, "Freshness").

Page i (0 <= i < pages) lives on host i % hosts, at http://127.0.0.(1 + i % hosts):PORT/p/i.html.
Its mean time between changes T_i is drawn log-uniformly from [min_interval, max_interval] with
random.Random(seed); it changes as a Poisson process of rate lambda_i = 1 / T_i, its change times
(seconds after the site's start t0) drawn once, up to `horizon`, from random.Random(seed * 1000003
+ i + 1). Its version at time t is the number of changes at or before t; after the horizon it
stays put. The server (freshness_site.py) and the measurement (freshness_measure.py) build the
same model from the same parameters, so the rates never leave the benchmark.
"""
import array
import bisect
import math
import random


class SiteModel:
    def __init__(self, pages, hosts, min_interval, max_interval, seed, horizon):
        if pages < 1 or hosts < 1 or hosts > 250:
            raise ValueError("need pages >= 1 and 1 <= hosts <= 250")
        if not 0 < min_interval <= max_interval:
            raise ValueError("need 0 < min_interval <= max_interval")
        self.pages = pages
        self.hosts = hosts
        self.min_interval = min_interval
        self.max_interval = max_interval
        self.seed = seed
        self.horizon = horizon
        draw = random.Random(seed)
        lo, hi = math.log(min_interval), math.log(max_interval)
        self.rates = [1.0 / math.exp(draw.uniform(lo, hi)) for _ in range(pages)]
        self.changes = [self._change_times(i) for i in range(pages)]

    def _change_times(self, i):
        draw = random.Random(self.seed * 1000003 + i + 1)
        times = array.array("d")
        t = draw.expovariate(self.rates[i])
        while t <= self.horizon:
            times.append(t)
            t += draw.expovariate(self.rates[i])
        return times

    def version(self, i, t):
        """Changes of page i at or before t (seconds after t0)."""
        return bisect.bisect_right(self.changes[i], t)

    def last_change(self, i, version):
        """When page i became `version` (seconds after t0; 0 for version 0)."""
        return self.changes[i][version - 1] if version > 0 else 0.0

    def next_change(self, i, version):
        """When page i stops being `version` (seconds after t0; inf past the horizon)."""
        return self.changes[i][version] if version < len(self.changes[i]) else math.inf

    def host_of(self, i):
        return i % self.hosts

    @staticmethod
    def address(host):
        return "127.0.0.%d" % (host + 1)

    @staticmethod
    def path(i):
        return "/p/%d.html" % i

    def page_of(self, host, path):
        """The page index served at (host, path), or None."""
        if not (path.startswith("/p/") and path.endswith(".html")):
            return None
        digits = path[3:-5]
        if not digits.isdigit() or (len(digits) > 1 and digits[0] == "0"):
            return None
        i = int(digits)
        return i if i < self.pages and self.host_of(i) == host else None

    def links(self, i):
        """Three other pages page i links to (often on other hosts), fixed by i alone."""
        return [(i + 1) % self.pages, (7 * i + 3) % self.pages, (31 * i + 11) % self.pages]

    def pages_on(self, host):
        return range(host, self.pages, self.hosts)

    @classmethod
    def from_meta(cls, meta):
        return cls(meta["pages"], meta["hosts"], meta["min_interval"], meta["max_interval"],
                   meta["seed"], meta["horizon"])
