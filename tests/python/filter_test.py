"""sieve.Filter: the filter module's kinds through Python (python/bind_filter.cc)."""

import os
import tempfile
import unittest
import warnings

import sieve


class FilterTest(unittest.TestCase):
    def test_every_kind_adds_and_answers_membership(self):
        for kind in ("classic", "blocked", "counting", "scalable", "stable", "generational"):
            with self.subTest(kind=kind):
                f = sieve.Filter(kind, capacity=1000, fp_rate=0.01)
                self.assertEqual(f.kind, kind)
                self.assertTrue(f.add("http://a/"))
                self.assertFalse(f.add("http://a/"))
                self.assertIn("http://a/", f)
                self.assertIn(b"http://a/", f)  # bytes and str are the same key
                self.assertNotIn("http://b/", f)

    def test_add_many_says_which_keys_were_fresh_in_order(self):
        f = sieve.Filter("blocked", capacity=1000)
        f.add("x")
        self.assertEqual(f.add_many(["x", "y", "y", "z"]), [False, True, False, True])
        self.assertEqual(f.contains_many(["x", "q"]), [True, False])

    def test_estimates_follow_the_keys_added(self):
        f = sieve.Filter("classic", capacity=10_000, fp_rate=0.01)
        f.add_many([f"k{i}" for i in range(5000)])
        self.assertAlmostEqual(f.estimated_count, 5000, delta=250)
        self.assertGreater(f.estimated_fp_rate, 0)
        self.assertLess(f.estimated_fp_rate, 0.01)
        self.assertGreater(f.memory_bytes, 10_000 * 9 // 8)
        self.assertEqual(f.capacity, 10_000)
        self.assertGreater(f.hash_count, 1)

    def test_bad_options_raise_value_error_not_abort(self):
        with self.assertRaises(ValueError):
            sieve.Filter("classic", capacity=0)
        with self.assertRaises(ValueError):
            sieve.Filter("classic", fp_rate=1.5)
        with self.assertRaisesRegex(ValueError, "classic"):
            sieve.Filter("bogus")

    def test_save_and_load_keep_every_key(self):
        f = sieve.Filter("blocked", capacity=1000)
        f.add_many([f"k{i}" for i in range(500)])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "f.bloom")
            f.save(path)
            g = sieve.Filter.load(path)
            self.assertEqual(g.kind, "blocked")
            self.assertTrue(all(g.contains_many([f"k{i}" for i in range(500)])))
        h = sieve.Filter.from_bytes(f.to_bytes())
        self.assertIn("k7", h)

    def test_a_damaged_file_is_an_error_not_a_crash(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad")
            with open(path, "wb") as out:
                out.write(b"not a filter at all, just bytes")
            with self.assertRaises((ValueError, sieve.Error)):
                sieve.Filter.load(path)
            with self.assertRaises((ValueError, sieve.Error, KeyError)):
                sieve.Filter.load(os.path.join(d, "missing"))
        with self.assertRaises((ValueError, sieve.Error)):
            sieve.Filter.from_bytes(b"\x00" * 40)

    def test_capacity_warning_is_a_python_warning(self):
        f = sieve.Filter("classic", capacity=100)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            f.add_many([f"k{i}" for i in range(150)])
        self.assertEqual(len(caught), 1)
        self.assertTrue(issubclass(caught[0].category, sieve.CapacityWarning))
        self.assertIn("capacity 100", str(caught[0].message))

    def test_capacity_warning_as_error_raises_from_the_add(self):
        f = sieve.Filter("classic", capacity=10)
        with warnings.catch_warnings():
            warnings.simplefilter("error", sieve.CapacityWarning)
            with self.assertRaises(sieve.CapacityWarning):
                for i in range(50):
                    f.add(f"k{i}")

    def test_capacity_callback_replaces_the_warning(self):
        events = []
        f = sieve.Filter("classic", capacity=100)
        f.on_capacity_exceeded(events.append)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            for i in range(450):
                f.add(f"k{i}")
        self.assertEqual([e["capacity"] for e in events], [100, 100, 100])  # 1x, 2x, 4x
        self.assertGreater(events[0]["estimated_count"], 100)


if __name__ == "__main__":
    unittest.main()
