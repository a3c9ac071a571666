#!/usr/bin/python3
"""A scripted crawl against `sieve frontier serve` from Python.

The client stubs are generated at build time from the project's .proto by
Debian's grpc_python_plugin; the server is the real `sieve` binary on
127.0.0.1 (a free port). The crawl walks a small link graph held here: seeds
go in as discovered URLs, each GetURLs answer is "fetched" (its links looked
up in the graph), reported back as known and done, and its links put as
discovered; the crawl ends when the frontier has nothing left. Every page
must be fetched exactly once.

Usage: python_client_test.py SIEVE_BINARY STUBS_DIR WORK_DIR
Exit 77 (skipped) when Debian's python3-grpcio or python3-protobuf is missing.
"""
import os
import shutil
import signal
import subprocess
import sys
import time

SKIP = 77

try:
    import grpc  # noqa: F401
except ImportError:
    print("skipped: python3-grpcio is not installed for", sys.executable)
    sys.exit(SKIP)

sieve, stubs, work = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, stubs)
try:
    import urlfrontier_pb2 as pb
    import urlfrontier_pb2_grpc as pb_grpc
except ImportError as e:
    print("skipped: generated stubs cannot be imported:", e)
    sys.exit(SKIP)

DEADLINE = 20  # seconds, every call


def page(host, n):
    return "http://%s.example/%d" % (host, n)


# Three hosts, ten pages each; page n links to n+1 and n*2 on its host and to
# page n of the next host.
HOSTS = ["a", "b", "c"]
GRAPH = {}
for i, h in enumerate(HOSTS):
    nxt = HOSTS[(i + 1) % len(HOSTS)]
    for n in range(10):
        links = [page(h, m) for m in (n + 1, n * 2) if m < 10]
        links.append(page(nxt, n))
        GRAPH[page(h, n)] = links


def start_server(data):
    proc = subprocess.Popen(
        [sieve, "frontier", "serve", "--listen=127.0.0.1:0", "--data=" + data,
         "--queue-delay=0", "--log-level=warn"],
        stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()  # "listening on 127.0.0.1:PORT"
    if not line.startswith("listening on "):
        proc.kill()
        raise SystemExit("server did not start: %r" % line)
    return proc, line.strip().rsplit(":", 1)[1]


def put(stub, items):
    acks = list(stub.PutURLs(iter(items), timeout=DEADLINE))
    assert len(acks) == len(items), (len(acks), len(items))
    assert all(a.status == pb.AckMessage.OK for a in acks), acks


def discovered(url, source):
    info = pb.URLInfo(url=url, crawlID="pycrawl")
    info.metadata["source"].values.append(source)
    return pb.URLItem(discovered=pb.DiscoveredURLItem(info=info))


def done(url):
    info = pb.URLInfo(url=url, crawlID="pycrawl")
    return pb.URLItem(known=pb.KnownURLItem(info=info, refetchable_from_date=0))


def main():
    data = os.path.join(work, "python_client_data")
    shutil.rmtree(data, ignore_errors=True)
    proc, port = start_server(data)
    try:
        channel = grpc.insecure_channel("127.0.0.1:" + port)
        stub = pb_grpc.URLFrontierStub(channel)
        put(stub, [discovered(page("a", 0), "seed")])
        fetched = []
        for _ in range(200):  # bounded: the graph needs about 20 rounds
            params = pb.GetParams(max_urls_per_queue=2, max_queues=10,
                                  crawlID="pycrawl")
            batch = list(stub.GetURLs(params, timeout=DEADLINE))
            if not batch:
                stats = stub.GetStats(
                    pb.QueueWithinCrawlParams(crawlID="pycrawl"),
                    timeout=DEADLINE)
                if stats.size == 0 and stats.inProcess == 0:
                    break
                time.sleep(0.05)
                continue
            items = []
            for info in batch:
                assert info.crawlID == "pycrawl", info
                assert "source" in info.metadata, info
                fetched.append(info.url)
                items.append(done(info.url))
                items.extend(discovered(link, info.url)
                             for link in GRAPH[info.url])
            put(stub, items)
        assert sorted(fetched) == sorted(GRAPH), (
            "fetched %d pages, %d distinct, graph has %d" %
            (len(fetched), len(set(fetched)), len(GRAPH)))
        count = stub.CountURLs(pb.CountUrlParams(crawlID="pycrawl"),
                               timeout=DEADLINE)
        assert count.value == len(GRAPH), count
        status = stub.GetURLStatus(
            pb.URLStatusRequest(url=page("b", 3), crawlID="pycrawl"),
            timeout=DEADLINE)
        assert status.HasField("known"), status
        stats = stub.GetStats(pb.QueueWithinCrawlParams(crawlID="pycrawl"),
                              timeout=DEADLINE)
        assert stats.counts["completed"] == len(GRAPH), stats
        crawls = stub.ListCrawls(pb.Local(), timeout=DEADLINE)
        assert list(crawls.values) == ["pycrawl"], crawls
        print("python client: crawled %d pages through the server" %
              len(fetched))
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=20)
    assert code == 0, "server exit code %d" % code


if __name__ == "__main__":
    main()
