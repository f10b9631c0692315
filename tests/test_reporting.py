"""kernelxai.workbench._reporting: the JSON notebooks write and the timer benchmarks use."""

import json

import numpy as np
import pytest

from kernelxai.workbench._reporting import save_results, timed, to_jsonable


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


def test_save_results_records_parameters():
    payload = save_results(None, {"x": 1}, parameters={"smoke": True, "n": np.int64(3)})
    assert payload == {"x": 1, "parameters": {"smoke": True, "n": 3}}
    with pytest.raises(TypeError, match="parameters must be a dict"):
        save_results(None, {"x": 1}, parameters=[("smoke", True)])
    with pytest.raises(TypeError, match="results must be a dict"):
        save_results(None, [1, 2])


def _leftovers(directory):
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_save_results_is_atomic_a_bad_value_keeps_the_previous_file(tmp_path):
    path = tmp_path / "r.json"
    save_results(str(path), {"x": 1.0}, summary="good")
    before = path.read_bytes()
    with pytest.raises(TypeError, match="not JSON serializable"):
        save_results(str(path), {"x": object()})
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_atomic_write_keeps_the_old_file_when_the_block_raises(tmp_path):
    from kernelxai.workbench._reporting import atomic_write

    path = tmp_path / "sub" / "f.txt"
    with atomic_write(path) as fh:
        fh.write("old")
    with pytest.raises(RuntimeError, match="half-way"):
        with atomic_write(path) as fh:
            fh.write("new, but only half")
            raise RuntimeError("half-way")
    assert path.read_text() == "old" and _leftovers(path.parent) == []
    with atomic_write(path, "wb") as fh:
        fh.write(b"\x00bytes")
    assert path.read_bytes() == b"\x00bytes" and _leftovers(path.parent) == []
    # the permissions a plain open() gives, not mkstemp's 0600
    plain = tmp_path / "plain.txt"
    with open(plain, "w"):
        pass
    assert path.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777
    with pytest.raises(ValueError, match="mode must be 'w' or 'wb'; got 'a'"):
        with atomic_write(path, "a"):
            pass


def test_downloaded_data_set_cache_is_written_atomically(tmp_path, monkeypatch):
    """A download interrupted while caching leaves no (truncated) CSV that would load next time."""
    import pandas as pd

    from kernelxai.datasets import real

    name = next(iter(real.REMOTE))
    target = real.REMOTE[name][3]

    class Interrupted(pd.DataFrame):
        def to_csv(self, buf, **kwargs):
            buf.write("a,b\n1,")  # part of the file, then the failure
            raise KeyboardInterrupt

    frame = pd.DataFrame({"a": [1.0, 2.0], target: [0.0, 1.0]})
    monkeypatch.setattr(real, "_reachable", lambda host: True)
    monkeypatch.setattr(real, "_download", lambda *args: Interrupted(frame))
    with pytest.raises(KeyboardInterrupt):
        real.load(name, data_home_path=tmp_path)
    assert not (tmp_path / f"{name}.csv").exists() and _leftovers(tmp_path) == []
    monkeypatch.setattr(real, "_download", lambda *args: frame)
    real.load(name, data_home_path=tmp_path)
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / f"{name}.csv"), frame)
    assert _leftovers(tmp_path) == []
