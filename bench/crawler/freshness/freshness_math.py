#!/usr/bin/python3
"""Expected freshness of revisit policies from the true change rates, after J. Cho and
H. Garcia-Molina, "Effective page refresh policies for Web crawlers", ACM TODS 28(4), 2003.

A page that changes as a Poisson process of rate lambda and is revisited in a fixed order every
1/f seconds is fresh, averaged over time (the paper's fixed-order policy):

    F(lambda, f) = (f / lambda) (1 - exp(-lambda / f))                               (Eq. F)

With a budget of B revisits per second over N pages, the collection's freshness is
(1/N) sum_i F(lambda_i, f_i) with sum_i f_i = B. Uniform allocation: f_i = B / N for all i.
The optimal allocation maximises sum_i F under sum_i f_i = B; F is concave in f, so by Lagrange
multipliers every page with f_i > 0 has the same marginal freshness

    dF/df (lambda_i, f_i) = (1 / lambda_i) (1 - exp(-x) (1 + x)) = mu,  x = lambda_i / f_i   (Eq. L)

and since dF/df falls from 1/lambda_i at f = 0 towards 0, a page with 1/lambda_i <= mu gets
f_i = 0 (it changes too often to be worth a visit). f_i(mu) is found by bisection on f for each
page, and mu by bisection until sum_i f_i(mu) = B.

  freshness_math.py analytic PAGES HOSTS MIN_INTERVAL MAX_INTERVAL SEED RATE   the figures, JSON
"""
import json
import math
import sys

from freshness_model import SiteModel


def freshness(rate, f):
    """Eq. F: time-averaged freshness of a page of change rate `rate` revisited every 1/f s."""
    if f <= 0:
        return 0.0
    x = rate / f
    return -math.expm1(-x) / x


def marginal(rate, f):
    """Eq. L's left side: dF/df at f (1/rate at f = 0)."""
    if f <= 0:
        return 1.0 / rate
    x = rate / f
    return (-math.expm1(-x) - x * math.exp(-x)) / rate


def frequency_at(rate, mu):
    """The f >= 0 with marginal(rate, f) = mu (0 when the page is not worth a visit)."""
    if 1.0 / rate <= mu:
        return 0.0
    lo, hi = 0.0, rate
    while marginal(rate, hi) > mu:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        if marginal(rate, mid) > mu:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def optimal_allocation(rates, budget):
    """The f_i maximising sum_i F(rate_i, f_i) with sum_i f_i = budget (bisection on mu)."""
    lo, hi = 1e-15, max(1.0 / r for r in rates)
    for _ in range(200):
        mu = math.sqrt(lo * hi)
        if sum(frequency_at(r, mu) for r in rates) > budget:
            lo = mu
        else:
            hi = mu
    return [frequency_at(r, hi) for r in rates]


def uniform_freshness(rates, budget):
    return sum(freshness(r, budget / len(rates)) for r in rates) / len(rates)


def optimal_freshness(rates, budget):
    allocation = optimal_allocation(rates, budget)
    return sum(freshness(r, f) for r, f in zip(rates, allocation)) / len(rates), allocation


def analytic(rates, budget):
    """The figures the benchmark compares with: uniform and optimal freshness at `budget`."""
    uniform = uniform_freshness(rates, budget)
    optimal, allocation = optimal_freshness(rates, budget)
    visited = [f for f in allocation if f > 0]
    order = sorted(range(len(rates)), key=lambda i: -rates[i])
    fifth = [order[k * len(rates) // 5:(k + 1) * len(rates) // 5] for k in range(5)]
    return {
        "budget": budget,
        "uniform": uniform,
        "optimal": optimal,
        "optimal_over_uniform": optimal / uniform if uniform > 0 else math.inf,
        "optimal_pages_skipped": len(allocation) - len(visited),
        "optimal_interval_min": 1.0 / max(visited) if visited else math.inf,
        "optimal_interval_max": 1.0 / min(visited) if visited else math.inf,
        # The optimal's share of the budget for each fifth of the pages, fastest-changing first.
        "allocation_share_by_fifth": [sum(allocation[i] for i in group) / budget
                                      for group in fifth],
        "fifth_intervals": [[1.0 / rates[g[0]], 1.0 / rates[g[-1]]] for g in fifth],
    }


def main(argv):
    if len(argv) != 8 or argv[1] != "analytic":
        sys.exit(__doc__)
    pages, hosts, tmin, tmax, seed, rate = argv[2:]
    model = SiteModel(int(pages), int(hosts), float(tmin), float(tmax), int(seed), horizon=0)
    print(json.dumps(analytic(model.rates, float(rate))))


if __name__ == "__main__":
    main(sys.argv)
