"""sieve.scrapy in real Scrapy crawls (Debian's Scrapy 2.8, a process per
crawl: scrapy_spider.py) of a loopback site (scrapy_site.py): every page once,
politeness held at the server (a host with Crawl-delay, one answering 429 with
Retry-After), dont_filter requests fetched again, and a crawl killed with
SIGKILL that resumes from its last checkpoint."""

import json
import os
import signal
import subprocess
import tempfile
import time
import unittest

from scrapy_site import Site

HERE = os.path.dirname(os.path.abspath(__file__))
DELAY = 0.2


def run_spider(config, tmp, name):
    """Starts scrapy_spider.py with `config`; returns the Popen."""
    path = os.path.join(tmp, f"{name}.json")
    config = dict(config, stats=os.path.join(tmp, f"{name}.stats.json"))
    with open(path, "w") as f:
        json.dump(config, f)
    with open(os.path.join(tmp, f"{name}.log"), "w") as log:
        return subprocess.Popen(["/usr/bin/python3", os.path.join(HERE, "scrapy_spider.py"), path],
                                stdout=log, stderr=subprocess.STDOUT, cwd=tmp)


def read_stats(tmp, name):
    with open(os.path.join(tmp, f"{name}.stats.json")) as f:
        return json.load(f)


def log_of(tmp, name):
    with open(os.path.join(tmp, f"{name}.log")) as f:
        return f.read()[-4000:]


class ScrapySchedulerTest(unittest.TestCase):
    def setUp(self):
        self.site = Site()
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.site.close()
        self.tmp.cleanup()

    def test_every_page_once_polite_at_the_server_and_dont_filter_refetched(self):
        a = self.site.add_host(8)
        self.site.add_host(4, crawl_delay=1)
        self.site.add_host(6, throttle_path="/p2", retry_after=1)
        refetch = a.url("/p3")
        p = run_spider({"start_urls": [h.url("/p0") for h in self.site.hosts], "refetch": refetch,
                        "settings": {"SIEVE_DELAY": DELAY}}, self.tmp.name, "crawl")
        self.assertEqual(p.wait(timeout=90), 0, log_of(self.tmp.name, "crawl"))
        counts = self.site.page_counts()
        want = {page: 1 for page in self.site.all_pages()}
        want[(a.name, "/p3")] = 2  # dont_filter
        self.assertEqual(counts, want, log_of(self.tmp.name, "crawl"))
        self.assertEqual(self.site.politeness_violations(DELAY), [])
        paths = [e[1] for e in self.site.requests()]
        self.assertNotIn("/private", paths)  # robots.txt obeyed
        self.assertEqual(paths.count("/robots.txt"), 3)
        statuses = [(e[1], e[2]) for e in self.site.requests() if e[0] == self.site.hosts[2].name]
        self.assertIn(("/p2", 429), statuses)
        stats = read_stats(self.tmp.name, "crawl")
        self.assertEqual(stats["sieve/throttled"], 1)
        self.assertGreater(stats["sieve/duplicates"], 0)
        self.assertNotIn("retry/count", stats)  # The frontier retried the 429, not Scrapy.

    def test_resumes_after_kill_9_refetching_only_what_followed_the_last_checkpoint(self):
        for _ in range(2):
            self.site.add_host(12, private=False)
        config = {"start_urls": [self.site.hosts[0].url("/p0")],
                  "settings": {"SIEVE_DELAY": DELAY, "SIEVE_CHECKPOINT_INTERVAL": 0.5,
                               "SIEVE_FRONTIER_DIR": os.path.join(self.tmp.name, "frontier")}}
        first = run_spider(config, self.tmp.name, "first")
        deadline = time.monotonic() + 60
        while sum(self.site.page_counts().values()) < 10 and first.poll() is None:
            self.assertLess(time.monotonic(), deadline, log_of(self.tmp.name, "first"))
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait()
        self.assertEqual(first.returncode, -signal.SIGKILL, "finished before the kill")
        before = sum(self.site.page_counts().values())

        second = run_spider(config, self.tmp.name, "second")
        self.assertEqual(second.wait(timeout=90), 0, log_of(self.tmp.name, "second"))
        counts = self.site.page_counts()
        self.assertEqual(set(counts), self.site.all_pages(), log_of(self.tmp.name, "second"))
        restored = read_stats(self.tmp.name, "second")["sieve/restored_dispatched"]
        self.assertGreater(restored, 0)
        twice = sum(c - 1 for c in counts.values())
        # Fetched again: at most what was dispatched after the last checkpoint,
        # plus what was in flight at it (one per host).
        self.assertLessEqual(twice, before - restored + len(self.site.hosts))
        self.assertLess(twice, before)


class SchedulerSettingsTest(unittest.TestCase):
    def open_scheduler(self, **settings):
        import scrapy
        from scrapy.utils.test import get_crawler
        from sieve.scrapy import Scheduler
        crawler = get_crawler(scrapy.Spider, settings_dict=settings)
        scheduler = Scheduler.from_crawler(crawler)
        scheduler.open(scrapy.Spider("s"))
        return scheduler

    def test_open_needs_the_frontier_middleware(self):
        with self.assertRaisesRegex(RuntimeError, "sieve.scrapy.FrontierMiddleware"):
            self.open_scheduler()

    def test_open_warns_about_settings_the_frontier_owns(self):
        with self.assertLogs("sieve.scrapy", "WARNING") as logs:
            scheduler = self.open_scheduler(
                DOWNLOADER_MIDDLEWARES={"sieve.scrapy.FrontierMiddleware": 950},
                AUTOTHROTTLE_ENABLED=True, DOWNLOAD_DELAY=2.5, DUPEFILTER_CLASS="my.DupeFilter")
        text = "\n".join(logs.output)
        for name in ("AUTOTHROTTLE_ENABLED", "DOWNLOAD_DELAY", "DUPEFILTER_CLASS"):
            self.assertIn(name, text)
        self.assertEqual(scheduler.delay, 2.5)  # DOWNLOAD_DELAY taken over
        scheduler.close("finished")

    def test_dedup_loses_no_request_past_the_expected_count(self):
        # RFPDupeFilter is exact, so the default must be too: lossless mode
        # (a coarse Bloom filter, each "maybe seen" confirmed by the exact
        # fingerprints) keeps every new request even far past
        # SIEVE_EXPECTED_REQUESTS, where a plain Bloom filter drops most.
        import scrapy
        scheduler = self.open_scheduler(
            DOWNLOADER_MIDDLEWARES={"sieve.scrapy.FrontierMiddleware": 950},
            SIEVE_EXPECTED_REQUESTS=100)
        requests = [scrapy.Request(f"http://h{i % 50}.test/p{i}") for i in range(5000)]
        self.assertEqual(sum(scheduler.enqueue_request(r) for r in requests), 5000)
        again = [scrapy.Request(f"http://h1.test/p{i}") for i in (1, 51, 4951)]
        self.assertEqual([scheduler.enqueue_request(r) for r in again], [False] * 3)
        self.assertTrue(scheduler.options["lossless"])
        scheduler.close("finished")

    def test_a_shared_seen_set_is_not_lossless_so_its_filter_is_fine(self):
        from scrapy.utils.test import get_crawler
        from sieve.scrapy import Scheduler
        scheduler = Scheduler.from_crawler(get_crawler(settings_dict={
            "SIEVE_CLUSTER_URL": "redis://127.0.0.1:1"}))
        self.assertFalse(scheduler.options["lossless"])
        self.assertEqual(scheduler.options["fp_rate"], 1e-6)


class RequestTransportTest(unittest.TestCase):
    def test_requests_travel_as_scrapys_own_dict(self):
        import scrapy
        from scrapy.utils.test import get_crawler
        from sieve.scrapy import _request_to_dict

        class Spider(scrapy.Spider):
            name = "s"

            def parse(self, response):
                pass

            def failed(self, failure):
                pass

        spider = Spider.from_crawler(get_crawler(Spider))
        for request in (scrapy.Request("http://h.test/a", callback=spider.parse, errback=spider.failed),
                        scrapy.Request("http://h.test/b"),
                        scrapy.FormRequest("http://h.test/c", formdata={"q": "1"}, callback=spider.parse,
                                           meta={"m": 1}, cb_kwargs={"k": 2}, dont_filter=True)):
            callback = request.callback
            self.assertEqual(_request_to_dict(request, spider), request.to_dict(spider=spider))
            self.assertEqual(request.callback, callback)  # Put back.
        stranger = scrapy.Request("http://h.test/d", callback=lambda response: None)
        with self.assertRaises(ValueError):  # As to_dict: not a method of the spider.
            _request_to_dict(stranger, spider)
        self.assertTrue(callable(stranger.callback))


if __name__ == "__main__":
    unittest.main()
