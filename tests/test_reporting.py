"""kernelxai.reporting: the JSON notebooks write and the timer benchmarks use."""

import json

import numpy as np
import pytest

from kernelxai.reporting import save_results, timed, to_jsonable


def test_to_jsonable_numpy_and_non_finite():
    out = to_jsonable({"a": np.float64(1.5), "b": np.arange(3), 1: (np.bool_(True), np.inf, -np.inf, np.nan)})
    assert out == {"a": 1.5, "b": [0, 1, 2], "1": [True, "inf", "-inf", "nan"]}
    json.dumps(out, allow_nan=False)  # standard JSON


def test_save_results_writes_summary(tmp_path):
    path = tmp_path / "deep" / "r.json"
    payload = save_results(str(path), {"x": np.float32(2.0)}, summary="two")
    assert json.loads(path.read_text()) == payload == {"x": 2.0, "summary": "two"}
    assert save_results(None, {"y": 1}) == {"y": 1}


def test_timed_returns_last_result_and_best_time():
    calls = []
    out, seconds = timed(lambda: calls.append(1) or len(calls), repeat=3)
    assert out == 3 and len(calls) == 3 and 0 <= seconds < 1
    with pytest.raises(ValueError, match="repeat"):
        timed(lambda: None, repeat=0)
