"""sieve.Frontier: the per-host politeness scheduler through Python (python/bind_frontier.cc).

The clock is injected (now=, Unix seconds), so these tests are deterministic.
"""

import subprocess
import sys
import tempfile
import unittest

import sieve

T0 = 1_000_000.0


class FrontierTest(unittest.TestCase):
    def test_hands_out_urls_with_their_metadata_and_spaces_one_host(self):
        with sieve.Frontier(delay=2.0) as f:
            self.assertTrue(f.add("http://a.test/1", metadata=b"\x01one"))
            self.assertTrue(f.add("http://a.test/2", depth=3))
            self.assertFalse(f.add("http://a.test/1"))  # seen
            n = f.next(now=T0)
            self.assertEqual((n.state, n.url, n.host, n.metadata), ("ready", "http://a.test/1", "a.test", b"\x01one"))
            self.assertEqual(f.next(now=T0).state, "wait_for_done")  # one request per host at once
            self.assertEqual(f.done(n.url, 200, now=T0 + 1), "finished")
            w = f.next(now=T0 + 1.5)  # the delay counts from the end of the response
            self.assertEqual(w.state, "wait")
            self.assertAlmostEqual(w.wait, 1.5, places=3)
            n2 = f.next(now=T0 + 3)
            self.assertEqual((n2.state, n2.url, n2.depth), ("ready", "http://a.test/2", 3))
            f.done(n2.url, "success", now=T0 + 3)
            self.assertEqual(f.next(now=T0 + 10).state, "empty")

    def test_dont_filter_queues_a_seen_url_again_and_marks_a_new_one_seen(self):
        with sieve.Frontier(delay=0) as f:
            self.assertTrue(f.add("http://d.test/"))
            self.assertFalse(f.add("http://d.test/"))
            self.assertTrue(f.add("http://d.test/", metadata=b"again", dont_filter=True))
            self.assertTrue(f.add("http://e.test/", dont_filter=True))
            self.assertFalse(f.add("http://e.test/"))
            got = []
            while (n := f.next(now=T0)).state == "ready":
                got.append((n.url, n.metadata))
                f.done(n.url, 200, now=T0)
            self.assertEqual(sorted(got), [("http://d.test/", b""), ("http://d.test/", b"again"), ("http://e.test/", b"")])

    def test_key_is_what_the_seen_test_checks(self):
        with sieve.Frontier(delay=0) as f:
            self.assertTrue(f.add("http://k.test/a", key=b"fp1"))
            self.assertFalse(f.add("http://k.test/b", key=b"fp1"))
            self.assertTrue(f.add("http://k.test/a", key="fp2"))
            self.assertFalse(f.add("http://k.test/c", key="fp2", dont_filter=False))
            self.assertTrue(f.add("http://k.test/c", key="fp2", dont_filter=True))

    def test_lease_timeout_puts_back_a_url_never_done(self):
        with sieve.Frontier(delay=0, lease_timeout=30) as f:
            f.add("http://l.test/")
            self.assertEqual(f.next(now=T0).url, "http://l.test/")
            n = f.next(now=T0 + 1)
            self.assertEqual((n.state, n.wait), ("wait", 29))
            self.assertEqual(f.next(now=T0 + 30).url, "http://l.test/")
            self.assertEqual(f.stats()["reclaimed"], 1)
        with self.assertRaises(ValueError):
            sieve.Frontier(lease_timeout=-1)

    def test_hosts_do_not_wait_for_each_other(self):
        with sieve.Frontier(delay=5.0) as f:
            self.assertEqual(f.add_many(["http://a.test/", "http://B.test:8080/x", "http://a.test/"],
                                        metadata=[b"a", b"b", b"c"]), [True, True, False])
            a = f.next(now=T0)
            b = f.next(now=T0)
            self.assertEqual((a.url, b.url, b.host, b.metadata), ("http://a.test/", "http://B.test:8080/x", "b.test:8080", b"b"))

    def test_429_with_retry_after_backs_the_host_off_and_retries(self):
        with sieve.Frontier(delay=0.5, backoff_base=1.0, backoff_jitter=0) as f:
            f.add("http://t.test/p")
            n = f.next(now=T0)
            self.assertEqual(f.done(n.url, 429, retry_after=30, now=T0), "retry_later")
            w = f.next(now=T0 + 1)
            self.assertEqual(w.state, "wait")
            self.assertGreaterEqual(w.wait, 29 - 1e-6)
            again = f.next(now=T0 + 30)
            self.assertEqual((again.state, again.url), ("ready", "http://t.test/p"))
            self.assertEqual(f.stats()["throttled"], 1)

    def test_crawl_delay_spaces_the_host(self):
        with sieve.Frontier(delay=1.0) as f:
            f.set_crawl_delay("c.test", 10)
            f.add_many(["http://c.test/1", "http://c.test/2"])
            n = f.next(now=T0)
            f.done(n.url, 200, now=T0)
            w = f.next(now=T0 + 1)
            self.assertEqual(w.state, "wait")
            self.assertAlmostEqual(w.wait, 9, places=3)

    def test_errors_map_to_python_exceptions(self):
        with self.assertRaises(ValueError):
            sieve.Frontier(max_in_flight_per_host=0)
        with self.assertRaises(ValueError):
            sieve.Frontier(delay=-1)
        with self.assertRaises(ValueError):
            sieve.Frontier(expected_urls=0)
        with self.assertRaisesRegex(TypeError, "unknown Frontier option 'dealy'"):
            sieve.Frontier(dealy=1)
        with sieve.Frontier() as f:
            with self.assertRaises(KeyError):
                f.done("http://never.test/", 200)
            with self.assertRaises(ValueError):
                f.add("no-scheme")
            with self.assertRaises(ValueError):
                f.done("http://x/", "exploded")
        with self.assertRaisesRegex(sieve.Error, "closed"):
            f.next()

    def test_checkpoint_and_restore_requeue_what_was_in_flight(self):
        with tempfile.TemporaryDirectory() as d:
            f = sieve.Frontier(delay=0)
            f.add_many([f"http://h{i % 3}.test/{i}" for i in range(9)], metadata=[b"m%d" % i for i in range(9)])
            first = f.next(now=T0)
            f.checkpoint(d)
            f.close()
            with sieve.Frontier.restore(d, delay=0) as r:
                self.assertFalse(r.add(first.url))  # the filter came back
                seen = []
                now = T0
                while True:
                    n = r.next(now=now)
                    if n.state == "empty":
                        break
                    if n.state == "ready":
                        seen.append((n.url, n.metadata))
                        r.done(n.url, 200, now=now)
                    now += 1
                self.assertEqual(sorted(seen), sorted((f"http://h{i % 3}.test/{i}", b"m%d" % i) for i in range(9)))
                self.assertEqual(r.stats()["added"], 9)

    def test_stats_and_filter_stats(self):
        with sieve.Frontier(expected_urls=1000) as f:
            f.add_many([f"http://s.test/{i}" for i in range(10)])
            s = f.stats()
            self.assertEqual((s["added"], s["queued"]), (10, 10))
            self.assertIn("in_flight", s)
            self.assertEqual(f.filter_stats()["capacity"], 1000)

    def test_the_gil_is_released_while_a_restore_blocks(self):
        # The checkpoint's CURRENT file (naming the snapshot to read) is replaced by a named pipe
        # that only a second Python thread feeds: Frontier.restore blocks reading it until that thread runs, which it can only do
        # if restore released the GIL. Held, the two deadlock: the child is killed at the timeout.
        with tempfile.TemporaryDirectory() as d:
            child = subprocess.run([sys.executable, "-c", GIL_CHILD, d], timeout=30, capture_output=True, text=True)
            self.assertEqual(child.returncode, 0, child.stderr)
            self.assertIn("restored 2 urls", child.stdout)


# Run by test_the_gil_is_released_while_a_restore_blocks in a child, so a deadlock is a timeout.
GIL_CHILD = """
import os, sys, threading
import sieve
d = sys.argv[1]
f = sieve.Frontier(delay=0)
f.add_many(["http://a.test/1", "http://b.test/2"])
f.checkpoint(d)
f.close()
path = os.path.join(d, "CURRENT")
data = open(path, "rb").read()
os.remove(path)
os.mkfifo(path)
def feed():
    with open(path, "wb") as pipe:  # blocks until restore opens the pipe
        pipe.write(data)
writer = threading.Thread(target=feed)
writer.start()
r = sieve.Frontier.restore(d, delay=0)
writer.join()
print("restored", r.stats()["queued"], "urls")
"""

if __name__ == "__main__":
    unittest.main()
