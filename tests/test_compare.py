"""``euchre compare-learners`` (``training.compare``): learners trained for equal minutes, compared on frozen deals.

A tiny comparison trains each learner once per budget, plays each model against the heuristic and the
learners head to head on the deal set, writes its report, and a rerun reuses the runs and matches it has.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch")

from training.compare import LEARNERS, Stopped, compare_learners, run_settings

ROOT = Path(__file__).resolve().parents[1]


def test_a_tiny_comparison_trains_each_learner_per_budget_and_reuses_its_runs(tmp_path):
    out = tmp_path / "cmp"
    report = compare_learners(["ppo", "dmc"], [0.02], out, "five_handed-v1", deals=20, threads=1,
                              eval_every=1, progress=False)  # fmt: skip
    assert [(r["learner"], r["minutes"]) for r in report["runs"]] == [("ppo", 0.02), ("dmc", 0.02)]
    for r in report["runs"]:
        assert r["train_seconds"] >= 0.02 * 60 and r["learner_decisions"] > 0 and r["history"]
        assert abs(r["vs_heuristic"]["mean"]) < 5 and r["vs_heuristic"]["ci95"] > 0
    (h2h,) = report["head_to_head"]
    assert (h2h["a"], h2h["b"]) == ("ppo", "dmc") and report["unit"] == "relative points per hand"
    assert json.loads((out / "compare.json").read_text()) == json.loads(json.dumps(report))
    assert (out / "compare.png").stat().st_size > 0 and "ppo − dmc" in (out / "compare.md").read_text()
    models = {p: p.stat().st_mtime_ns for p in (out / "runs").glob("*/model.safetensors")}
    again = compare_learners(["ppo", "dmc"], [0.02], out, "five_handed-v1", deals=20, threads=1, eval_every=1,
                             progress=False)  # fmt: skip
    assert {p: p.stat().st_mtime_ns for p in models} == models  # nothing trained again
    assert again["runs"] == report["runs"] and again["head_to_head"] == report["head_to_head"]


def test_a_run_stopped_before_its_budget_is_resumed_by_the_same_command(tmp_path, monkeypatch):
    from agents.neural import load_policy
    from training.batched import ppo
    from training.runs import StopFlag

    class StopsAfterOneIteration(StopFlag):  # as if Ctrl-C came during the first iteration
        reads = 0

        @property
        def set(self) -> bool:
            type(self).reads += 1
            return type(self).reads > 2  # the first evaluation's check and the loop's first check pass

        @set.setter
        def set(self, value: bool) -> None:
            pass

    out = tmp_path / "cmp"
    options = {"deals": 20, "threads": 1, "eval_every": 10**9, "progress": False}
    monkeypatch.setattr(ppo, "StopFlag", StopsAfterOneIteration)
    with pytest.raises(Stopped, match=r"stopped before its 0\.1 minutes; the same command continues it"):
        compare_learners(["ppo"], [0.1], out, "four_handed-v1", **options)
    run = out / "runs" / "ppo__0.1min"
    stopped = load_policy(run / "model.safetensors")[1].provenance
    assert 0 < stopped["train_seconds"] < 6 and stopped["iteration"] == 1 and not (out / "compare.json").exists()
    monkeypatch.undo()
    report = compare_learners(["ppo"], [0.1], out, "four_handed-v1", **options)
    done = load_policy(run / "model.safetensors")[1].provenance
    assert done["train_seconds"] >= 6 and [r["learner_decisions"] for r in done["resumed"]] == [
        stopped["learner_decisions"]]
    assert report["runs"][0]["learner_decisions"] == done["learner_decisions"] > stopped["learner_decisions"]


def test_each_learner_is_its_route_with_its_settings_and_a_time_budget():
    for name, (route, extra) in LEARNERS.items():
        args = run_settings(name, "four_handed", 2.5, seed=3, threads=1, eval_every=1000)
        assert args.algo == route and args.time_budget == 150.0 and args.seed == 3
        assert all(getattr(args, k) == v for k, v in extra.items())
    assert run_settings("dmc", "four_handed", 1, 1, 1, 1).prior == ""
    assert run_settings("ppo", "four_handed", 1, 1, 1, 1).prior == "heuristic"


@pytest.mark.parametrize(("argv", "message"), [
    (["--learners", "nosuch"], "invalid choice: 'nosuch'"),
    (["--minutes", "0"], "--minutes must be positive numbers, got [0.0]"),
    (["--deals", "1"], "--deals must be in [2, 10000]"),
])  # fmt: skip
def test_bad_options_exit_2_with_one_line(tmp_path, argv, message):
    proc = subprocess.run([sys.executable, "-m", "apps.cli", "compare-learners", "--out", str(tmp_path / "x"), *argv],
                          cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 2 and message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
