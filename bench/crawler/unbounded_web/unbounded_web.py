#!/usr/bin/env python3
"""bench/crawler/unbounded_web/unbounded_web.py: the parts of unbounded_web_bench.sh.

  nginx-conf WORK CASE    nginx.conf of a web without end (CASE web or trap), on stdout
  sample PID PORT SECONDS one JSON line a second for SECONDS: the crawler's CPU, RSS and open
                          files (/proc/PID) and its counters (/metrics on 127.0.0.1:PORT)
  figures DIR CASE SCHEME TOOL RUN   the run's figures (see the header of the .sh), one JSON line
  table RESULTS           the figures of results.jsonl as a table (medians over the runs)
"""
import json
import os
import statistics
import sys
import time
import urllib.request

FILLER = " ".join(["Sieve unbounded web benchmark filler text."] * 30)


def nginx_conf(work, case):
    """Every request to any host gets a page built from $request_id (32 random hex digits):
    links to 5 new hosts (each on a new registrable domain dXXXXXX.test, or in trap.test for a
    trap host), 5 new pages of its own host and the 3 hubs; in the trap case a web page also
    names one new trap host."""
    seg = lambda i: f'map $request_id $s{i} {{ "~^.{{{6 * i}}}(?<v>.{{6}})" $v; }}'
    maps = "\n  ".join(seg(i) for i in range(5))
    # Where a page's new hosts live: new domains on the web, trap.test inside the trap.
    new_domain = lambda i: f'map $host $dom{i} {{ "~\\.trap\\.test$" "trap"; default "d$s{i}"; }}'
    doms = "\n  ".join(new_domain(i) for i in range(5))
    hosts = "".join(f'<a href=\\"$scheme://h$s{i}.$dom{i}.test/\\">host {i}</a>\\n'
                    for i in range(5))
    pages = "".join(f'<a href=\\"/p$s{i}$s{(i + 1) % 5}\\">page {i}</a>\\n' for i in range(5))
    hubs = "".join(f'<a href=\\"$scheme://hub{i}.test/\\">hub {i}</a>\\n' for i in range(3))
    trap = ('<a href=\\"$scheme://t$s4$s0.trap.test/\\">trap</a>\\n' if case == "trap" else "")
    body = (f"<!doctype html><html><head><title>$host$uri</title></head><body>\\n"
            f"{hosts}{pages}{hubs}{trap}<p>{FILLER}</p></body></html>\\n")
    return f"""user root;
worker_processes 1;
worker_rlimit_nofile 200000;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 60000; }}
http {{
  access_log off;
  default_type text/html;
  client_body_temp_path {work}/nginx-tmp;
  keepalive_timeout 75s;
  keepalive_requests 1000;
  ssl_certificate {work}/server.pem;
  ssl_certificate_key {work}/server.key;
  ssl_session_cache shared:bench:64m;
  ssl_protocols TLSv1.2 TLSv1.3;
  {maps}
  {doms}
  server {{
    listen 80 backlog=4096 default_server;
    listen 443 ssl backlog=4096 default_server;
    server_name _;
    location = /robots.txt {{
      default_type text/plain;
      return 200 "User-agent: *\\nDisallow: /private/\\n";
    }}
    location / {{
      return 200 "{body}";
    }}
  }}
}}
"""


def metrics(port):
    """The crawl's counters from its /metrics, summed over labels; {} when it does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=0.5) as r:
            text = r.read().decode()
    except OSError:
        return {}
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name_labels, _, value = line.rpartition(" ")
        name = name_labels.split("{")[0]
        if name_labels.startswith('sieve_pages_total{status_class="2xx"'):
            out["pages_2xx"] = float(value)
        out[name] = out.get(name, 0.0) + float(value)
    return out


def proc(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    rss = 0
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1]) / 1024
    return cpu, rss, len(os.listdir(f"/proc/{pid}/fd"))


def sample(pid, port, seconds):
    start = time.monotonic()
    tick = 0
    while tick <= seconds:
        try:
            cpu, rss, fds = proc(pid)
        except OSError:
            break  # the crawl ended by itself
        m = metrics(port)
        print(json.dumps({
            "t": round(time.monotonic() - start, 3), "cpu_s": cpu, "rss_mb": round(rss, 1),
            "fds": fds, "pages": m.get("pages_2xx"), "records": m.get("sieve_pages_total"),
            "queued": m.get("sieve_queued_urls"), "hosts_active": m.get("sieve_hosts_active"),
            "robots_entries": m.get("sieve_robots_cache_entries"),
            "robots_fetches": m.get("sieve_robots_fetches_total"),
            "in_flight": m.get("sieve_in_flight"),
            "load1": float(open("/proc/loadavg").read().split()[0])}), flush=True)
        tick += 1
        time.sleep(max(0.0, start + tick - time.monotonic()))


def at(samples, t):
    """The last sample at or before time t (samples have pages)."""
    best = samples[0]
    for s in samples:
        if s["t"] <= t:
            best = s
    return best


def figures(d, case, scheme, tool, run):
    samples = [json.loads(l) for l in open(os.path.join(d, "samples.jsonl"))]
    samples = [s for s in samples if s["pages"] is not None]
    T = samples[-1]["t"]
    q0, q1 = (at(samples, 0), at(samples, T / 4))
    q3, q4 = (at(samples, 3 * T / 4), samples[-1])
    rate = lambda a, b: (b["pages"] - a["pages"]) / max(1e-9, b["t"] - a["t"])
    cpu_ms = lambda a, b: 1000 * (b["cpu_s"] - a["cpu_s"]) / max(1.0, b["pages"] - a["pages"])
    per_s = [b["pages"] - a["pages"] for a, b in zip(samples, samples[1:])]
    median = statistics.median(per_s) if per_s else 0
    # 30-s windows below a quarter of the median 1-s rate, merged into stretches.
    slow = [(samples[i + 30]["pages"] - samples[i]["pages"]) / 30 < median / 4
            for i in range(len(samples) - 30)]
    stretches, longest, cur = 0, 0, 0
    for s in slow:
        if s:
            stretches += cur == 0
            cur += 1
            longest = max(longest, cur + 29)
        else:
            cur = 0
    half = [s for s in samples if s["t"] >= T / 2]
    ts = [s["t"] / 60 for s in half]
    rs = [s["rss_mb"] for s in half]
    mt, mr = statistics.fmean(ts), statistics.fmean(rs)
    slope = (sum((a - mt) * (b - mr) for a, b in zip(ts, rs)) /
             max(1e-9, sum((a - mt) ** 2 for a in ts)))
    start, end, rc = open(os.path.join(d, "stop.txt")).read().split()
    out = {
        "case": case, "scheme": scheme, "tool": tool, "run": int(run), "seconds": round(T),
        "pages": int(q4["pages"]),
        "pages_per_s_first_q": round(rate(q0, q1), 1), "pages_per_s_last_q": round(rate(q3, q4), 1),
        "speed_ratio": round(rate(q3, q4) / max(1e-9, rate(q0, q1)), 2),
        "median_pages_per_s": median, "slow_stretches_30s": stretches, "longest_slow_s": longest,
        "cpu_ms_per_page_first_q": round(cpu_ms(q0, q1), 3),
        "cpu_ms_per_page_last_q": round(cpu_ms(q3, q4), 3),
        "cpu_ratio": round(cpu_ms(q3, q4) / max(1e-9, cpu_ms(q0, q1)), 2),
        "cpu_ms_per_page": round(cpu_ms(q0, q4), 3),
        "rss_mb_end": q4["rss_mb"], "rss_mb_peak": max(s["rss_mb"] for s in samples),
        "rss_growth_mb_per_min_last_half": round(slope, 1),
        "fds_end": int(open(os.path.join(d, "fds_end.txt")).read()),
        "hosts_active_end": q4["hosts_active"], "queued_end": q4["queued"],
        "stop_s": round(float(end) - float(start), 2), "exit": int(rc),
        "load1": float(open("/proc/loadavg").read().split()[0]),
    }
    resumed = os.path.join(d, "resume", "samples.jsonl")
    if os.path.exists(resumed):
        rs = [json.loads(l) for l in open(resumed)]
        rs = [s for s in rs if s["pages"] is not None]
        if len(rs) > 4:
            first = next((s for s in rs if s["pages"] > rs[0]["pages"]), rs[-1])
            a, b = at(rs, rs[-1]["t"] / 4), rs[-1]
            rstart, rend, _ = open(os.path.join(d, "resume", "stop.txt")).read().split()
            out.update({
                "resume_pages_per_s": round(rate(a, b), 1),
                "resume_ratio": round(rate(a, b) / max(1e-9, rate(q3, q4)), 2),
                "resume_start_s": first["t"],
                "resume_cpu_ms_per_page": round(cpu_ms(a, b), 3),
                "resume_rss_mb_peak": max(s["rss_mb"] for s in rs),
                "resume_stop_s": round(float(rend) - float(rstart), 2),
            })
    pages_file = os.path.join(d, "out", "pages.jsonl")
    if case == "trap" and os.path.exists(pages_file):
        total = trap = 0
        for line in open(pages_file):
            try:
                url = json.loads(line)["url"]
            except (ValueError, KeyError):
                continue
            total += 1
            trap += ".trap.test/" in url
        out["trap_share"] = round(trap / max(1, total), 3)
    print(json.dumps(out))


COLUMNS = ["pages", "pages_per_s_first_q", "pages_per_s_last_q", "speed_ratio",
           "slow_stretches_30s", "cpu_ms_per_page_first_q", "cpu_ms_per_page_last_q", "cpu_ratio",
           "rss_mb_end", "rss_growth_mb_per_min_last_half", "fds_end", "stop_s", "load1",
           "trap_share", "resume_pages_per_s", "resume_ratio", "resume_start_s"]


def table(path):
    rows = [json.loads(l) for l in open(path)]
    groups = {}
    for r in rows:
        groups.setdefault((r["case"], r["scheme"], r["tool"]), []).append(r)
    print("| case | scheme | tool | runs | " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * (len(COLUMNS) + 4))
    for (case, scheme, tool), rs in groups.items():
        cells = []
        for c in COLUMNS:
            vals = [r[c] for r in rs if r.get(c) is not None]
            cells.append(f"{statistics.median(vals):g}" if vals else "")
        print(f"| {case} | {scheme} | {tool} | {len(rs)} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "nginx-conf":
        print(nginx_conf(*args))
    elif cmd == "sample":
        sample(int(args[0]), int(args[1]), float(args[2]))
    elif cmd == "figures":
        figures(*args)
    elif cmd == "table":
        table(args[0])
    else:
        sys.exit(__doc__)
