"""sieve.scrapy: a Scrapy scheduler backed by sieve.Frontier.

Pinned to Debian 12's Scrapy 2.8: waking the engine when a host's delay is
over uses ``crawler.engine.slot.nextcall``, which is outside Scrapy's
scheduler contract.

Settings (docs/python.md, "Scrapy"):

    SCHEDULER = "sieve.scrapy.Scheduler"
    DOWNLOADER_MIDDLEWARES = {"sieve.scrapy.FrontierMiddleware": 950}

What the frontier owns from then on:
  - Dedup: on crawler.request_fingerprinter's fingerprint, exact like
    RFPDupeFilter but in a fraction of its memory: a Bloom filter
    (SIEVE_EXPECTED_REQUESTS, SIEVE_FP_RATE) whose every "maybe seen" is
    confirmed against the exact fingerprints, in RAM then on disk (SIEVE_LOSSLESS, default
    True: no request is lost, however far past SIEVE_EXPECTED_REQUESTS the
    crawl goes; SIEVE_FP_RATE defaults to 0.01 then, 1e-6 without it).
    DUPEFILTER_CLASS is ignored.
    ``dont_filter`` requests are queued again (and marked seen).
  - When each host is ready: SIEVE_DELAY seconds from the end of the host's
    last response (robots.txt's included), robots.txt's Crawl-delay, 429/503
    back-off with Retry-After, SIEVE_MAX_IN_FLIGHT_PER_HOST requests at once.
    The host is Scrapy's download slot: ``request.meta["download_slot"]``
    when set, else the URL's host name (ports share it, as in Scrapy).
  - Order: breadth-first FIFO across hosts; Request.priority is not used.
  - Persistence: with SIEVE_FRONTIER_DIR (default: JOBDIR/sieve) a checkpoint
    every SIEVE_CHECKPOINT_INTERVAL seconds and at close; a restart resumes
    from the last one.
  - Several processes, one crawl: with SIEVE_CLUSTER_URL ("redis://HOST:PORT")
    the frontier is a sieve.ClusterFrontier: every process running the spider
    with the same URL and SIEVE_CLUSTER_CRAWL_ID (default: the spider's name)
    shares the seen-set (a Bloom filter in Redis: SIEVE_LOSSLESS does not
    apply), the queued requests (pickled, so one process may fetch what
    another enqueued) and each host's delay (a host is fetched by one process
    at a time). The state is Redis's: no checkpoints are taken,
    SIEVE_FRONTIER_DIR only holds scratch space, and a process killed has its
    hosts and unfinished requests taken over by the others after
    SIEVE_CLUSTER_LEASE_SECONDS (a request is the crawl's until its response
    has left Scrapy, links enqueued). The shared seen-set filters ``dont_filter``
    requests too (each process runs the spider's start requests; the crawl
    fetches them once).
Requests travel as ``request.to_dict(spider=...)`` pickled into the frontier's
metadata; a request that cannot be (a callback that is not a spider method,
unpicklable meta) is kept in memory, counted in
``sieve/unserializable``, and lost on a restart.
"""

import logging
import os
import pickle
import time
from urllib.parse import urlsplit

from twisted.internet import reactor
from twisted.internet.task import LoopingCall, deferLater

from scrapy.exceptions import IgnoreRequest
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.request import request_from_dict

import sieve

logger = logging.getLogger(__name__)

_URL_KEY = "sieve_url"  # request.meta: the frontier URL to report done.
_PICKLED, _IN_MEMORY = b"P", b"M"


def host_of(request):
    """The politeness key: Scrapy's download slot (meta "download_slot", else
    the URL's host name, as Scrapy's downloader keys its slots)."""
    return request.meta.get("download_slot") or (urlparse_cached(request).hostname or "")


def _request_to_dict(request, spider):
    """request.to_dict(spider=spider), the same dict, without its cost per
    request: Scrapy 2.8 names a callback by walking every member of the
    spider (inspect.getmembers in _find_method), which was the larger part of
    this scheduler's CPU per request. A method's own name is tried first;
    anything else goes through Scrapy's own search (ValueError when the
    callback is not a method of the spider)."""
    callback, errback = request.callback, request.errback
    request.callback = _method_name(spider, callback)
    request.errback = _method_name(spider, errback)
    try:
        return request.to_dict(spider=spider)
    finally:
        request.callback, request.errback = callback, errback


def _method_name(spider, func):
    name = getattr(func, "__name__", None)
    bound = getattr(spider, name, None) if isinstance(name, str) else None
    own = getattr(func, "__func__", None)
    if own is not None and getattr(bound, "__func__", None) is own:
        return name
    return func  # Not found here: to_dict searches (or passes a non-callable through).


class Scheduler:
    """A Scrapy scheduler whose queue and duplicate filter are a sieve.Frontier.

    next_request returns only requests whose host may be fetched now; when
    every host is cooling down it wakes the engine itself when the next one
    is due. Needs FrontierMiddleware to report each request's outcome.
    """

    def __init__(self, crawler):
        self.crawler = crawler
        self.settings = s = crawler.settings
        self.stats = crawler.stats
        self.delay = s.getfloat("SIEVE_DELAY", s.getfloat("DOWNLOAD_DELAY") or 1.0)
        jobdir = s.get("JOBDIR")
        self.dir = s.get("SIEVE_FRONTIER_DIR") or (os.path.join(jobdir, "sieve") if jobdir else None)
        self.interval = s.getfloat("SIEVE_CHECKPOINT_INTERVAL", 30.0)
        self.cluster_url = s.get("SIEVE_CLUSTER_URL")
        # The shared seen-set in Redis is a Bloom filter only: no lossless
        # mode there, so a fine filter instead.
        lossless = s.getbool("SIEVE_LOSSLESS", True) and not self.cluster_url
        self.options = {
            "delay": self.delay,
            "max_in_flight_per_host": s.getint("SIEVE_MAX_IN_FLIGHT_PER_HOST", 1),
            "max_crawl_delay": s.getfloat("SIEVE_MAX_CRAWL_DELAY", 30.0),
            "expected_urls": s.getint("SIEVE_EXPECTED_REQUESTS", 1_000_000),
            "fp_rate": s.getfloat("SIEVE_FP_RATE", 0.01 if lossless else 1e-6),
            "lossless": lossless,
            # A request never reported done (a middleware that swallowed it)
            # comes back after this, so no host is blocked forever.
            "lease_timeout": s.getfloat("SIEVE_LEASE_TIMEOUT", 2 * s.getfloat("DOWNLOAD_TIMEOUT", 180) + 60),
        }
        self.frontier = None
        self.spider = None
        self._in_memory = {}
        self._next_memory_id = 0
        self._wake = None
        self._checkpointer = None
        self._robots_end = {}  # host -> monotonic end of its robots.txt fetch
        # Over Redis: since when the frontier's next has said "empty" (None:
        # it has not, or a request was enqueued since). The crawl is over
        # only after SIEVE_CLUSTER_IDLE_SECONDS of it: another process may be
        # between reporting a response and enqueueing its links.
        self._empty_since = None
        # Over Redis: requests done whose response Scrapy still processes
        # (request -> frontier URL); acknowledged once it is through.
        self._awaiting_record = {}
        self._acker = None
        self.idle_grace = s.getfloat("SIEVE_CLUSTER_IDLE_SECONDS", 2.0)

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    # -- Scrapy's scheduler interface ---------------------------------------

    def open(self, spider):
        self.spider = spider
        self._warn_about_settings_we_own()
        mws = self.settings.getwithbase("DOWNLOADER_MIDDLEWARES")
        if not any(k in ("sieve.scrapy.FrontierMiddleware", FrontierMiddleware) and v is not None
                   for k, v in mws.items()):
            raise RuntimeError(
                "sieve.scrapy.Scheduler needs DOWNLOADER_MIDDLEWARES = "
                '{"sieve.scrapy.FrontierMiddleware": 950}')
        options = dict(self.options)
        if self.dir:
            os.makedirs(self.dir, exist_ok=True)
            options["work_dir"] = os.path.join(self.dir, "work")
        if self.cluster_url:
            self._open_cluster(spider, options)
            return
        if self.dir and os.path.exists(os.path.join(self.dir, "CURRENT")):
            self.frontier = sieve.Frontier.restore(self.dir, **options)
            st = self.frontier.stats()
            self.stats.set_value("sieve/restored_dispatched", st["dispatched"])
            logger.info("sieve: resumed from %s (%d requests queued)", self.dir, st["queued"])
        else:
            self.frontier = sieve.Frontier(**options)
        if self.dir and self.interval > 0:
            self._checkpointer = LoopingCall(self.checkpoint)
            self._checkpointer.start(self.interval, now=False)

    def _open_cluster(self, spider, options):
        s = self.settings
        del options["lease_timeout"]  # A shard's next owner takes over instead.
        del options["lossless"]
        fingerprinter = s.get("REQUEST_FINGERPRINTER_IMPLEMENTATION")
        self.frontier = sieve.ClusterFrontier(
            self.cluster_url, crawl_id=s.get("SIEVE_CLUSTER_CRAWL_ID") or spider.name,
            worker_id=s.get("SIEVE_CLUSTER_WORKER_ID") or None,
            shards=s.getint("SIEVE_CLUSTER_SHARDS", 256),
            lease_seconds=s.getfloat("SIEVE_CLUSTER_LEASE_SECONDS", 10.0),
            fetch_slots=s.getint("CONCURRENT_REQUESTS"),
            # Processes that key or dedup requests otherwise must not share a crawl.
            shared_settings=f"scheduler = sieve.scrapy\nfingerprinter = {fingerprinter}\n",
            # A response's links are enqueued after done: the request stays
            # the crawl's until they are (a process killed in between has it
            # fetched again by another, links and all).
            ack_after_record=True, **options)
        self._acker = LoopingCall(self._record_written)
        self._acker.start(0.1, now=False)
        self.stats.set_value("sieve/cluster_worker", self.frontier.worker_id, spider=spider)
        logger.info("sieve: worker %s of the crawl in %s", self.frontier.worker_id, self.cluster_url)

    def close(self, reason):
        if self._checkpointer is not None and self._checkpointer.running:
            self._checkpointer.stop()
        if self._wake is not None and self._wake.active():
            self._wake.cancel()
        if self.frontier is None:
            return
        if self._acker is not None and self._acker.running:
            self._acker.stop()
        self._record_written(everything=True)
        if self.dir and not self.cluster_url:
            self.checkpoint()
        self._export_stats()
        self.frontier.close()
        self.frontier = None

    def has_pending_requests(self):
        if self.cluster_url:  # Other processes may hold the crawl's requests.
            return self._empty_since is None or time.monotonic() - self._empty_since < self.idle_grace
        st = self.frontier.stats()
        return st["queued"] + st["in_flight"] > 0

    def enqueue_request(self, request):
        # A copy of a request handed out before (a redirect, a retry) must
        # not report for the original.
        request.meta.pop(_URL_KEY, None)
        fingerprint = self.crawler.request_fingerprinter.fingerprint(request)
        try:
            metadata = _PICKLED + pickle.dumps(_request_to_dict(request, self.spider),
                                               protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # Scrapy keeps these in memory too.
            self._next_memory_id += 1
            metadata = _IN_MEMORY + f"{os.getpid()}/{self._next_memory_id}".encode()
            self.stats.inc_value("sieve/unserializable", spider=self.spider)
        if self.cluster_url:
            self._empty_since = None  # The crawl may have work again.
            queued = self.frontier.add(request.url, host=host_of(request), metadata=metadata,
                                       key=fingerprint)
        else:
            queued = self.frontier.add(request.url, host=host_of(request), metadata=metadata,
                                       key=fingerprint, dont_filter=request.dont_filter)
        if not queued:
            self.stats.inc_value("sieve/duplicates", spider=self.spider)
            return False
        if metadata[:1] == _IN_MEMORY:
            self._in_memory[metadata] = request
        self.stats.inc_value("scheduler/enqueued/sieve", spider=self.spider)
        self.stats.inc_value("scheduler/enqueued", spider=self.spider)
        return True

    def next_request(self):
        n = self.frontier.next()
        if self.cluster_url and n.state == "empty":
            if self._empty_since is None:
                self._empty_since = time.monotonic()
            self._wake_engine_in(0.1)  # Asks again until idle_grace is over.
        elif self.cluster_url:
            self._empty_since = None
        if n.state == "wait":
            self._wake_engine_in(n.wait)
        if n.state != "ready":
            return None
        if n.metadata[:1] == _IN_MEMORY:
            request = self._in_memory.pop(n.metadata, None)
            if request is None:  # Lost with the process that held it.
                self.stats.inc_value("sieve/unserializable_lost", spider=self.spider)
                self.frontier.done(n.url, "not_fetched")
                return None
        else:
            request = request_from_dict(pickle.loads(n.metadata[1:]), spider=self.spider)
        request.meta[_URL_KEY] = n.url
        self.stats.inc_value("scheduler/dequeued/sieve", spider=self.spider)
        self.stats.inc_value("scheduler/dequeued", spider=self.spider)
        return request

    def __len__(self):
        return self.frontier.stats()["queued"] if self.frontier else 0

    # -- What FrontierMiddleware calls ---------------------------------------

    def delay_before(self, request):
        """Seconds request must still wait: its host's robots.txt answer
        counts as the host's request."""
        end = self._robots_end.get(host_of(request))
        if end is None:
            return 0.0
        return end - time.monotonic()

    def report(self, request, outcome, retry_after=None, transient=False):
        """Reports the end of a request next_request handed out; returns the
        frontier's fate ("finished", "retry_later", "given_up") or None for a
        request the frontier did not hand out."""
        url = request.meta.pop(_URL_KEY, None)
        if url is None or self.frontier is None:
            return None
        try:
            fate = self.frontier.done(url, outcome, retry_after=retry_after, transient=transient)
        except KeyError:  # Its lease ran out: it was queued again.
            return None
        if self.cluster_url and fate != "retry_later" and outcome != "not_fetched":
            self._awaiting_record[request] = url
        return fate

    def robots_fetched(self, request, response):
        """robots.txt of a host answered: its Crawl-delay is obeyed, and the
        host's next request waits the delay after this answer."""
        host = host_of(request)
        crawl_delay = 0.0
        if response.status == 200:
            try:
                from protego import Protego
                ua = self.settings.get("ROBOTSTXT_USER_AGENT") or self.settings.get("USER_AGENT")
                crawl_delay = Protego.parse(response.text).crawl_delay(ua) or 0.0
            except Exception:  # A robots.txt that does not parse sets no delay.
                crawl_delay = 0.0
            self.frontier.set_crawl_delay(host, float(crawl_delay))
        wait = max(self.delay, min(float(crawl_delay), self.options["max_crawl_delay"]))
        self._robots_end[host] = time.monotonic() + wait
        if not self.cluster_url:  # The host is this process's shard's: _robots_end holds it.
            self.frontier.block_host(host, time.time() + wait)

    def checkpoint(self):
        if self.frontier is not None and self.dir and not self.cluster_url:
            self.frontier.checkpoint(self.dir)
            self.stats.inc_value("sieve/checkpoints", spider=self.spider)
            self._export_stats()

    # -- Internals -------------------------------------------------------------

    def _record_written(self, everything=False):
        """Acknowledges the requests done whose response (or failure) has left
        Scrapy: neither in the downloader (its middlewares) nor in the
        scraper (the callback, its requests enqueued). Reads the engine's
        internals (Scrapy 2.8)."""
        if not self._awaiting_record or self.frontier is None:
            return
        busy = set()
        if not everything:
            engine = self.crawler.engine
            busy = set(engine.downloader.active)
            scraper_slot = getattr(engine.scraper, "slot", None)
            if scraper_slot is not None:
                busy |= scraper_slot.active
        for request in [r for r in self._awaiting_record if r not in busy]:
            url = self._awaiting_record.pop(request)
            try:
                self.frontier.record_written(url)
            except KeyError:  # Its shard went to another process meanwhile.
                pass

    def _wake_engine_in(self, seconds):
        due = time.monotonic() + seconds
        if self._wake is not None and self._wake.active():
            if self._wake_due <= due:
                return
            self._wake.cancel()
        self._wake_due = due
        self._wake = reactor.callLater(seconds, self._wake_engine)

    def _wake_engine(self):
        self._wake = None
        slot = getattr(self.crawler.engine, "slot", None)
        if slot is not None and slot.nextcall is not None:
            slot.nextcall.schedule()

    def _export_stats(self):
        for name, value in self.frontier.stats().items():
            self.stats.set_value(f"sieve/{name}", value, spider=self.spider)

    def _warn_about_settings_we_own(self):
        s = self.settings
        if s.getbool("AUTOTHROTTLE_ENABLED"):
            logger.warning("sieve: AUTOTHROTTLE_ENABLED: the frontier sets each host's delay; "
                           "AutoThrottle's only slows it further")
        if s.getfloat("DOWNLOAD_DELAY") > 0:
            logger.warning("sieve: DOWNLOAD_DELAY=%s is taken as SIEVE_DELAY; Scrapy still applies its "
                           "own (from the start of a request), which only slows the crawl. Set it to 0",
                           s.getfloat("DOWNLOAD_DELAY"))
        if s.get("DUPEFILTER_CLASS") != "scrapy.dupefilters.RFPDupeFilter":
            logger.warning("sieve: DUPEFILTER_CLASS %s is ignored: the frontier dedups",
                           s.get("DUPEFILTER_CLASS"))
        if self.cluster_url and s.getbool("SIEVE_LOSSLESS", False):
            logger.warning("sieve: SIEVE_LOSSLESS does not apply with SIEVE_CLUSTER_URL: the shared "
                           "seen-set is a Bloom filter (SIEVE_FP_RATE, default 1e-6)")
        if s.getint("CONCURRENT_REQUESTS_PER_DOMAIN") < self.options["max_in_flight_per_host"]:
            logger.warning("sieve: CONCURRENT_REQUESTS_PER_DOMAIN is below SIEVE_MAX_IN_FLIGHT_PER_HOST")


class FrontierMiddleware:
    """Reports each request's outcome to the Scheduler's frontier: the
    answer's status (429/503 back the host off, with Retry-After), or an
    error. A throttled request the frontier will retry is dropped here
    (IgnoreRequest), so Scrapy's RetryMiddleware does not retry it too.

    Order: near the downloader (950), so it sees answers before the other
    middlewares and requests after them.
    """

    def __init__(self, crawler):
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler):
        return cls(crawler)

    def _scheduler(self):
        engine = self.crawler.engine
        slot = getattr(engine, "slot", None)
        scheduler = getattr(slot, "scheduler", None)
        return scheduler if isinstance(scheduler, Scheduler) else None

    def process_request(self, request, spider):
        scheduler = self._scheduler()
        if scheduler is None or _URL_KEY not in request.meta:
            return None
        wait = scheduler.delay_before(request)
        if wait > 0:  # Right after the host's robots.txt.
            return deferLater(reactor, wait, lambda: None)
        return None

    def process_response(self, request, response, spider):
        scheduler = self._scheduler()
        if scheduler is None:
            return response
        if _URL_KEY not in request.meta:
            if urlsplit(request.url).path == "/robots.txt":
                scheduler.robots_fetched(request, response)
            return response
        retry_after = _retry_after(response) if response.status in (429, 503) else None
        fate = scheduler.report(request, response.status, retry_after=retry_after)
        if response.status in (429, 503):
            if fate == "retry_later":
                raise IgnoreRequest(f"sieve: {response.status}, the frontier retries it later")
            request.meta["dont_retry"] = True
        return response

    def process_exception(self, request, exception, spider):
        scheduler = self._scheduler()
        if scheduler is not None and not isinstance(exception, IgnoreRequest):
            # Over Redis the shared seen-set drops RetryMiddleware's copy
            # (dont_filter): the frontier retries the request itself.
            scheduler.report(request, "error", transient=bool(scheduler.cluster_url))
        elif scheduler is not None:
            scheduler.report(request, "not_fetched")
        return None


def _retry_after(response):
    """Retry-After in seconds (delta-seconds or an HTTP date), or None."""
    value = response.headers.get(b"Retry-After")
    if not value:
        return None
    value = value.decode("latin-1").strip()
    if value.isdigit():
        return float(value)
    from email.utils import parsedate_to_datetime
    try:
        return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError):
        return None
