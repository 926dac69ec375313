"""The GIL is released while a matcher runs, and Python threads may share a (CPU) matcher."""

import threading
import time

import numpy as np

import stereo


def test_second_thread_makes_progress_while_a_cpu_matcher_runs():
    rng = np.random.default_rng(7)
    left = rng.integers(0, 256, (192, 256, 3), dtype=np.uint8)
    right = np.roll(left, -5, axis=1)
    matcher = stereo.Matcher("salap", "cpu", levels=48, threads=1)
    done = threading.Event()
    span = {}

    def run():
        span["start"] = time.perf_counter()
        matcher.compute(left, right)
        span["end"] = time.perf_counter()
        done.set()

    worker = threading.Thread(target=run)
    ticks = []
    worker.start()
    while not done.is_set():  # pure Python: runs only while the worker does not hold the GIL
        ticks.append(time.perf_counter())
    worker.join()
    inside = [t for t in ticks if span["start"] <= t <= span["end"]]
    duration = span["end"] - span["start"]
    assert duration > 0.05, f"the run took {duration * 1e3:.1f} ms, too short to tell"
    # Held, the GIL would stop this thread for the whole run (one gap as long as the run); released,
    # it keeps ticking through it, its longest pause a scheduling hiccup.
    assert len(inside) > 1000, f"{len(inside)} ticks during a {duration * 1e3:.0f} ms run"
    gaps = np.diff([span["start"], *inside, span["end"]])
    assert gaps.max() < duration / 2, f"a {gaps.max() * 1e3:.0f} ms pause in a {duration * 1e3:.0f} ms run"


def test_threads_sharing_one_cpu_matcher_get_its_maps():
    rng = np.random.default_rng(8)
    left = rng.integers(0, 256, (48, 80, 3), dtype=np.uint8)
    right = np.roll(left, -3, axis=1)
    matcher = stereo.Matcher("salap", "cpu", levels=12)
    expected = matcher.compute(left, right)
    results, errors = [], []

    def run():
        try:
            for _ in range(3):
                results.append(matcher.compute(left, right))
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    workers = [threading.Thread(target=run) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert not errors and len(results) == 12
    assert all(np.array_equal(r, expected) for r in results)
