"""The installed package: `cmake --install --component python` into a fresh prefix, then a fresh
/usr/bin/python3 that sees only that prefix imports sieve and runs a small crawl schedule on it.
"""

import os
import subprocess
import tempfile
import unittest

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


class PackageTest(unittest.TestCase):
    def test_installed_package_imports_from_a_fresh_interpreter(self):
        build = os.environ["SIEVE_BUILD_DIR"]
        with tempfile.TemporaryDirectory() as prefix:
            subprocess.run(["cmake", "--install", build, "--component", "python", "--prefix", prefix],
                           check=True, capture_output=True)
            site = os.path.join(prefix, os.environ["SIEVE_PYTHON_INSTALL_DIR"])
            self.assertTrue(os.path.isfile(os.path.join(site, "sieve", "__init__.py")))
            env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": site, "PYTHONDONTWRITEBYTECODE": "1"}
            child = subprocess.run(["/usr/bin/python3", "-c", f"PREFIX = {prefix!r}\n" + CHILD],
                                   cwd="/", env=env, capture_output=True, text=True, timeout=60)
            self.assertEqual(child.returncode, 0, child.stderr)
            self.assertEqual(child.stdout.strip(), "['http://a.test/1', 'http://b.test/2']")


if __name__ == "__main__":
    unittest.main()
