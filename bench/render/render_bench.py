#!/usr/bin/env python3
"""bench/render/render_bench.py: the parts of render_bench.sh (see its header).

  site DIR N VENDOR_KB      the script-built site: DIR/index.html (every /p/<i> is this one SPA
                            shell), /static/{vendor.js,app.js,app.css}, /api/p/<i>.json
  nginx-conf WORK DOCROOT PORT   nginx.conf serving it on 127.0.0.1:PORT, on stdout
  run DIR -- COMMAND...     runs COMMAND (sieve) in a cgroup of its own while sampling /proc;
                            writes DIR/cpu.json
  naive DIR URLS BUDGET PARALLEL   `chromium-headless-shell --dump-dom
                            --virtual-time-budget=BUDGET URL` once per URL of the file URLS,
                            PARALLEL at a time, as user nobody with Chromium's sandbox on (as
                            Sieve runs its browsers); DOMs in DIR/dom/, DIR/cpu.json, DIR/naive.jsonl
  figures DIR TOOL N SEED   one JSON line of the run's figures (pages found against the N pages)
  table RESULTS             medians over the runs, ratios, one table

CPU: every process of the run is in a cgroup (cpuacct, v1 or v2) the command joins before it
execs; the sampler reads the cgroup's member list and each member's /proc/<pid>/stat
(utime + stime) every POLL_S, keeping each process's last value; PSS (/proc/<pid>/smaps_rollup)
every PSS_EVERY polls, summed per browser (a browser's processes share its process group).
A process that exits between two polls loses the CPU of its last poll interval: the cgroup's own
counter (cpuacct.usage / cpu.stat usage_usec) counts every process that was ever in the group,
exited ones included, and is reported beside it as a check. Not RUSAGE_CHILDREN: Chromium's
helper processes are reparented to init when their parent dies, and their CPU never reaches the
waiting parent's rusage (GNU time's user + system of `chromium-headless-shell --dump-dom` on a
one-timer data: page: 0.18 s, where the cgroup counted 0.43 s).
"""
import html.parser
import json
import os
import statistics
import subprocess
import sys
import threading
import time
import urllib.parse

POLL_S = 0.025
PSS_EVERY = 8  # polls: smaps_rollup walks every mapping, ~1 ms a Chromium process
CLK_TCK = os.sysconf("SC_CLK_TCK")
CHROMIUM = "/usr/lib/chromium/chromium-headless-shell"
NOBODY = 65534


# ---------------------------------------------------------------------------- the site
def site(root, n, vendor_kb):
    """A single-page app of n pages /p/0 .. /p/<n-1>: every page is the same shell (an empty
    app root, a <noscript>, a stylesheet, a vendor bundle and the app's script); the app reads
    its page's JSON with fetch() and writes the page: its own links (next page, a breadcrumb)
    at once, the "related" ones (the children 2i+1 and 2i+2 of a binary tree, so every page is
    reachable from /p/0 within log2(n) steps) after a 100 ms timer, as a lazy widget does."""
    os.makedirs(f"{root}/static", exist_ok=True)
    os.makedirs(f"{root}/api/p", exist_ok=True)
    with open(f"{root}/index.html", "w") as f:
        f.write("""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sieve render bench</title>
<link rel="stylesheet" href="/static/app.css">
<script defer src="/static/vendor.js"></script>
<script defer src="/static/app.js"></script>
</head><body>
<noscript>You need to enable JavaScript to run this app.</noscript>
<div id="root"></div>
</body></html>
""")
    # The vendor bundle: a library's worth of small functions in a module registry, most never
    # called (as in a real bundle), a few run at start.
    parts = ["(function(){var modules={};\n"]
    i = 0
    while sum(len(p) for p in parts) < vendor_kb * 1024:
        parts.append(
            f"modules['m{i}']=function(exports){{function h{i}(a,b){{var s=0;"
            f"for(var k=0;k<a.length;k++){{s=(s*31+a.charCodeAt(k)+{i})|0;}}"
            f"return s^b;}}exports.h{i}=h{i};exports.name='module {i} of the vendor bundle';"
            f"exports.tpl=function(x){{return '<span class=\"m{i}\">'+String(x)+'</span>';}};"
            f"return exports;}};\n")
        i += 1
    parts.append("""var cache={};window.require=function(n){if(!(n in cache))
cache[n]=modules[n]({});return cache[n];};
for(var k=0;k<20;k++)window.require('m'+k);
window.h=function(tag,attrs,text){var e=document.createElement(tag);
for(var a in attrs)e.setAttribute(a,attrs[a]);if(text)e.textContent=text;return e;};
})();
""")
    with open(f"{root}/static/vendor.js", "w") as f:
        f.write("".join(parts))
    with open(f"{root}/static/app.js", "w") as f:
        f.write("""(function(){
var root=document.getElementById('root');
var id=location.pathname.split('/').pop();
function link(list,href,text){var li=h('li');li.appendChild(h('a',{href:href},text));
list.appendChild(li);}
fetch('/api/p/'+id+'.json').then(function(r){return r.json();}).then(function(page){
  document.title=page.title;
  var nav=h('nav',{'class':'crumbs'});var ul=h('ul');nav.appendChild(ul);
  page.nav.forEach(function(l){link(ul,l.href,l.text);});
  root.appendChild(nav);
  root.appendChild(h('h1',{},page.title));
  page.body.forEach(function(p){root.appendChild(h('p',{},p));});
  setTimeout(function(){
    var aside=h('aside',{'class':'related'});var rl=h('ul');aside.appendChild(rl);
    page.related.forEach(function(l){link(rl,l.href,l.text);});
    root.appendChild(aside);
  },100);
});
})();
""")
    with open(f"{root}/static/app.css", "w") as f:
        for k in range(200):
            f.write(f".c{k}{{margin:{k % 7}px;padding:{k % 5}px;color:#{k * 40503 % 0xffffff:06x}}}\n")
        f.write("nav ul,aside ul{list-style:none}h1{font:2em sans-serif}\n")
    text = ("Pages of this site are written by its script from a JSON document; the server "
            "sends every address the same empty shell. ") * 4
    for p in range(n):
        nav = [{"href": "/p/0", "text": "Home"}]
        if p + 1 < n:
            nav.append({"href": f"/p/{p + 1}", "text": "Next"})
        related = [{"href": f"/p/{c}", "text": f"Page {c}"} for c in (2 * p + 1, 2 * p + 2)
                   if c < n]
        with open(f"{root}/api/p/{p}.json", "w") as f:
            json.dump({"title": f"Page {p}", "nav": nav, "body": [text, text],
                       "related": related}, f)


def nginx_conf(work, docroot, port):
    return f"""worker_processes 1;
pid {work}/nginx.pid;
error_log {work}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
  access_log {work}/access.log;
  include /etc/nginx/mime.types;
  client_body_temp_path {work}/nginx-tmp;
  server {{
    listen 127.0.0.1:{port};
    root {docroot};
    location /p/ {{ default_type text/html; try_files /index.html =404; }}
  }}
}}
"""


# ---------------------------------------------------------------------------- CPU and PSS
class Cgroup:
    """A cgroup of the run's own: cpuacct under cgroup v1, the unified hierarchy else."""

    def __init__(self, name):
        v1 = "/sys/fs/cgroup/cpuacct"
        if os.path.isfile(f"{v1}/cpuacct.usage"):
            self.path, self.v1 = f"{v1}/{name}", True
        else:
            self.path, self.v1 = f"/sys/fs/cgroup/{name}", False
        os.makedirs(self.path, exist_ok=True)

    def join(self):  # in the child, before exec
        with open(f"{self.path}/cgroup.procs", "w") as f:
            f.write("0")

    def pids(self):
        with open(f"{self.path}/cgroup.procs") as f:
            return [int(x) for x in f.read().split()]

    def cpu_s(self):
        if self.v1:
            return int(open(f"{self.path}/cpuacct.usage").read()) / 1e9
        for line in open(f"{self.path}/cpu.stat"):
            if line.startswith("usage_usec"):
                return int(line.split()[1]) / 1e6
        return float("nan")

    def remove(self):
        for _ in range(200):
            try:
                os.rmdir(self.path)
                return
            except OSError:
                time.sleep(0.05)


def stat_of(pid):
    """(starttime, pgid, cpu seconds) of a process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[19]), int(fields[2]), (int(fields[11]) + int(fields[12])) / CLK_TCK


def kind_of(pid):
    """Chromium's process type (--type=renderer, zygote, gpu-process, utility), "browser" for
    its main process, or the command's name (sieve)."""
    try:
        # NUL-separated, or one string with spaces once Chromium set its process title.
        args = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").split()
    except OSError:
        return "?"
    if not args:
        return "?"
    if b"chromium" not in args[0] and args[0] != b"/proc/self/exe":
        return os.path.basename(args[0]).decode(errors="replace")
    for a in args:
        if a.startswith(b"--type="):
            return a[7:].decode(errors="replace")
    return "browser"


def pss_kb(pid):
    try:
        for line in open(f"/proc/{pid}/smaps_rollup"):
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


class Sampler(threading.Thread):
    """Polls the cgroup's processes: each one's last CPU figure, PSS per process group."""

    def __init__(self, cgroup):
        super().__init__(daemon=True)
        self.cgroup = cgroup
        self.last = {}  # (pid, starttime) -> [pgid, cpu_s, kind]
        self.pss = {}  # pgid -> list of KB samples (the group's processes summed)
        self.stop = threading.Event()

    def poll(self, with_pss):
        groups = {}
        for pid in self.cgroup.pids():
            s = stat_of(pid)
            if s is None:
                continue
            start, pgid, cpu = s
            key = (pid, start)
            if key in self.last:
                self.last[key][1] = cpu
                # Seen before its exec, or a zygote's fork before it names itself.
                if self.last[key][2].startswith(("python", "?", "zygote")):
                    self.last[key][2] = kind_of(pid)
            else:
                self.last[key] = [pgid, cpu, kind_of(pid)]
            if with_pss:
                groups[pgid] = groups.get(pgid, 0) + pss_kb(pid)
        for pgid, kb in groups.items():
            self.pss.setdefault(pgid, []).append(kb)

    def run(self):
        n = 0
        while not self.stop.is_set():
            self.poll(n % PSS_EVERY == 0)
            n += 1
            self.stop.wait(POLL_S)
        self.poll(False)

    def cpu_by_group(self):
        out = {}
        for pgid, cpu, _ in self.last.values():
            out[pgid] = out.get(pgid, 0.0) + cpu
        return out

    def by_kind(self):
        """{kind: [processes, cpu seconds]}: where the CPU went."""
        out = {}
        for _, cpu, kind in self.last.values():
            row = out.setdefault(kind, [0, 0.0])
            row[0] += 1
            row[1] = round(row[1] + cpu, 3)
        return out


def pss_figures(pss, groups):
    """Peak and median PSS (MB) per browser: each browser's own peak and its median sample,
    then the median of those over the browsers."""
    series = [pss[g] for g in groups if pss.get(g)]
    if not series:
        return {"pss_peak_mb": None, "pss_median_mb": None, "browsers": 0}
    return {"pss_peak_mb": round(max(max(s) for s in series) / 1024, 1),
            "pss_median_mb": round(statistics.median(statistics.median(s) for s in series) / 1024, 1),
            "browsers": len(series)}


def preexec(cgroup, as_nobody):
    def f():
        cgroup.join()
        os.setsid()  # its own process group: the top process's group is not a browser's
        if as_nobody:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)
    return f


def run(out_dir, command):
    """Sieve: its own process is one group, each browser another (render/browser_process.h)."""
    cgroup = Cgroup(f"sieve-render-bench-{os.getpid()}")
    sampler = Sampler(cgroup)
    sampler.start()
    t0 = time.monotonic()
    with open(f"{out_dir}/log.txt", "w") as log:
        proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                preexec_fn=preexec(cgroup, False))
        rc = proc.wait()
    wall = time.monotonic() - t0
    while cgroup.pids():
        time.sleep(0.02)
    sampler.stop.set()
    sampler.join()
    by_group = sampler.cpu_by_group()
    own = by_group.pop(proc.pid, 0.0)  # sieve's own group: itself (all its threads)
    figures = {"rc": rc, "wall_s": wall, "cpu_self_s": own, "cpu_browsers_s": sum(by_group.values()),
               "cpu_cgroup_s": cgroup.cpu_s(), "processes": len(sampler.last),
               "by_kind": sampler.by_kind(),
               **pss_figures(sampler.pss, by_group.keys())}
    cgroup.remove()
    with open(f"{out_dir}/cpu.json", "w") as f:
        json.dump(figures, f)
    return rc


class Links(html.parser.HTMLParser):
    def __init__(self, base):
        super().__init__()
        self.base, self.links = base, []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "base" and a.get("href"):
            self.base = urllib.parse.urljoin(self.base, a["href"])
        if tag in ("a", "area") and a.get("href"):
            self.links.append(urllib.parse.urljoin(self.base, a["href"]).split("#")[0])


def naive(out_dir, urls_file, budget_ms, parallel):
    """One browser per page: the naive way, PARALLEL at a time."""
    urls = [u.strip() for u in open(urls_file) if u.strip()]
    os.makedirs(f"{out_dir}/dom", exist_ok=True)
    cgroup = Cgroup(f"sieve-render-bench-naive-{os.getpid()}")
    sampler = Sampler(cgroup)
    sampler.start()
    lock = threading.Lock()
    todo = list(enumerate(urls))
    rows = []

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                i, url = todo.pop(0)
            home = f"{out_dir}/home-{i}"
            os.makedirs(home)
            os.chown(home, NOBODY, -1)
            # Only what the browser needs to start here: a HOME of its own (nobody's is
            # /nonexistent). As root Chromium also needs --no-sandbox; it runs as nobody
            # instead, with its sandbox on, as Sieve runs its browsers.
            cmd = [CHROMIUM, "--dump-dom", f"--virtual-time-budget={budget_ms}", url]
            t0 = time.monotonic()
            with open(f"{out_dir}/dom/{i}.html", "w") as dom, \
                    open(f"{out_dir}/stderr.txt", "a") as err:
                rc = subprocess.run(cmd, stdout=dom, stderr=err, cwd=home,
                                    env={"HOME": home, "PATH": "/usr/bin:/bin"},
                                    preexec_fn=preexec(cgroup, True)).returncode
            with lock:
                rows.append({"url": url, "rc": rc, "wall_ms": (time.monotonic() - t0) * 1000})
            subprocess.run(["rm", "-rf", home])

    t0 = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(parallel)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - t0
    while cgroup.pids():
        time.sleep(0.02)
    sampler.stop.set()
    sampler.join()
    by_group = sampler.cpu_by_group()
    figures = {"rc": max(r["rc"] for r in rows), "wall_s": wall, "cpu_self_s": 0.0,
               "cpu_browsers_s": sum(by_group.values()), "cpu_cgroup_s": cgroup.cpu_s(),
               "processes": len(sampler.last),
               "by_kind": sampler.by_kind(), **pss_figures(sampler.pss, by_group.keys())}
    cgroup.remove()
    with open(f"{out_dir}/cpu.json", "w") as f:
        json.dump(figures, f)
    with open(f"{out_dir}/naive.jsonl", "w") as f:
        for row in sorted(rows, key=lambda r: urls.index(r["url"])):
            dom = open(f"{out_dir}/dom/{urls.index(row['url'])}.html", errors="replace").read()
            parser = Links(row["url"])
            parser.feed(dom)
            row["links"] = sorted(set(parser.links))
            f.write(json.dumps(row) + "\n")
    return 0


# ---------------------------------------------------------------------------- figures
def pct(values, q):
    values = sorted(values)
    if not values:
        return None
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def figures(out_dir, tool, n, seed):
    base = seed.rsplit("/p/", 1)[0]
    want = {f"{base}/p/{i}" for i in range(n)}
    cpu = json.load(open(f"{out_dir}/cpu.json"))
    if tool.startswith("sieve"):
        records = [json.loads(l) for l in open(f"{out_dir}/out/pages.jsonl")]
        pages = [r for r in records if r["url"] in want and r.get("status") == 200]
        found = {r["url"] for r in pages}
        rendered = [r for r in pages if r.get("rendered")]
        times = [r["render_ms"] for r in rendered if "render_ms" in r]
        errors = sum(1 for r in records if r.get("render_error"))
    else:
        rows = [json.loads(l) for l in open(f"{out_dir}/naive.jsonl")]
        found = {seed} | {u for r in rows for u in r["links"] if u in want}
        rendered = [r for r in rows if r["rc"] == 0]
        times = [r["wall_ms"] for r in rows]
        errors = sum(1 for r in rows if r["rc"] != 0)
    n_rendered = len(rendered)
    cpu_all = cpu["cpu_self_s"] + cpu["cpu_browsers_s"]
    return {"tool": tool, "pages": n, "found": len(found & want), "missing": len(want - found),
            "rendered": n_rendered, "render_errors": errors, "wall_s": round(cpu["wall_s"], 3),
            "pages_per_s": n_rendered / cpu["wall_s"],
            "cpu_browsers_s": round(cpu["cpu_browsers_s"], 3),
            "cpu_all_s": round(cpu_all, 3), "cpu_cgroup_s": round(cpu["cpu_cgroup_s"], 3),
            "cpu_ms_per_page_browsers": 1000 * cpu["cpu_browsers_s"] / max(n_rendered, 1),
            "cpu_ms_per_page_all": 1000 * cpu_all / max(n_rendered, 1),
            "cpu_ms_per_page_cgroup": 1000 * cpu["cpu_cgroup_s"] / max(n_rendered, 1),
            "render_p50_ms": pct(times, 0.50), "render_p99_ms": pct(times, 0.99),
            "pss_peak_mb": cpu["pss_peak_mb"], "pss_median_mb": cpu["pss_median_mb"],
            "browsers": cpu["browsers"], "processes": cpu["processes"],
            "cpu_ms_per_page_by_kind": {k: round(1000 * v[1] / max(n_rendered, 1), 1)
                                        for k, v in cpu["by_kind"].items()},
            "processes_by_kind": {k: v[0] for k, v in cpu["by_kind"].items()},
            "load1": float(open("/proc/loadavg").read().split()[0])}


def table(results):
    rows = {}
    for line in open(results):
        r = json.loads(line)
        rows.setdefault(r["tool"], []).append(r)
    med = {}
    cols = [("pages/s", "pages_per_s", "{:.1f}"),
            ("CPU ms/page, browsers", "cpu_ms_per_page_browsers", "{:.0f}"),
            ("CPU ms/page, all", "cpu_ms_per_page_all", "{:.0f}"),
            ("CPU ms/page, cgroup", "cpu_ms_per_page_cgroup", "{:.0f}"),
            ("render p50 ms", "render_p50_ms", "{:.0f}"),
            ("render p99 ms", "render_p99_ms", "{:.0f}"),
            ("PSS/browser peak MB", "pss_peak_mb", "{:.0f}"),
            ("PSS/browser median MB", "pss_median_mb", "{:.0f}"),
            ("found/pages", None, None), ("runs", None, None), ("load1", "load1", "{:.2f}")]
    print("\n| tool | " + " | ".join(c[0] for c in cols) + " |")
    print("|---" * (len(cols) + 1) + "|")
    for tool, runs in rows.items():
        m = {}
        cells = []
        for title, key, fmt in cols:
            if key is None:
                cells.append(f"{min(r['found'] for r in runs)}/{runs[0]['pages']}"
                             if title.startswith("found") else str(len(runs)))
                continue
            values = [r[key] for r in runs if r[key] is not None]
            m[key] = statistics.median(values) if values else None
            cells.append(fmt.format(m[key]) if m[key] is not None else "-")
        med[tool] = m
        print(f"| {tool} | " + " | ".join(cells) + " |")
    print()
    for tool, m in med.items():
        for other in ("naive", "naive-2"):
            if not tool.startswith("sieve") or other not in med:
                continue
            o = med[other]
            print(f"{tool} / {other}: pages per CPU-second "
                  f"{o['cpu_ms_per_page_browsers'] / m['cpu_ms_per_page_browsers']:.2f}x (browsers only), "
                  f"{o['cpu_ms_per_page_browsers'] / m['cpu_ms_per_page_all']:.2f}x (sieve + browsers), "
                  f"{o['cpu_ms_per_page_cgroup'] / m['cpu_ms_per_page_cgroup']:.2f}x (cgroup); "
                  f"pages/s {m['pages_per_s'] / o['pages_per_s']:.2f}x")
    for tool, runs in rows.items():
        bad = [r for r in runs if r["missing"]]
        if bad:
            print(f"{tool}: {len(bad)} run(s) did not find every page (missing "
                  f"{', '.join(str(r['missing']) for r in bad)})")


def main(argv):
    cmd, args = argv[1], argv[2:]
    if cmd == "site":
        site(args[0], int(args[1]), int(args[2]))
    elif cmd == "nginx-conf":
        print(nginx_conf(args[0], args[1], int(args[2])))
    elif cmd == "run":
        return run(args[0], args[2:] if args[1] == "--" else args[1:])
    elif cmd == "naive":
        return naive(args[0], args[1], int(args[2]), int(args[3]))
    elif cmd == "figures":
        print(json.dumps(figures(args[0], args[1], int(args[2]), args[3])))
    elif cmd == "table":
        table(args[0])
    else:
        sys.exit(f"unknown command {cmd}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
