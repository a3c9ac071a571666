"""Sieve's frontier for Python: Bloom filters, the Sieve, the Frontier and the
ClusterFrontier (one worker of a crawl shared through Redis).

The classes come from the compiled module sieve._sieve (the C++ libraries
sieve::filter, sieve::frontier and sieve::cluster); docs/python.md is the guide.

    import sieve
    f = sieve.Frontier(delay=1.0)
    f.add("http://a.example/", metadata=b"seed")
    n = f.next()            # n.state: "ready", "wait", "wait_for_done", "empty"
"""

from sieve._sieve import (
    CapacityWarning,
    ClusterFrontier,
    Error,
    Filter,
    Frontier,
    Next,
    Sieve,
)

__all__ = ["CapacityWarning", "ClusterFrontier", "Error", "Filter", "Frontier", "Next", "Sieve"]
