#!/usr/bin/python3
"""The broad-web benchmark's helpers (bench/crawler/broad_web/broad_web_bench.sh runs them).

  broad_web.py site DIR HOSTS PAGES CRAWL_DELAY_EVERY   the web: DIR/site/<host>/, DIR/hosts
  broad_web.py run NGINX_LOG DNS_LOG TIME_V HOSTS DELAY CRAWL_DELAY_EVERY CORES [LOG]
                                                        one run -> JSON (LOG: the crawler's output;
                                                        Scrapy's has its thread's schedstat)
  broad_web.py table RESULTS.jsonl                      the medians table and the two bounds

Host i is h%05d.web.test on 127.1.(i / 250).(i % 250 + 1). "/" links the host's pages
/p/1.html ... /p/(PAGES-1).html; every page links "/" and the next page, and two other hosts'
pages (scheme-relative, so one tree serves http and https). robots.txt allows everything but
/private/; every CRAWL_DELAY_EVERY-th host also asks for Crawl-delay: 1 (2x the default delay).
"""
import collections
import json
import os
import statistics
import sys

FILLER = ("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
          "incididunt ut labore et dolore magna aliqua. ") * 6


def host(i):
    return "h%05d.web.test" % i


def address(i):
    return "127.1.%d.%d" % (i // 250, i % 250 + 1)


def crawl_delay(i, every):
    return 1.0 if every > 0 and i % every == 0 else None


def make_site(out, hosts, pages, every):
    with open(os.path.join(out, "hosts"), "w") as f:
        for i in range(hosts):
            f.write("%s %s\n" % (address(i), host(i)))
    for i in range(hosts):
        root = os.path.join(out, "site", host(i))
        os.makedirs(os.path.join(root, "p"), exist_ok=True)
        with open(os.path.join(root, "robots.txt"), "w") as f:
            f.write("User-agent: *\nDisallow: /private/\n")
            if crawl_delay(i, every):
                f.write("Crawl-delay: %g\n" % crawl_delay(i, every))
        for p in range(pages):
            links = ['<a href="/p/%d.html">page %d</a>' % (q, q) for q in range(1, pages)] \
                if p == 0 else ['<a href="/">home</a>',
                                '<a href="/p/%d.html">next</a>' % (p % (pages - 1) + 1)]
            other1 = (i + 1 + p) % hosts
            other2 = (i * 31 + 7 * p + 3) % hosts
            links.append('<a href="//%s/">neighbour</a>' % host(other1))
            links.append('<a href="//%s/p/%d.html">far</a>' % (host(other2), max(p, 1)))
            body = ("<!DOCTYPE html><html><head><title>%s page %d</title></head><body>"
                    "<h1>%s page %d</h1><p>%s</p><ul><li>%s</li></ul></body></html>\n" %
                    (host(i), p, host(i), p, FILLER, "</li><li>".join(links)))
            name = "index.html" if p == 0 else "p/%d.html" % p
            with open(os.path.join(root, name), "w") as f:
                f.write(body)


def parse_time_v(path):
    fields = {}
    for line in open(path):
        key, _, value = line.strip().rpartition(": ")
        fields[key] = value
    wall = fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"].split(":")
    seconds = 0.0
    for part in wall:
        seconds = seconds * 60 + float(part)
    user = float(fields["User time (seconds)"])
    system = float(fields["System time (seconds)"])
    return {"wall": seconds, "user": user, "system": system, "cpu": user + system,
            "rss_kb": int(fields["Maximum resident set size (kbytes)"]),
            "minor_faults": int(fields["Minor (reclaiming a frame) page faults"])}


def parse_schedstat(log):
    """Scrapy's thread's "schedstat run_ns=R wait_ns=W" line (broad_web_spider.py), or None."""
    for line in open(log, errors="replace"):
        if "schedstat run_ns=" in line:
            fields = dict(f.split("=") for f in line.split() if f.startswith(("run_ns=", "wait_ns=")))
            return int(fields["run_ns"]) / 1e9, int(fields["wait_ns"]) / 1e9
    return None


def analyse_run(nginx_log, dns_log, time_v, hosts, delay, every, cores, log=None):
    """One crawl, from the server's log: nginx's line is
    $msec $request_time $host $request_uri $status $connection $connection_requests
    $ssl_session_reused $ssl_protocol (msec is the end of the request; start = msec - request_time)."""
    by_host = collections.defaultdict(list)
    seen = collections.Counter()
    first_of_connection = {}
    conn_host = {}
    protocol_of_connection = {}
    pages = requests = 0
    for line in open(nginx_log):
        f = line.split()
        if len(f) < 8:
            continue
        end = float(f[0])
        start = end - float(f[1])
        name, uri, status, conn, nreq, reused = f[2], f[3], int(f[4]), f[5], int(f[6]), f[7]
        requests += 1
        seen[(name, uri)] += 1
        if status == 200 and uri != "/robots.txt":
            pages += 1
        by_host[name].append((start, end, uri))
        conn_host[conn] = name
        if nreq == 1 or conn not in first_of_connection:
            first_of_connection[conn] = reused
            if len(f) > 8 and f[8] != "-":
                protocol_of_connection[conn] = f[8]
    violations = 0
    closest = None
    for name, reqs in by_host.items():
        i = int(name[1:6])
        d = max(delay, crawl_delay(i, every) or 0)
        reqs.sort()
        for a, b in zip(reqs, reqs[1:]):
            gap = b[0] - a[1]
            # nginx's times have 1 ms resolution: 2 ms of slack.
            if gap < d - 0.002:
                violations += 1
            closest = gap - d if closest is None else min(closest, gap - d)
    # The politeness floor: the crawl cannot end before its slowest host's requests, spaced by
    # that host's delay, are done (hosts / delay requests/s when every host has the same delay).
    floor = max(((len(r) - 1) * max(delay, crawl_delay(int(n[1:6]), every) or 0)
                 for n, r in by_host.items()), default=0)
    dns = sum(1 for line in open(dns_log) if ": query[" in line)
    t = parse_time_v(time_v)
    wall, cpu = t["wall"], t["cpu"]
    per_page = 1000 / max(pages, 1)
    tls = collections.Counter(first_of_connection.values())
    # Scrapy's one thread: time it waited for a CPU (the machine's load) and time it had nothing
    # to do (wall - running - waiting); pages/s without the wait is what a free machine allows.
    sched = parse_schedstat(log) if log else None
    wait_s = sched[1] if sched else None
    idle_s = wall - sched[0] - sched[1] if sched else None
    return {
        "runqueue_wait_s": wait_s, "idle_s": idle_s,
        "pages_per_s_without_wait": pages / (wall - wait_s) if sched else None,
        "wall_s": wall, "cpu_s": cpu, "rss_mb": t["rss_kb"] / 1024, "pages": pages,
        "requests": requests, "hosts_seen": len(by_host),
        "pages_per_s": pages / wall, "cpu_ms_per_page": cpu * per_page,
        "user_ms_per_page": t["user"] * per_page, "sys_ms_per_page": t["system"] * per_page,
        "minor_faults_per_page": t["minor_faults"] * per_page / 1000,
        "connections": len(conn_host), "connections_per_host": len(conn_host) / max(len(by_host), 1),
        "tls_full": tls.get(".", 0), "tls_resumed": tls.get("r", 0),
        "tls_protocols": dict(collections.Counter(protocol_of_connection.values())),
        "dns_queries": dns, "politeness_violations": violations,
        "closest_gap_minus_delay_ms": 1000 * closest if closest is not None else None,
        "duplicate_requests": sum(n - 1 for n in seen.values()),
        "politeness_bound_pages_per_s": pages / floor if floor else None,
        "cpu_bound_pages_per_s": cores * pages / cpu if cpu else None,
    }


def table(results):
    runs = collections.defaultdict(list)
    for line in open(results):
        r = json.loads(line)
        runs[(r["hosts"], r["scheme"], r["tool"])].append(r)
    cols = [("wall s", "wall_s", "%.1f"), ("pages", "pages", "%d"),
            ("pages/s", "pages_per_s", "%.1f"), ("CPU ms/page", "cpu_ms_per_page", "%.3f"),
            ("runqueue wait s", "runqueue_wait_s", "%.1f"), ("idle s", "idle_s", "%.1f"),
            ("pages/s without wait", "pages_per_s_without_wait", "%.1f"),
            ("user ms/page", "user_ms_per_page", "%.3f"), ("sys ms/page", "sys_ms_per_page", "%.3f"),
            ("minor faults/page", "minor_faults_per_page", "%.2f"),
            ("conn/host", "connections_per_host", "%.2f"), ("TLS full", "tls_full", "%d"),
            ("TLS resumed", "tls_resumed", "%d"), ("DNS queries", "dns_queries", "%d"),
            ("politeness violations", "politeness_violations", "%d"),
            ("duplicate requests", "duplicate_requests", "%d"), ("peak RSS MB", "rss_mb", "%.0f"),
            ("politeness bound p/s", "politeness_bound_pages_per_s", "%.0f"),
            ("CPU bound p/s", "cpu_bound_pages_per_s", "%.0f")]
    print("| hosts | scheme | tool | runs | " + " | ".join(c[0] for c in cols) +
          " | pages/s / lower bound |")
    print("|" + "---|" * (len(cols) + 5))
    med = {}
    for key in sorted(runs):
        rs = runs[key]
        m = {}
        for _, field, _ in cols:
            values = [r[field] for r in rs if r.get(field) is not None]
            m[field] = statistics.median(values) if values else None
        bound = min(b for b in (m["politeness_bound_pages_per_s"], m["cpu_bound_pages_per_s"]) if b)
        m["fraction"] = m["pages_per_s"] / bound
        med[key] = m
        cells = [fmt % m[field] if m[field] is not None else "-" for _, field, fmt in cols]
        print("| %d | %s | %s | %d | %s | %.2f |" % (key[0], key[1], key[2], len(rs),
                                                    " | ".join(cells), m["fraction"]))
    print()
    for (hosts, scheme, tool), m in sorted(med.items()):
        if tool != "sieve" and scheme == "https" and (hosts, "http", tool) in med:
            print("%s, %d hosts: CPU per page https / http: %.2fx" % (
                tool, hosts, m["cpu_ms_per_page"] / med[(hosts, "http", tool)]["cpu_ms_per_page"]))
        if tool != "sieve":
            continue
        print("sieve, %d hosts, %s: bounds: politeness %.0f pages/s, CPU %.0f pages/s; "
              "pages/s %.1f = %.2fx the lower" % (
                  hosts, scheme, m["politeness_bound_pages_per_s"] or 0,
                  m["cpu_bound_pages_per_s"] or 0, m["pages_per_s"], m["fraction"]))
        before = med.get((hosts, scheme, "sieve-before"))
        if before:
            print("  sieve / sieve-before pages/s: %.2fx; CPU per page %.2fx" % (
                m["pages_per_s"] / before["pages_per_s"],
                m["cpu_ms_per_page"] / before["cpu_ms_per_page"]))
        other = med.get((hosts, scheme, "scrapy"))
        if other:
            print("  sieve / scrapy pages/s: %.2fx" % (m["pages_per_s"] / other["pages_per_s"]))
        if scheme == "https" and (hosts, "http", "sieve") in med:
            print("  sieve CPU per page https / http: %.2fx" % (
                m["cpu_ms_per_page"] / med[(hosts, "http", "sieve")]["cpu_ms_per_page"]))
    for (hosts, scheme, tool), m in sorted(med.items()):
        base = med.get((hosts, scheme, "scrapy"))
        if tool != "scrapy-sieve" or not base:
            continue
        # Scrapy with sieve.scrapy.Scheduler against Scrapy's default scheduler, same spider.
        print("scrapy-sieve / scrapy, %d hosts, %s (medians of %d and %d runs): pages/s %.1f / "
              "%.1f = %.2fx; CPU ms/page %.3f / %.3f = %.2fx; politeness violations %d / %d; "
              "duplicate requests %d / %d; peak RSS MB %.0f / %.0f" % (
                  hosts, scheme, len(runs[(hosts, scheme, tool)]),
                  len(runs[(hosts, scheme, "scrapy")]), m["pages_per_s"], base["pages_per_s"],
                  m["pages_per_s"] / base["pages_per_s"], m["cpu_ms_per_page"],
                  base["cpu_ms_per_page"], m["cpu_ms_per_page"] / base["cpu_ms_per_page"],
                  m["politeness_violations"], base["politeness_violations"],
                  m["duplicate_requests"], base["duplicate_requests"], m["rss_mb"], base["rss_mb"]))
        if m["pages_per_s_without_wait"] and base["pages_per_s_without_wait"]:
            print("  without the time Scrapy's thread waited for a CPU: pages/s %.1f / %.1f = %.2fx;"
                  " idle s %.1f / %.1f" % (
                      m["pages_per_s_without_wait"], base["pages_per_s_without_wait"],
                      m["pages_per_s_without_wait"] / base["pages_per_s_without_wait"],
                      m["idle_s"], base["idle_s"]))
    sizes = sorted({h for (h, s, t) in med if t == "sieve"})
    for scheme in ("http", "https"):
        have = [h for h in sizes if (h, scheme, "sieve") in med]
        if len(have) >= 2:
            lo, hi = have[0], have[-1]
            a, b = med[(lo, scheme, "sieve")]["rss_mb"], med[(hi, scheme, "sieve")]["rss_mb"]
            print("sieve memory per active host, %s: (%.0f MB - %.0f MB) / (%d - %d hosts) = "
                  "%.1f KB" % (scheme, b, a, hi, lo, 1024 * (b - a) / (hi - lo)))


def main(argv):
    if argv[1] == "site":
        make_site(argv[2], int(argv[3]), int(argv[4]), int(argv[5]))
    elif argv[1] == "run":
        print(json.dumps(analyse_run(argv[2], argv[3], argv[4], int(argv[5]), float(argv[6]),
                                     int(argv[7]), int(argv[8]), argv[9] if len(argv) > 9 else None)))
    elif argv[1] == "table":
        table(argv[2])
    else:
        sys.exit("usage: see the docstring of " + argv[0])


if __name__ == "__main__":
    main(sys.argv)
