"""The bench's calibration: a slow first call (first-time set-up) does not decide a sample's size."""

import time

from serreg.bench import measure


def test_a_slow_first_call_does_not_make_samples_of_one_call():
    calls = []

    def operation():
        calls.append(None)
        if len(calls) == 1:
            time.sleep(0.05)  # first-time set-up, longer than min_time

    number = measure.calibrate(operation, min_time=0.02)
    assert len(calls) == 2
    assert number > 1


def test_an_operation_slower_than_min_time_gets_one_call_a_sample():
    number = measure.calibrate(lambda: time.sleep(0.03), min_time=0.02)
    assert number == 1


def test_the_sample_size_covers_min_time():
    number = measure.calibrate(lambda: time.sleep(0.001), min_time=0.02)
    assert 2 <= number <= 20


def test_the_timed_call_runs_with_the_garbage_collector_paused():
    import gc

    seen = []
    assert gc.isenabled()
    measure.calibrate(lambda: seen.append(gc.isenabled()), min_time=0.02)
    assert seen[1] is False  # the timed call: a collection of the whole heap must not decide the sample size
    assert gc.isenabled()
