"""User mistakes on the ``euchre`` command line: exit status 2, one clear line, no traceback, nothing written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

BAD = [
    (["eval", "--agents", "heuristic", "random", "--points-to-win", "0"], "--points-to-win"),
    (["eval", "--agents", "heuristic", "random", "--seed", "-1"], "--seed must be >= 0"),
    (["eval", "--agents", "heuristic", "random", "--deals", "1"], "--deals must be >= 2"),
    (["eval", "--agents", "heuristic", "nosuch"], "unknown agent 'nosuch'"),
    (["bench", "--repeats", "0"], "--repeats"),
    (["bench", "--seconds", "-1"], "--seconds must be positive"),
    (["train", "--algo", "sb3", "--gamma", "2"], "--gamma must be in (0, 1]"),
    (["train", "--algo", "sb3", "--gae-lambda", "5"], "--gae-lambda must be in (0, 1]"),
    (["train", "--algo", "sb3", "--clip-coef", "-1"], "--clip-coef must be in (0, 10]"),
    (["train", "--algo", "sb3", "--eval-every", "-5"], "--eval-every must be at least 0"),
    (["train", "--algo", "sb3", "--checkpoint-every", "-1"], "--checkpoint-every must be at least 0"),
    (["train", "--algo", "sb3", "--init-model", "/missing.zip"], "no model file"),
    (["train", "--algo", "sb3", "--imitate", "nosuch"], "unknown agent 'nosuch'"),
    (["train", "--gamma", "2"], "--gamma must be in (0, 1]"),
    (["train", "--algo", "nosuch"], "--algo must be one of ['ppo', 'dmc', 'sb3']"),
]


@pytest.mark.parametrize(("argv", "message"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_a_bad_option_exits_2_with_a_message_and_writes_nothing(argv, message, tmp_path):
    out = tmp_path / "out"
    extra = ["--out", str(out)] if argv[0] in ("train", "eval") else []
    proc = subprocess.run([sys.executable, "-m", "apps.cli", *argv, *extra], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("command", ["train --algo sb3", "eval"])
def test_an_output_folder_in_use_is_refused_unless_overwrite(command, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    kept = out / ("eval.json" if command == "eval" else "model.zip")
    kept.write_text("an earlier result")
    argv = [*command.split(), "--out", str(out)]
    if command == "eval":
        argv += ["--agents", "heuristic", "random", "--deals", "4", "--games", "0", "--quiet", "--no-plot"]
    proc = subprocess.run([sys.executable, "-m", "apps.cli", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 2 and "--overwrite" in proc.stderr, proc.stderr
    assert kept.read_text() == "an earlier result"
    if command == "eval":
        proc = subprocess.run([sys.executable, "-m", "apps.cli", *argv, "--overwrite"], cwd=ROOT,
                              capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert kept.read_text() != "an earlier result" and not list(out.glob("*.tmp*"))
