#!/usr/bin/python3
"""The freshness benchmark's measurement, from the site's request log alone (freshness_site.py).

  freshness_measure.py run DIR POLICY DURATION RATE DELAY   one crawl -> one JSON line on stdout
  freshness_measure.py table RESULTS.jsonl ANALYTIC.json [PLOT.svg]   medians table (and plot)

Freshness: page i is fresh from a fetch (200 or 304) of its current version until the page's next
change (a later fetch starts a new fresh stretch). The crawl's freshness is the time-averaged
share of fresh pages over the measurement window [end of the first full pass, first request +
DURATION]: the first full pass ends at the first fetch of the last page fetched for the first time
(before it, every policy is still discovering pages). `freshness_all` is the same over the whole
run [first request, first request + DURATION] (pages not yet fetched count as stale).
A 304 decided by If-None-Match confirms the version served; one decided by If-Modified-Since alone
is read the same way (exact unless the page changed twice within one second; `ims_304` counts them).

Politeness, as in bench/crawler/broad_web/broad_web.py: a violation is a request to a host that
starts less than DELAY (2 ms of slack) after the previous answer from that host began to be
written (the site's END: the earliest the client can have had it, so no false alarms when the
site's thread is descheduled after writing); `peak_1s` is the most requests started in any one second, all hosts together, beside
the cap RATE.
"""
import bisect
import collections
import json
import math
import os
import statistics
import sys

from freshness_model import SiteModel

SAMPLE_SECONDS = 5.0
SLACK = 0.002
FIFTHS = 5


def fifths(model):
    """The pages in five groups of (nearly) equal size, fastest-changing first."""
    order = sorted(range(model.pages), key=lambda i: -model.rates[i])
    return [order[k * model.pages // FIFTHS:(k + 1) * model.pages // FIFTHS]
            for k in range(FIFTHS)]


def shares_by_fifth(model, weight):
    """The share of sum(weight) that goes to each fifth of the pages, fastest first."""
    total = sum(weight) or 1
    return [sum(weight[i] for i in group) / total for group in fifths(model)]


def read_log(path):
    rows = []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if len(parts) != 8:
                continue
            rows.append((float(parts[0]), float(parts[1]), int(parts[2]), parts[3],
                         int(parts[4]), int(parts[5]), int(parts[6]), parts[7]))
    rows.sort()
    return rows


def fresh_stretches(model, fetches):
    """Per page, the sorted disjoint [from, to) stretches (seconds after t0) it was fresh."""
    stretches = [[] for _ in range(model.pages)]
    for t, page, version in fetches:
        end = model.next_change(page, version)
        if end <= t:
            continue
        mine = stretches[page]
        if mine and t <= mine[-1][1]:
            mine[-1][1] = max(mine[-1][1], end)
        else:
            mine.append([t, end])
    return stretches


def fresh_share(stretches, lo, hi):
    """Time-averaged share of pages fresh over [lo, hi)."""
    if hi <= lo:
        return math.nan
    total = 0.0
    for mine in stretches:
        for a, b in mine:
            total += max(0.0, min(b, hi) - max(a, lo))
    return total / (len(stretches) * (hi - lo))


def fresh_at(stretches, t):
    count = 0
    for mine in stretches:
        k = bisect.bisect_right(mine, [t, math.inf]) - 1
        if k >= 0 and mine[k][0] <= t < mine[k][1]:
            count += 1
    return count / len(stretches)


def politeness(rows, delay):
    violations, last_end = 0, {}
    for start, end, host, *_ in rows:
        if host in last_end and start < last_end[host] + delay - SLACK:
            violations += 1
        last_end[host] = max(end, last_end.get(host, end))
    starts = [r[0] for r in rows]
    peak, lo = 0, 0
    for hi in range(len(starts)):
        while starts[hi] - starts[lo] >= 1.0:
            lo += 1
        peak = max(peak, hi - lo + 1)
    return violations, peak


def measure_run(out, policy, duration, rate, delay):
    meta = json.load(open(os.path.join(out, "meta.json")))
    model = SiteModel.from_meta(meta)
    t0 = meta["t0"]
    rows = read_log(os.path.join(out, "requests.log"))
    if not rows:
        return {"policy": policy, "requests": 0}
    first = rows[0][0] - t0
    stop = min(first + duration, model.horizon)
    rows = [r for r in rows if r[0] - t0 < stop]
    fetches = [(r[0] - t0, r[5], r[6]) for r in rows if r[5] >= 0 and r[4] in (200, 304)]
    first_fetch = {}
    for t, page, _ in fetches:
        first_fetch.setdefault(page, t)
    full_pass = max(first_fetch.values()) if len(first_fetch) == model.pages else None
    stretches = fresh_stretches(model, fetches)
    status = collections.Counter(r[4] for r in rows)
    violations, peak = politeness(rows, delay)
    span = rows[-1][0] - rows[0][0]
    samples = []
    t = first
    while t < stop:
        samples.append([round(t - first, 3), fresh_at(stretches, t)])
        t += SAMPLE_SECONDS
    return {
        "policy": policy,
        "duration": duration,
        "rate": rate,
        "requests": len(rows),
        "page_fetches": len(fetches),
        "pages_fetched": len(first_fetch),
        "requests_per_second": len(rows) / span if span > 0 else math.nan,
        "share_304": status[304] / len(rows),
        "ims_304": sum(1 for r in rows if r[4] == 304 and r[7] == "ims"),
        "errors": sum(n for s, n in status.items() if s not in (200, 304)),
        "first_pass_seconds": full_pass - first if full_pass is not None else None,
        "freshness": fresh_share(stretches, full_pass, stop) if full_pass is not None else None,
        "freshness_all": fresh_share(stretches, first, stop),
        "politeness_violations": violations,
        "peak_1s": peak,
        # Where the page fetches went after the first pass, by fifths of the pages.
        "fetch_share_by_fifth": shares_by_fifth(model, [
            sum(1 for t, p, _ in fetches if p == i and full_pass is not None and t > full_pass)
            for i in range(model.pages)]) if full_pass is not None else None,
        "series": samples,
    }


def median(values):
    values = [v for v in values if v is not None and not math.isnan(v)]
    return statistics.median(values) if values else None


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def table(results_path, analytic_path, plot_path=None):
    results = [json.loads(line) for line in open(results_path) if line.strip()]
    analytic = json.load(open(analytic_path))
    uniform, optimal = analytic["uniform"], analytic["optimal"]
    by_policy = collections.OrderedDict()
    for r in results:
        by_policy.setdefault(r["policy"], []).append(r)
    print("analytic at %g requests/s: uniform %.4f, optimal %.4f (optimal/uniform %.3fx; optimal"
          " skips %d pages and revisits the rest every %.1f-%.1f s)" %
          (analytic["budget"], uniform, optimal, analytic["optimal_over_uniform"],
           analytic["optimal_pages_skipped"], analytic["optimal_interval_min"],
           analytic["optimal_interval_max"]))
    print()
    header = ("policy", "runs", "requests", "req/s", "peak 1s", "304 share", "first pass s",
              "freshness", "fresh (all)", "uniform", "optimal", "x optimal",
              "x " + next(iter(by_policy), "-"), "violations")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    baseline = None
    for policy, runs in by_policy.items():
        fresh = median([r.get("freshness") for r in runs])
        if baseline is None:
            baseline = fresh
        row = (policy, str(len(runs)),
               fmt(median([r["requests"] for r in runs]), ".0f"),
               fmt(median([r["requests_per_second"] for r in runs]), ".2f"),
               fmt(median([r["peak_1s"] for r in runs]), ".0f"),
               fmt(median([r["share_304"] for r in runs]), ".3f"),
               fmt(median([r["first_pass_seconds"] for r in runs]), ".1f"),
               fmt(fresh, ".4f"),
               fmt(median([r["freshness_all"] for r in runs]), ".4f"),
               "%.4f" % uniform, "%.4f" % optimal,
               fmt(fresh / optimal if fresh is not None else None, ".3f"),
               fmt(fresh / baseline if fresh is not None and baseline else None, ".3f"),
               fmt(median([r["politeness_violations"] for r in runs]), ".0f"))
        print("| " + " | ".join(row) + " |")
    print()
    print("Share of the page fetches after the first pass, by fifths of the pages from the fastest-"
          "changing to the slowest (T: their mean seconds between changes; uniform: 0.20 each):")
    print()
    print("| policy | " + " | ".join("T %.2g-%.2g s" % tuple(analytic["fifth_intervals"][k])
                                     for k in range(FIFTHS)) + " |")
    print("|" + "---|" * (FIFTHS + 1))
    print("| optimal (analytic) | " + " | ".join(
        "%.2f" % v for v in analytic["allocation_share_by_fifth"]) + " |")
    for policy, runs in by_policy.items():
        cells = [median([r["fetch_share_by_fifth"][k] for r in runs
                         if r.get("fetch_share_by_fifth")]) for k in range(FIFTHS)]
        print("| %s | %s |" % (policy, " | ".join(fmt(v, ".2f") for v in cells)))
    if plot_path:
        with open(plot_path, "w") as f:
            f.write(plot(by_policy, uniform, optimal))


COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]


def plot(by_policy, uniform, optimal):
    """SVG: each policy's share of fresh pages over time (median over runs), and the analytic
    uniform and optimal freshness as dashed lines."""
    w, h, left, right, top, bottom = 720, 400, 60, 150, 20, 45
    series = {}
    for policy, runs in by_policy.items():
        times = runs[0]["series"]
        series[policy] = [(times[k][0], median([r["series"][k][1] for r in runs
                                                if k < len(r["series"])]))
                          for k in range(len(times))]
    t_max = max((s[-1][0] for s in series.values() if s), default=1) or 1
    y_max = max([optimal * 1.25] + [v for s in series.values() for _, v in s]) or 1
    y_max = math.ceil(y_max * 20) / 20

    def x(t):
        return left + (w - left - right) * t / t_max

    def y(v):
        return top + (h - top - bottom) * (1 - v / y_max)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif"'
           ' font-size="12">' % (w, h), '<rect width="100%" height="100%" fill="white"/>']
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' %
               (left, y(0), w - right, y(0)))
    out.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' %
               (left, y(0), left, y(y_max)))
    for k in range(6):
        v = y_max * k / 5
        out.append('<text x="%d" y="%.1f" text-anchor="end">%.2f</text>' % (left - 5, y(v) + 4, v))
        t = t_max * k / 5
        out.append('<text x="%.1f" y="%d" text-anchor="middle">%.0f</text>' %
                   (x(t), h - bottom + 16, t))
    out.append('<text x="%d" y="%d" text-anchor="middle">seconds of crawling</text>' %
               ((left + w - right) // 2, h - 8))
    out.append('<text x="14" y="%d" transform="rotate(-90 14 %d)" text-anchor="middle">'
               'share of pages fresh</text>' % ((top + h - bottom) // 2, (top + h - bottom) // 2))
    legend = 0
    for name, value in (("optimal", optimal), ("uniform", uniform)):
        out.append('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="gray" '
                   'stroke-dasharray="6,4"/>' % (left, y(value), w - right, y(value)))
        out.append('<text x="%d" y="%.1f">%s (analytic)</text>' %
                   (w - right + 5, y(value) + 4, name))
    for k, (policy, points) in enumerate(series.items()):
        colour = COLOURS[k % len(COLOURS)]
        path = " ".join("%.1f,%.1f" % (x(t), y(v)) for t, v in points if v is not None)
        out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>' %
                   (colour, path))
        out.append('<text x="%d" y="%d" fill="%s">%s</text>' %
                   (w - right + 5, top + 14 + 16 * legend, colour, policy))
        legend += 1
    out.append("</svg>\n")
    return "\n".join(out)


def main(argv):
    if len(argv) == 7 and argv[1] == "run":
        print(json.dumps(measure_run(argv[2], argv[3], float(argv[4]), float(argv[5]),
                                     float(argv[6]))))
    elif len(argv) in (4, 5) and argv[1] == "table":
        table(argv[2], argv[3], argv[4] if len(argv) == 5 else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
