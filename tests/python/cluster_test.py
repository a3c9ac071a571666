"""sieve.ClusterFrontier (python/bind_cluster.cc) and sieve.scrapy.Scheduler
with SIEVE_CLUSTER_URL: several processes over one real redis-server, which
the test starts itself on 127.0.0.1.

The two-process test runs two Scrapy crawls (scrapy_spider.py, Debian's
Scrapy 2.8) of the loopback site (scrapy_site.py) at once, sharing one crawl
in Redis: every page is fetched once across both, both fetch, and each host's
delay holds at the server across the two processes.
"""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

import sieve
from scrapy_site import Site
from scrapy_test import DELAY, log_of, read_stats, run_spider

REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"
T0 = 1_000_000.0


class RedisServer:
    """redis-server on 127.0.0.1, a free port, a temporary directory."""

    def __init__(self):
        self.dir = tempfile.TemporaryDirectory()
        for _ in range(5):  # A port taken between probe and bind: try another.
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                self.port = s.getsockname()[1]
            self.process = subprocess.Popen(
                [REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir.name,
                 "--save", "", "--appendonly", "no", "--daemonize", "no"],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if self._wait_for_ping():
                return
            self.process.kill()
            self.process.wait()
        raise RuntimeError("redis-server did not start")

    def _wait_for_ping(self):
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return True
            except OSError:
                time.sleep(0.05)
        return False

    @property
    def url(self):
        return f"redis://127.0.0.1:{self.port}"

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)
        self.dir.cleanup()


@unittest.skipUnless(os.path.exists(REDIS), "redis-server is not installed (scripts/install-deps.sh)")
class ClusterTest(unittest.TestCase):
    def setUp(self):
        self.redis = RedisServer()
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.redis.close()
        self.tmp.cleanup()

    def worker(self, name, **options):
        options = {"crawl_id": "c", "delay": 0, **options}
        return sieve.ClusterFrontier(self.redis.url, worker_id=name, shards=4,
                                     work_dir=os.path.join(self.tmp.name, name), **options)

    def test_a_url_added_by_one_worker_is_handed_out_with_its_metadata_and_seen_by_all(self):
        with self.worker("a") as a, self.worker("b") as b:
            self.assertTrue(a.add("http://x.test/1", metadata=b"\x00meta"))
            self.assertFalse(b.add("http://x.test/1"))  # the seen-set is shared
            self.assertEqual(b.add_many(["http://x.test/1", "http://y.test/2"], [b"m1", b"m2"]), [False, True])
            self.assertTrue(a.add("http://k.test/a", key=b"fp1"))
            self.assertFalse(b.add("http://k.test/b", key=b"fp1"))  # key is what the seen-test checks
            got = {}
            deadline = time.monotonic() + 20
            while len(got) < 3:
                self.assertLess(time.monotonic(), deadline, got)
                for w in (a, b):
                    n = w.next()
                    if n.state == "ready":
                        got[n.url] = n.metadata
                        self.assertEqual(w.done(n.url, 200), "finished")
                time.sleep(0.01)
            self.assertEqual(got, {"http://x.test/1": b"\x00meta", "http://y.test/2": b"m2", "http://k.test/a": b""})
            stats = a.stats()
            self.assertEqual((stats["added"], stats["duplicates"]), (2, 0))
            self.assertEqual(b.stats()["duplicates"], 3)
            while (n := a.next()).state != "empty":
                self.assertEqual(n.state, "wait")
                time.sleep(0.05)

    def test_bad_options_and_an_unreachable_server_raise(self):
        with self.assertRaises(ValueError):
            sieve.ClusterFrontier("http://127.0.0.1:1", crawl_id="c")
        with self.assertRaises(ValueError):
            sieve.ClusterFrontier(self.redis.url, crawl_id="")
        with self.assertRaises(ValueError):
            self.worker("a", delay=-1)
        with self.assertRaisesRegex(ValueError, "max_in_flight_per_host"):
            self.worker("a", max_in_flight_per_host=0)  # checked at once, not when a shard is taken
        with self.assertRaises(TypeError):
            self.worker("a", lossless=True)  # a local Frontier's option
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            closed = s.getsockname()[1]
        with self.assertRaises(sieve.Error):
            sieve.ClusterFrontier(f"redis://127.0.0.1:{closed}", crawl_id="c", connect_timeout=0.5)
        f = self.worker("a")
        f.close()
        with self.assertRaises(sieve.Error):
            f.next()

    def test_workers_that_disagree_on_shared_settings_cannot_share_a_crawl(self):
        with self.worker("a", shared_settings="fingerprinter = 2.7\n"):
            with self.assertRaisesRegex(sieve.Error, "fingerprinter"):
                self.worker("b", shared_settings="fingerprinter = 2.6\n")

    def test_next_releases_the_gil_while_redis_does_not_answer(self):
        with self.worker("a", command_timeout=1.0) as a:
            a.add("http://g.test/")
            ticks, stop = [], threading.Event()

            def tick():
                while not stop.is_set():
                    ticks.append(time.monotonic())
                    time.sleep(0.01)

            os.kill(self.redis.process.pid, signal.SIGSTOP)
            try:
                t = threading.Thread(target=tick)
                t.start()
                started = time.monotonic()
                n = a.next()  # reads the shard's stream: waits for the reply
                blocked = time.monotonic() - started
                stop.set()
                t.join()
            finally:
                os.kill(self.redis.process.pid, signal.SIGCONT)
            self.assertEqual(n.state, "wait")
            self.assertGreater(blocked, 0.5)
            self.assertGreater(len([x for x in ticks if x < started + blocked]), 10)

    def run_two_spiders(self, start, settings):
        """Two crawls of start over the cluster, each process's requests
        marked by its User-Agent; both start crawling once both are up."""
        barrier = {"dir": os.path.join(self.tmp.name, "barrier"), "count": 2}
        os.makedirs(barrier["dir"])
        return {name: run_spider({"start_urls": start, "barrier": barrier,
                                  "settings": dict(settings, USER_AGENT=name)}, self.tmp.name, name)
                for name in ("worker-a", "worker-b")}

    def test_two_scrapy_processes_fetch_every_page_once_and_hold_politeness_at_the_server(self):
        site = Site()
        self.addCleanup(site.close)
        for i in range(8):
            site.add_host(6, private=False, crawl_delay=0.5 if i == 0 else None)
        start = [h.url("/p0") for h in site.hosts]
        settings = {"SIEVE_DELAY": DELAY, "SIEVE_CLUSTER_URL": self.redis.url, "SIEVE_CLUSTER_LEASE_SECONDS": 1}
        runs = self.run_two_spiders(start, settings)
        for name, p in runs.items():
            self.assertEqual(p.wait(timeout=90), 0, log_of(self.tmp.name, name))
        logs = "\n".join(log_of(self.tmp.name, name) for name in runs)
        self.assertEqual(site.page_counts(), {page: 1 for page in site.all_pages()}, logs)
        self.assertEqual(site.politeness_violations(DELAY), [], logs)
        by_agent = {}
        for entry in site.requests():
            if entry[1] != "/robots.txt":
                by_agent[entry[5]] = by_agent.get(entry[5], 0) + 1
        self.assertEqual(set(by_agent), set(runs), f"{by_agent}\n{logs}")  # both processes fetched
        # Each process enqueued every start URL (dont_filter, as Scrapy makes
        # them): the shared seen-set let each through once.
        duplicates = sum(read_stats(self.tmp.name, name).get("sieve/duplicates", 0) for name in runs)
        self.assertGreaterEqual(duplicates, len(start))

    def test_the_requests_of_a_process_killed_with_kill_9_are_taken_over_by_the_other(self):
        site = Site()
        self.addCleanup(site.close)
        for _ in range(8):
            site.add_host(6, private=False)
        start = [h.url("/p0") for h in site.hosts]
        settings = {"SIEVE_DELAY": DELAY, "SIEVE_CLUSTER_URL": self.redis.url, "SIEVE_CLUSTER_LEASE_SECONDS": 1}
        runs = self.run_two_spiders(start, settings)
        deadline = time.monotonic() + 60
        while sum(1 for e in site.requests() if e[5] == "worker-a" and e[1] != "/robots.txt") < 3:
            self.assertLess(time.monotonic(), deadline, log_of(self.tmp.name, "worker-a"))
            self.assertIsNone(runs["worker-a"].poll(), log_of(self.tmp.name, "worker-a"))
            time.sleep(0.02)
        runs["worker-a"].send_signal(signal.SIGKILL)
        runs["worker-a"].wait()
        self.assertEqual(runs["worker-b"].wait(timeout=90), 0, log_of(self.tmp.name, "worker-b"))
        counts = site.page_counts()
        self.assertEqual(set(counts), site.all_pages(), log_of(self.tmp.name, "worker-b"))
        # Fetched twice: at most what the killed process had in flight (one request per host).
        self.assertLessEqual(sum(c - 1 for c in counts.values()), len(site.hosts), counts)
        self.assertEqual(site.politeness_violations(DELAY), [])
        self.assertGreater(read_stats(self.tmp.name, "worker-b")["sieve/reclaimed"], 0)


if __name__ == "__main__":
    unittest.main()
