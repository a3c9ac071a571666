#!/usr/bin/python3
"""The duplicate filter's memory at N seen requests: Scrapy's RFPDupeFilter against the Bloom
filter sieve.scrapy.Scheduler dedups with, and Sieve's lossless mode (docs/benchmarks.md, "Scrapy's
scheduler against sieve.scrapy.Scheduler").

  PYTHONPATH=build/release/python /usr/bin/python3 bench/python/dupefilter_memory.py \\
      [--count N] [--fp-rate R ...]

(build/release/python: the package of `cmake --build --preset release --target _sieve`.)

Each filter is filled in a process of its own, so its RSS growth is its own (VmRSS from
/proc/self/status before the filter is made and after it holds N requests):
  rfp       scrapy.dupefilters.RFPDupeFilter (Debian's Scrapy 2.8), built from a crawler with
            Scrapy's default settings: its `fingerprints` set gets N request fingerprints as it
            stores them (request_seen adds fingerprint(request).hex(), 40 characters). They are
            added to the set directly: building N Requests would dominate the run. The process first
            checks, on one real Request through request_seen, that the set holds that type.
            Bytes: sys.getsizeof of the set and of each string (what tracemalloc counts).
  bloom     sieve.Filter of the kind, capacity and fp rate sieve.scrapy.Scheduler gives its
            Frontier (read from a Scheduler made with Scrapy's default settings: its
            SIEVE_EXPECTED_REQUESTS default is overridden by N), fed the same fingerprints as 20
            raw bytes (the scheduler's key=). Bytes: Filter.memory_bytes. Also counted: the
            requests the filter called seen though they were new (false positives: requests a
            crawl would lose).
  lossless  sieve.Sieve(lossless=True) of the same size: the Bloom filter plus the exact store of
            64-bit fingerprints (RAM, then RocksDB in a scratch directory) that confirms each
            "maybe seen"; the requests are pushed and popped in batches, so the queue stays
            small and the figures are the dedup state's (the fingerprints are pushed as hex:
            the queue hands entries back as text; the store keeps 64 bits of each). Reported: RSS growth, the filter's bytes,
            the store's bytes on disk, false positives caught.
The fingerprints are SHA-1 digests of distinct integers: distinct, uniformly spread, 20 bytes like
Scrapy's. --fp-rate (repeatable) measures bloom and lossless at other rates too.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

BATCH = 10_000  # small, so the batches' garbage weighs little in the RSS figures


def rss_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def fingerprints(count):
    """Batches of distinct 20-byte fingerprints."""
    for start in range(0, count, BATCH):
        yield [hashlib.sha1(b"%d" % i).digest() for i in range(start, min(count, start + BATCH))]


def scheduler_options(count):
    """The dedup options sieve.scrapy.Scheduler gives its Frontier under Scrapy's defaults."""
    from scrapy.utils.test import get_crawler
    import sieve.scrapy
    crawler = get_crawler(settings_dict={"SIEVE_EXPECTED_REQUESTS": count})
    options = sieve.scrapy.Scheduler(crawler).options
    return {"kind": options.get("filter_kind", "classic"), "capacity": options["expected_urls"],
            "fp_rate": options["fp_rate"], "lossless": options["lossless"]}


def measure_rfp(count):
    from scrapy import Request
    from scrapy.dupefilters import RFPDupeFilter
    from scrapy.utils.test import get_crawler
    df = RFPDupeFilter.from_crawler(get_crawler())
    df.request_seen(Request("http://h.example/"))
    stored = next(iter(df.fingerprints))
    probe = hashlib.sha1(b"0").digest().hex()
    if type(stored) is not type(probe) or len(stored) != len(probe):
        sys.exit("RFPDupeFilter stores %r, not a %d-character %s" % (stored, len(probe),
                                                                     type(probe).__name__))
    df.fingerprints.clear()
    before = rss_bytes()
    t = time.monotonic()
    for batch in fingerprints(count):
        df.fingerprints.update(fp.hex() for fp in batch)
    seconds = time.monotonic() - t
    grown = rss_bytes() - before
    size = sys.getsizeof(df.fingerprints) + sum(sys.getsizeof(s) for s in df.fingerprints)
    assert len(df.fingerprints) == count
    return {"bytes": size, "rss_growth": grown, "fill_s": seconds}


def measure_bloom(count, fp_rate):
    import sieve
    opts = scheduler_options(count)
    if fp_rate is not None:
        opts["fp_rate"] = fp_rate
    before = rss_bytes()
    t = time.monotonic()
    f = sieve.Filter(opts["kind"], capacity=opts["capacity"], fp_rate=opts["fp_rate"])
    lost = 0
    for batch in fingerprints(count):
        lost += sum(1 for new in f.add_many(batch) if not new)
    seconds = time.monotonic() - t
    return dict(opts, bytes=f.memory_bytes, rss_growth=rss_bytes() - before,
                false_positives=lost, estimated_fp_rate=f.estimated_fp_rate, fill_s=seconds)


def measure_lossless(count, fp_rate):
    import sieve
    opts = scheduler_options(count)
    if fp_rate is not None:
        opts["fp_rate"] = fp_rate
    with tempfile.TemporaryDirectory(prefix="sieve-lossless-") as work:
        before = rss_bytes()
        t = time.monotonic()
        s = sieve.Sieve(expected_urls=opts["capacity"], fp_rate=opts["fp_rate"],
                        filter_kind=opts["kind"], lossless=True, work_dir=work)
        lost = 0
        for batch in fingerprints(count):
            # As hex: the Sieve's queue hands its entries back as text.
            lost += sum(1 for new in s.push_many([fp.hex() for fp in batch]) if not new)
            while s.pop() is not None:
                pass
        seconds = time.monotonic() - t
        st = s.stats()
        grown = rss_bytes() - before
        s.close()
    return dict(opts, bytes=st["filter_bytes"], rss_growth=grown,
                store_bytes_on_disk=st["store_bytes_on_disk"],
                false_positives_caught=st["false_positives_caught"], false_positives=lost,
                fill_s=seconds)


def child(what, count, fp_rate):
    """Runs one measurement in a fresh interpreter; returns its JSON."""
    cmd = [sys.executable, os.path.abspath(__file__), "--child", what, "--count", str(count)]
    if fp_rate is not None:
        cmd += ["--fp-rate", repr(fp_rate)]
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True).stdout
    return json.loads(out)


def mb(n):
    return "%.1f MB" % (n / 1e6)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--count", type=int, default=10_000_000, help="seen requests (default 10^7)")
    p.add_argument("--fp-rate", type=float, action="append",
                   help="also measure the Sieve filters at this rate (repeatable); the "
                        "scheduler's default is always measured")
    p.add_argument("--child", choices=("rfp", "bloom", "lossless"), help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.child:
        rate = args.fp_rate[0] if args.fp_rate else None
        # The estimate passes the capacity by a hair near N: the warning says nothing here.
        warnings.filterwarnings("ignore", message="sieve: the filter's estimated count")
        run = {"rfp": lambda: measure_rfp(args.count),
               "bloom": lambda: measure_bloom(args.count, rate),
               "lossless": lambda: measure_lossless(args.count, rate)}[args.child]
        print(json.dumps(run()))
        return

    with open("/proc/loadavg") as f:
        load = " ".join(f.read().split()[:3])
    print("%d seen requests; load average %s" % (args.count, load))
    rfp = child("rfp", args.count, None)
    print("RFPDupeFilter: %s (%.1f B per request), RSS +%s, filled in %.0f s" % (
        mb(rfp["bytes"]), rfp["bytes"] / args.count, mb(rfp["rss_growth"]), rfp["fill_s"]))
    for rate in [None] + (args.fp_rate or []):
        bloom = child("bloom", args.count, rate)
        lossless = child("lossless", args.count, rate)
        print("sieve %s filter, capacity %d, fp rate %g%s: %s (%.2f B per request), RSS +%s, "
              "%d requests lost to false positives; RFPDupeFilter's bytes / the filter's: %.1fx "
              "(RSS: %.1fx)" % (
                  bloom["kind"], bloom["capacity"], bloom["fp_rate"],
                  "" if rate is not None else " (the scheduler's default%s)" % (
                      ", in lossless mode" if bloom["lossless"] else ""), mb(bloom["bytes"]),
                  bloom["bytes"] / args.count, mb(bloom["rss_growth"]), bloom["false_positives"],
                  rfp["bytes"] / bloom["bytes"], rfp["rss_growth"] / max(bloom["rss_growth"], 1)))
        print("  lossless mode: RSS +%s (filter %s), fingerprint store %s on disk, %d false "
              "positives caught, %d requests lost; RFPDupeFilter's RSS / lossless RSS: %.1fx; "
              "filled in %.0f s" % (
                  mb(lossless["rss_growth"]), mb(lossless["bytes"]),
                  mb(lossless["store_bytes_on_disk"]), lossless["false_positives_caught"],
                  lossless["false_positives"],
                  rfp["rss_growth"] / max(lossless["rss_growth"], 1), lossless["fill_s"]))


if __name__ == "__main__":
    main()
