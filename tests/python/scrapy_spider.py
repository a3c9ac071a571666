"""The spider the Scrapy tests run, in a process of its own (Twisted's reactor
cannot be restarted, and the resume test kills it with SIGKILL):

    /usr/bin/python3 scrapy_spider.py CONFIG.json

CONFIG: {"start_urls": [...], "settings": {...}, "refetch": URL or null,
"stats": path of the JSON file the crawl's stats are written to at close,
"barrier": {"dir": DIR, "count": N} or null: once the spider is open (its
scheduler too), it waits until N processes are, before its first request
(cluster_test.py starts its crawls at once, every process registered with the
shared frontier before any asks it for work)}.
"""

import json
import os
import sys
import time

import scrapy
from scrapy.crawler import CrawlerProcess


class SiteSpider(scrapy.Spider):
    name = "site"

    def __init__(self, config, **kwargs):
        super().__init__(**kwargs)
        self.config = config

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.wait_for_barrier, signal=scrapy.signals.spider_opened)
        return spider

    def wait_for_barrier(self, spider):
        barrier = self.config.get("barrier")
        if barrier:  # Blocks the reactor: nothing else runs in the process yet.
            open(os.path.join(barrier["dir"], str(os.getpid())), "w").close()
            deadline = time.monotonic() + 60
            while len(os.listdir(barrier["dir"])) < barrier["count"] and time.monotonic() < deadline:
                time.sleep(0.01)

    def start_requests(self):
        for url in self.config["start_urls"]:
            yield scrapy.Request(url, callback=self.parse)

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse)
        # One page asked for again, as a spider that re-checks a page does.
        if response.url == self.config.get("refetch") and not response.meta.get("refetched"):
            yield scrapy.Request(response.url, callback=self.parse, dont_filter=True,
                                 meta={"refetched": True})

    def closed(self, reason):
        if self.config.get("stats"):
            stats = {k: v for k, v in self.crawler.stats.get_stats().items()
                     if isinstance(v, (int, float, str))}
            with open(self.config["stats"], "w") as f:
                json.dump(stats, f)


def main():
    with open(sys.argv[1]) as f:
        config = json.load(f)
    settings = {
        "SCHEDULER": "sieve.scrapy.Scheduler",
        "DOWNLOADER_MIDDLEWARES": {"sieve.scrapy.FrontierMiddleware": 950},
        "ROBOTSTXT_OBEY": True,
        "LOG_LEVEL": "INFO",
        "TELNETCONSOLE_ENABLED": False,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
        "CONCURRENT_REQUESTS": 16,
    }
    settings.update(config.get("settings", {}))
    process = CrawlerProcess(settings)
    process.crawl(SiteSpider, config=config)
    process.start()


if __name__ == "__main__":
    main()
