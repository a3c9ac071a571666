"""sieve.Sieve: the Bloom-filter-guarded FIFO through Python (python/bind_sieve.cc)."""

import tempfile
import unittest
import warnings

import sieve


class SieveTest(unittest.TestCase):
    def test_push_drops_what_was_seen_and_pop_is_fifo(self):
        with sieve.Sieve(expected_urls=1000) as s:
            self.assertTrue(s.push("http://a/"))
            self.assertTrue(s.push("http://b/", b"\x00payload"))
            self.assertFalse(s.push("http://a/"))
            self.assertEqual(len(s), 2)
            self.assertIn("http://a/", s)
            self.assertEqual(s.pop(), "http://a/")
            self.assertEqual(s.pop_entry(), ("http://b/", b"\x00payload"))
            self.assertIsNone(s.pop())
            stats = s.stats()
            self.assertEqual((stats["pushed"], stats["queued"], stats["dropped_as_seen"]), (3, 2, 1))

    def test_push_many_in_one_batch(self):
        with sieve.Sieve(expected_urls=1000) as s:
            self.assertEqual(s.push_many(["a", "b", "a"], [b"1", b"2", b"3"]), [True, True, False])
            self.assertEqual(s.pop_entry(), ("a", b"1"))
            with self.assertRaises(ValueError):
                s.push_many(["x"], [b"1", b"2"])

    def test_lossless_mode_loses_nothing_past_capacity(self):
        # A filter sized for 100 URLs holding 20,000 answers "maybe seen" for most new ones; the
        # lossless Sieve confirms each against exact fingerprints and queues every URL.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sieve.CapacityWarning)
            with sieve.Sieve(expected_urls=100, lossless=True) as s:
                urls = [f"http://h/{i}" for i in range(20_000)]
                self.assertTrue(all(s.push_many(urls)))
                self.assertEqual(len(s), 20_000)
                self.assertGreater(s.stats()["false_positives_caught"], 0)
            with sieve.Sieve(expected_urls=100, lossless=False) as lossy:
                self.assertLess(sum(lossy.push_many(urls)), 20_000)

    def test_spills_past_the_memory_budget_and_comes_back_in_order(self):
        with tempfile.TemporaryDirectory() as d:
            with sieve.Sieve(expected_urls=10_000, memory_budget_bytes=64 << 10, work_dir=d, lossless=True) as s:
                urls = [f"http://h/{i:05d}" for i in range(5000)]
                s.push_many(urls)
                self.assertGreater(s.stats()["spilled"], 0)
                self.assertEqual([s.pop() for _ in range(5000)], urls)

    def test_checkpoint_and_restore(self):
        with tempfile.TemporaryDirectory() as d:
            s = sieve.Sieve(expected_urls=1000)
            s.push_many(["a", "b", "c"])
            self.assertEqual(s.pop(), "a")
            s.checkpoint(d)
            s.close()
            with sieve.Sieve.restore(d) as r:
                self.assertFalse(r.push("a"))  # still seen
                self.assertEqual([r.pop(), r.pop(), r.pop()], ["b", "c", None])
            with self.assertRaises(ValueError):
                sieve.Sieve.restore(d, lossless=True)

    def test_errors(self):
        with self.assertRaises(ValueError):
            sieve.Sieve(expected_urls=0)
        with self.assertRaises(ValueError):
            sieve.Sieve(fp_rate=0)
        with self.assertRaises(ValueError):
            sieve.Sieve(filter_kind="nope")
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaisesRegex(KeyError, "no checkpoint"):
                sieve.Sieve.restore(d + "/none")
        s = sieve.Sieve(expected_urls=10)
        s.close()
        with self.assertRaisesRegex(sieve.Error, "closed"):
            s.push("a")

    def test_capacity_warning(self):
        with sieve.Sieve(expected_urls=100) as s:
            with self.assertWarns(sieve.CapacityWarning):
                s.push_many([f"u{i}" for i in range(200)])


if __name__ == "__main__":
    unittest.main()
