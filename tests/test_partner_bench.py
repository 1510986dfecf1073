"""``euchre partner-bench``: the report's files, and what must hold whatever the run's size.

The oracle is perfect, counting the cards beats the belief that reads none,
and the positions are the states where a trick starts after the declaration.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("pyarrow")

from euchre_env import make_rules
from euchre_env.actions import Phase
from partner_lab import bench as partner_bench

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    args = argparse.Namespace(out=str(out), hands=60, agents="heuristic", worlds=16, train_hands=600,
                              classifier="", seed=3, threads=1)  # fmt: skip
    return out, partner_bench.run(args)


def test_the_report_files_and_every_belief_in_both_views(report):
    out, rep = report
    for name in (
        "partner_bench.json",
        "partner_bench.md",
        "calibration.png",
        "partner_classifier.safetensors",
    ):
        assert (out / name).is_file(), name
    assert json.loads((out / "partner_bench.json").read_text())["positions"] == rep["positions"] > 0
    names = {"uniform", "exact", "policy-true", "policy-wrong", "learned", "oracle"}
    assert set(rep["beliefs"]) == names
    for name in names:
        for view in ("seat", "public"):
            e = rep["beliefs"][name][view]
            assert e["n"] > 0 and np.isfinite(e["log_loss"]) and 0 <= e["accuracy"] <= 1
    assert set(rep["beliefs_per_second"]) == names - {"oracle"}
    text = (out / "partner_bench.md").read_text()
    assert "| exact |" in text and "## public view" in text


def test_the_oracle_is_perfect_and_counting_beats_reading_no_cards(report):
    _, rep = report
    b = rep["beliefs"]
    for view in ("seat", "public"):
        assert b["oracle"][view]["log_loss"] == 0.0 and b["oracle"][view]["accuracy"] == 1.0
        assert b["oracle"][view]["identification"]["identified_before_reveal"] == 1.0
        assert b["exact"][view]["log_loss"] < b["uniform"][view]["log_loss"]
    # the public sees less than a seat: the same belief is less sure of the answer
    assert b["exact"]["public"]["log_loss"] > b["exact"]["seat"]["log_loss"]


def test_positions_start_a_trick_after_the_declaration():
    rules = make_rules("five_handed")
    states, hand = partner_bench.positions(rules, {"heuristic": 1.0}, 30, seed=1)
    assert states.batch_size == hand.size > 0
    assert np.all(states.phase == Phase.PLAY) and np.all(states.n_played == 0) and np.all(states.called >= 0)
    assert np.all(np.diff(states.trick_no[hand == hand[0]]) == 1)


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--hands", "0"], "--hands must be at least 1"), (["--agents", "heuristic,random"], "one agent kind"),
     (["--seed", "-2"], "--seed must be at least 0")],
)  # fmt: skip
def test_bad_options_exit_2_with_a_message(argv, message, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "apps.cli", "partner-bench", "--out", str(tmp_path / "b"),
                           "--hands", "5", "--train-hands", "50", "--worlds", "4", *argv], check=False, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert message in proc.stderr and "Traceback" not in proc.stderr
