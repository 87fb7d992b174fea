"""What a design study refuses, and how it says so (solver/study/samples.py, runner.py,
table.py): sample values of the wrong shape, a seed numpy cannot take, a metric named like
the CSV's failure column, a variant index outside the study, Results larger than the
machine's memory: each a StudyError naming it, before anything runs."""
from __future__ import annotations

import csv
import re

import numpy as np
import pytest

from mechanisms import driven_wheel
from solver import Study, StudyError, latin_hypercube
from solver.study import Samples


def test_a_study_whose_results_would_not_fit_in_memory_is_refused_with_its_size(
        monkeypatch) -> None:
    """The bytes a study's Results hold are counted before it runs: the estimate equals the
    arrays of the Results a small run keeps, and a study whose Results exceed the machine's
    memory (here said to be 1 GB) is refused with its size before any variant runs, not met
    as numpy's MemoryError (or a run of hours) later."""
    import solver.study.runner as runner
    m = driven_wheel("omega * t", {"omega": 1.0})
    small = Study(m, {"wheel.mass": [1.0, 2.0, 3.0]})
    res = small.run(duration=1.0, fps=10)
    held = sum(getattr(r, f).nbytes for r in res.results for f in r._FRAME_FIELDS
               if getattr(r, f) is not None)
    assert small._result_bytes(len(res.times)) == held
    monkeypatch.setattr(runner, "physical_memory", lambda: 10 ** 9)
    calls = []
    big = Study(m, {"wheel.mass": np.linspace(1.0, 2.0, 1000)})
    with pytest.raises(StudyError, match=r"1,000 variants of 100,001 frames each: their Results "
                                         r"would hold [\d.]+ GB, more than this machine's "
                                         r"memory \(1 GB\)"):
        big.run(duration=1000.0, fps=100, progress=lambda k, n: calls.append(k) or False)
    assert calls == []
    monkeypatch.setattr(runner, "physical_memory", lambda: None)   # unknown: not refused
    assert len(small.run(duration=1.0, fps=10).results) == 3


def test_sample_values_of_another_width_are_refused_not_recut_into_rows() -> None:
    """Samples(names, values) takes one row per variant and one column per name: two rows
    of three values for two parameters were re-cut into three rows of two (variant 1 then
    set a = 3, b = 4, values no row held), a silent wrong study; now a StudyError names
    the parameters and the shape given.  One parameter's values may still be flat."""
    with pytest.raises(StudyError, match=r"one column per parameter \(2: a, b\), got an "
                                         r"array of shape \(2, 3\)"):
        Samples(("a", "b"), [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    with pytest.raises(StudyError, match=r"got an array of shape \(4,\)"):
        Samples(("a", "b"), [1.0, 2.0, 3.0, 4.0])
    assert Samples(("a",), [1.0, 2.0, 3.0]).values.tolist() == [[1.0], [2.0], [3.0]]
    assert Samples(("a", "b"), [[1.0, 2.0]]).rows() == [{"a": 1.0, "b": 2.0}]


def test_a_latin_hypercube_seed_that_is_not_a_whole_number_is_named() -> None:
    """A seed numpy's Generator cannot take (a fraction, a text, a negative number) is a
    StudyError naming the seed, as every other bad input of a study, not numpy's TypeError
    about a SeedSequence's entropy."""
    for seed in (1.5, "one", -3):
        with pytest.raises(StudyError, match=r"latin_hypercube: the seed must be a whole number "
                                             r">= 0 \(or None: a new draw each time\), got "
                                             + re.escape(repr(seed))):
            latin_hypercube({"crank.mass": (1.0, 2.0)}, 4, seed=seed)
    a = latin_hypercube({"crank.mass": (1.0, 2.0)}, 4, seed=np.int64(7))
    assert np.array_equal(a.values, latin_hypercube({"crank.mass": (1.0, 2.0)}, 4, seed=7).values)


def test_a_metric_named_failure_is_refused_as_the_csv_has_that_column(tmp_path) -> None:
    """to_csv writes a last column "failure" (each variant's reason); a metric of that name
    wrote a second "failure" column, and a CSV reader keyed by the header lost one of them.
    The name is refused before anything runs, as a metric named like a built-in column."""
    m = driven_wheel("omega * t", {"omega": 1.0})
    with pytest.raises(StudyError, match=r"two columns of the study's table would be named "
                                         r"'failure'"):
        Study(m, {"wheel.mass": [1.0, 2.0]}, metrics={"failure": lambda r: 0.0})
    res = m.study({"wheel.mass": [1.0, 2.0]}, duration=0.2, fps=10,
                  metrics={"fails": lambda r: 1.0})
    res.to_csv(tmp_path / "t.csv")
    header = next(csv.reader(open(tmp_path / "t.csv", encoding="utf-8")))
    assert header.count("failure") == 1 and header[-1] == "failure"


def test_a_variant_index_outside_the_study_is_named() -> None:
    """Study.variant(i) takes the indices StudyResult.result(i) takes: -1 gave the last
    variant's mechanism (its errors then naming a "variant -1"), 5 of 2 variants numpy's
    IndexError, True the variant 1; each is now a StudyError naming the index and the
    range, as result(i) says it."""
    m = driven_wheel("omega * t", {"omega": 1.0})
    st = Study(m, {"wheel.mass": [1.0, 2.0]})
    for i in (-1, 5, True, 1.0):
        with pytest.raises(StudyError, match=re.escape(f"no variant {i!r}: the study has "
                                                       "variants 0 to 1")):
            st.variant(i)
    assert st.variant(np.int64(1)).parts["wheel"].mass == 2.0
    res = st.run(duration=0.1)
    with pytest.raises(StudyError, match=r"no variant -1"):
        res.result(-1)
