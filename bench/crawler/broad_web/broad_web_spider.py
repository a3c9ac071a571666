"""Scrapy's side of the broad-web benchmark (bench/crawler/broad_web/broad_web_bench.sh):
every seed, then every link on *.web.test, once. Run with
  scrapy runspider broad_web_spider.py -a seeds=FILE -s DOWNLOAD_DELAY=0.5

Settings: the "Broad Crawls" page of Scrapy's documentation (docs/topics/broad-crawls.rst in
Scrapy 2.8: DownloaderAwarePriorityQueue, CONCURRENT_REQUESTS 100, REACTOR_THREADPOOL_MAXSIZE 20,
LOG_LEVEL INFO, cookies, retries and redirects off, DOWNLOAD_TIMEOUT 15, AJAXCRAWL_ENABLED),
plus the politeness the benchmark asks of every crawler: one request in flight per host,
DOWNLOAD_DELAY the same as Sieve's delay and not randomised, robots.txt obeyed.
"""
import scrapy

SCHEDSTAT = "/proc/thread-self/schedstat"


class BroadWebSpider(scrapy.Spider):
    name = "broad_web"
    allowed_domains = ["web.test"]
    custom_settings = {
        "SCHEDULER_PRIORITY_QUEUE": "scrapy.pqueues.DownloaderAwarePriorityQueue",
        "CONCURRENT_REQUESTS": 100,
        "REACTOR_THREADPOOL_MAXSIZE": 20,
        "LOG_LEVEL": "INFO",
        "COOKIES_ENABLED": False,
        "RETRY_ENABLED": False,
        "DOWNLOAD_TIMEOUT": 15,
        "REDIRECT_ENABLED": False,
        "AJAXCRAWL_ENABLED": True,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 1,
        "RANDOMIZE_DOWNLOAD_DELAY": False,
        "ROBOTSTXT_OBEY": True,
        "USER_AGENT": "ScrapyBench",
        "TELNETCONSOLE_ENABLED": False,
        "DNSCACHE_SIZE": 100000,
    }

    def start_requests(self):
        with open(self.seeds) as f:
            for line in f:
                if line.strip():
                    yield scrapy.Request(line.strip(), callback=self.parse)

    def parse(self, response):
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse)

    def closed(self, reason):
        # Scrapy's thread: its CPU time and its time runnable but waiting for a CPU (Linux's
        # schedstat, ns), so broad_web.py tells a crawler that idles from a busy machine.
        with open(SCHEDSTAT) as f:
            run_ns, wait_ns = f.read().split()[:2]
        self.logger.info("schedstat run_ns=%s wait_ns=%s", run_ns, wait_ns)
