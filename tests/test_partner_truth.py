"""``euchre analyse partner-truth``: the told agent learns the partner and nothing else, the told search
searches only worlds with the true partner, and the command reports a duplicate match."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import random_positions

from agents import make_agent
from arena.partner_truth import ToldSearch, partner_truth_match, tell, told_agent
from euchre_env import make_rules
from euchre_env.encoding import encode, obs_layout

ROOT = Path(__file__).resolve().parents[1]
RULES = make_rules("five_handed")
P = RULES.num_players


def test_telling_marks_the_hidden_partner_and_changes_nothing_else(rng: np.random.Generator) -> None:
    s = random_positions(RULES, rng, 40)
    turn = s.turn.astype(np.int64)
    obs = encode(s, turn, RULES, dtype=np.float32)
    told = tell(obs, s, turn, RULES)
    at = obs_layout(RULES).offsets["revealed_by"]
    hidden = (s.called >= 0) & (s.partner >= 0) & (s.revealed < 0) & (s.partner != turn)
    assert hidden.sum() > 100 and (~hidden).sum() > 100
    changed = np.flatnonzero((told != obs).any(axis=1))
    assert np.array_equal(changed, np.flatnonzero(hidden)), "only seats that do not know are told"
    assert set(np.flatnonzero((told != obs).any(axis=0))) <= set(range(at + 1, at + P)), "revealed_by, another seat"
    rel = (s.partner[hidden].astype(np.int64) - turn[hidden]) % P
    assert np.array_equal(told[hidden, at : at + P].argmax(axis=1), rel) and (told[hidden, at : at + P].sum(1) == 1).all()
    # where the card is already played the observation said so itself: the same seat
    shown = (s.revealed >= 0) & (s.partner != turn)
    assert np.array_equal(obs[shown, at : at + P].argmax(axis=1), (s.partner[shown] - turn[shown]) % P)


def test_the_told_search_searches_only_worlds_with_the_true_partner(rng: np.random.Generator) -> None:
    s = random_positions(RULES, rng, 30)
    turn = s.turn.astype(np.int64)
    rows = np.flatnonzero((s.called >= 0) & (s.partner >= 0) & (s.revealed < 0) & (s.partner != turn))[:40]
    sub, turn = s.take(rows), turn[rows]
    obs = tell(encode(sub, turn, RULES, dtype=np.float32), sub, turn, RULES)
    search = told_agent("search", RULES)
    assert isinstance(search, ToldSearch)
    worlds = search.search_worlds(obs, 8, np.random.default_rng(1))
    want = np.repeat((sub.partner.astype(np.int64) - turn) % P, 8)
    assert np.mean(worlds.partner == want) > 0.95, "worlds with another partner are weighed out"
    plain = make_agent("search", RULES).search_worlds(obs, 8, np.random.default_rng(1))
    assert np.mean(plain.partner == want) < 0.8, "untold, the search does not know"
    with pytest.raises(ValueError, match="uniform worlds"):
        told_agent("search-uniform", RULES)


def test_a_match_against_itself_and_the_command(tmp_path: Path) -> None:
    points, relative = partner_truth_match(RULES, "heuristic", 20, seed=3)
    assert np.isfinite([points.mean, relative.mean, relative.ci95]).all() and relative.n == 20
    with pytest.raises(ValueError, match="five-handed"):
        partner_truth_match(make_rules("four_handed"), "heuristic", 4, seed=0)
    out = tmp_path / "truth"
    cmd = [sys.executable, "-m", "apps.cli", "analyse", "partner-truth", "--agent", "heuristic", "--deals", "20",
           "--seed", "3", "--out", str(out)]  # fmt: skip
    proc = subprocess.run(cmd, check=False, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((out / "partner_truth.json").read_text())
    assert report["relative"]["mean"] == pytest.approx(relative.mean) and report["deals"] == 20
    assert report["agent"] == report["against"] == "heuristic"
    again = subprocess.run(cmd, check=False, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert again.returncode == 2 and "--overwrite" in again.stderr
    bad = subprocess.run([*cmd[:5], "--deals", "1"], check=False, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "--deals must be at least 2" in bad.stderr


def test_a_match_against_another_agent_untold() -> None:
    """``--against``: the told agent plays another agent untold (for a policy trained told, against the
    shipped model); against itself it is the default match, deal for deal."""
    default = partner_truth_match(RULES, "heuristic", 20, seed=3)
    same = partner_truth_match(RULES, "heuristic", 20, seed=3, against="heuristic")
    assert (same[1].mean, same[1].ci95) == (default[1].mean, default[1].ci95)
    _, relative = partner_truth_match(RULES, "heuristic", 100, seed=3, against="random")
    assert relative.mean - relative.ci95 > 0.5, relative  # the heuristic, told or not, far ahead of random play
