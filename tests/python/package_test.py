"""The installed package: `cmake --install --component python` into a fresh prefix, then a fresh
/usr/bin/python3 that sees only that prefix imports sieve and runs a small crawl schedule on it,
and runs a Scrapy spider (scrapy_spider.py) with sieve.scrapy.Scheduler on a loopback site.
"""

import json
import os
import subprocess
import tempfile
import unittest

from scrapy_site import Site

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = """
import sieve
assert sieve.__file__.startswith(PREFIX), sieve.__file__
with sieve.Frontier(delay=0) as f:
    f.add_many(["http://a.test/1", "http://b.test/2", "http://a.test/1"])
    got = []
    while (n := f.next(now=1.0)).state == "ready":
        got.append(n.url)
        f.done(n.url, 200, now=1.0)
print(sorted(got))
"""


def install(prefix):
    """Installs the python component into `prefix`; returns the environment of
    a fresh interpreter that sees only it."""
    subprocess.run(["cmake", "--install", os.environ["SIEVE_BUILD_DIR"], "--component", "python",
                    "--prefix", prefix], check=True, capture_output=True)
    site = os.path.join(prefix, os.environ["SIEVE_PYTHON_INSTALL_DIR"])
    assert os.path.isfile(os.path.join(site, "sieve", "scrapy.py")), site
    return {"PATH": "/usr/bin:/bin", "PYTHONPATH": site, "PYTHONDONTWRITEBYTECODE": "1"}


class PackageTest(unittest.TestCase):
    def test_installed_package_imports_from_a_fresh_interpreter(self):
        with tempfile.TemporaryDirectory() as prefix:
            env = install(prefix)
            child = subprocess.run(["/usr/bin/python3", "-c", f"PREFIX = {prefix!r}\n" + CHILD],
                                   cwd="/", env=env, capture_output=True, text=True, timeout=60)
            self.assertEqual(child.returncode, 0, child.stderr)
            self.assertEqual(child.stdout.strip(), "['http://a.test/1', 'http://b.test/2']")

    def test_installed_package_runs_a_scrapy_spider_with_the_scheduler(self):
        site = Site()
        try:
            for _ in range(2):
                site.add_host(3)
            with tempfile.TemporaryDirectory() as prefix:
                env = install(prefix)
                config = os.path.join(prefix, "config.json")
                with open(config, "w") as f:
                    json.dump({"start_urls": [site.hosts[0].url("/p0")],
                               "settings": {"SIEVE_DELAY": 0.1}}, f)
                child = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "scrapy_spider.py"), config],
                                       cwd=prefix, env=env, capture_output=True, text=True, timeout=120)
                self.assertEqual(child.returncode, 0, child.stderr[-3000:])
                self.assertIn("sieve.scrapy.FrontierMiddleware", child.stderr)
            self.assertEqual(site.page_counts(), {page: 1 for page in site.all_pages()})
        finally:
            site.close()


if __name__ == "__main__":
    unittest.main()
