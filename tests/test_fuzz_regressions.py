"""Every input a fuzzer found a bug with (tests/fuzz_regressions/) now passes the fuzz checks.

The inputs are read as fuzz/fuzz_deserialize.py reads them (fuzz/inputs.py) and
given to every other fuzz target's check too (fuzz/targets.py: signed frames,
inspect, canonical/digest/Store.put, Store.get, streams), each under the
amplification oracle; tests/fuzz_regressions/README.md says what each one broke.
"""

import sys
from pathlib import Path

import pytest

import serreg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "fuzz"))

from inputs import frame_from_input  # noqa: E402
from targets import CHECKS  # noqa: E402

INPUTS = sorted((Path(__file__).parent / "fuzz_regressions").glob("*.bin"))


def test_the_regression_inputs_are_there():
    assert len(INPUTS) >= 2


@pytest.mark.parametrize("path", INPUTS, ids=[p.stem for p in INPUTS])
@pytest.mark.parametrize("trusted", [False, True])
def test_fuzz_finding_is_rejected_cleanly(path, trusted):
    frame = frame_from_input(path.read_bytes())
    try:
        value = serreg.deserialize(frame, trusted=trusted)
    except serreg.DeserializationError as error:
        assert str(error)
        return
    serreg.serialize(value)  # whatever decodes must be usable


@pytest.mark.parametrize("path", INPUTS, ids=[p.stem for p in INPUTS])
@pytest.mark.parametrize("target", sorted(CHECKS))
def test_fuzz_finding_passes_every_target(path, target):
    CHECKS[target](path.read_bytes())  # a finding (wrong exception, over the bound) raises


def test_the_inspect_check_counts_one_run_of_the_command_when_the_oracle_reruns_it(monkeypatch):
    # Session 2, fuzz_inspect.py: on a loaded machine the oracle runs a slow call three times, and
    # the check read the three runs' error lines from one stream as one run's (a false finding).
    import targets

    class Rerunning:
        def check(self, size, call, what):
            outcomes = [call() for _ in range(3)]
            return outcomes[0]

    monkeypatch.setattr(targets, "ORACLE", Rerunning())
    bad_file = b"\x00SREG" + b"\x01" * 40  # whole-frame mode: not a frame, so inspect exits 1 with one line
    targets.check_inspect(bad_file)
