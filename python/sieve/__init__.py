"""Sieve's frontier for Python: Bloom filters, the Sieve and the Frontier.

The classes come from the compiled module sieve._sieve (the C++ libraries
sieve::filter and sieve::frontier); docs/python.md is the guide.

    import sieve
    f = sieve.Frontier(delay=1.0)
    f.add("http://a.example/", metadata=b"seed")
    n = f.next()            # n.state: "ready", "wait", "wait_for_done", "empty"
"""

from sieve._sieve import (
    CapacityWarning,
    Error,
    Filter,
    Frontier,
    Next,
    Sieve,
)

__all__ = ["CapacityWarning", "Error", "Filter", "Frontier", "Next", "Sieve"]
