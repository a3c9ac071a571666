#!/usr/bin/env python3
"""bench/crawler/broad_web/cpu_breakdown.py: where a crawl's CPU goes, in µs per page, by part.

Usage: cpu_breakdown.py PAGES RUN_DIR [RUN_DIR ...]

Each RUN_DIR is one run of broad_web_bench.sh with PROFILE=1 PERF_CALL_GRAPH=dwarf (it holds
perf.data and time.txt). Debian's libssl, libcrypto and libcurl have no symbols for their static
functions, so a part is told by the exported functions on the sample's stack (DWARF call graphs
keep them): SSL_write and SSL_read are the records of requests and responses, SSL_CTX_new_ex the
context libcurl 7.88 builds for every connection, the other samples under libssl in the fetch loop
the handshake (SSL_connect's state machine, reached by tail calls). Samples are scaled to the run's
CPU seconds from GNU time (user + system), so the parts add up to its CPU per page. The columns
of two runs side by side (e.g. http and https) show what one costs over the other.
"""
import collections
import os
import re
import subprocess
import sys


def part_of(names, dsos):
    """The part a sample belongs to, from its stack (function names and libraries, outermost
    first)."""
    if any("WorkerPool" in n for n in names):
        return "parse workers"
    if "sieve::Fetcher::~Fetcher" in names:
        return "fetch: closing the kept connections at exit"
    if not any(n.startswith("sieve::Crawler::Impl::Run") for n in names):
        return "other threads, start and exit"
    if "sieve::Fetcher::Poll" not in names:
        return "crawl loop outside the fetcher"
    if "SSL_write" in names:
        return "fetch: SSL_write (request records)"
    if "SSL_read" in names:
        return "fetch: SSL_read (response records)"
    if "SSL_CTX_new_ex" in names:
        return "fetch: SSL_CTX_new (libcurl, per connection)"
    ssl = any(d in ("libssl.so.3", "libcrypto.so.3") for d in dsos)
    if ssl:
        return "fetch: TLS handshake (other libssl/libcrypto)"
    if "curl_multi_remove_handle" in names:
        return "fetch: curl_multi_remove_handle"
    if any(n in ("__libc_send", "__libc_recv", "__GI___poll", "__libc_sendto", "__libc_recvfrom")
           for n in names):
        return "fetch: plain socket calls and poll"
    return "fetch: libcurl and the Fetcher, the rest"


def samples(perf_data):
    out = subprocess.run(["perf", "script", "-i", perf_data, "-F", "tid,ip,sym,dso"],
                         capture_output=True, text=True, check=True).stdout
    names, dsos = [], []
    for line in out.splitlines():
        if not line.strip():
            if names or dsos:
                yield names[::-1], dsos[::-1]
            names, dsos = [], []
            continue
        m = re.match(r"\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$", line)
        if m:
            names.append(re.sub(r"\+0x[0-9a-f]+$", "", m.group(1)))
            dsos.append(os.path.basename(m.group(2)))
    if names or dsos:
        yield names[::-1], dsos[::-1]


def cpu_seconds(time_txt):
    fields = dict(line.strip().split(": ", 1) for line in open(time_txt) if ": " in line)
    return float(fields["User time (seconds)"]) + float(fields["System time (seconds)"])


def main():
    pages = int(sys.argv[1])
    runs = sys.argv[2:]
    columns = []
    for run in runs:
        counts = collections.Counter(part_of(n, d) for n, d in samples(os.path.join(run, "perf.data")))
        total = sum(counts.values())
        scale = 1e6 * cpu_seconds(os.path.join(run, "time.txt")) / pages / total
        columns.append({k: v * scale for k, v in counts.items()})
    parts = sorted({p for c in columns for p in c}, key=lambda p: -columns[-1].get(p, 0))
    print("| part | " + " | ".join(os.path.basename(r.rstrip("/")) for r in runs) +
          (" | difference |" if len(runs) == 2 else " |"))
    print("|---" * (len(runs) + 1 + (len(runs) == 2)) + "|")
    for p in parts + ["all"]:
        vals = [sum(c.values()) if p == "all" else c.get(p, 0) for c in columns]
        row = "| %s | %s" % (p, " | ".join("%.1f" % v for v in vals))
        if len(runs) == 2:
            row += " | %+.1f" % (vals[1] - vals[0])
        print(row + " |")
    print("(µs of CPU per page, %d pages per run)" % pages)


if __name__ == "__main__":
    main()
