"""``euchre dataset``: labelled five-handed hands for hidden-partner inference.

The labels are the engine's truth (checked against a replay of the same deals
and against each viewer's own observation), shards are pure functions of the
seed, and bad requests exit with a message.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pyarrow")

from agents import make_agent
from arena.evaluate import play_tables
from euchre_env import make_rules
from euchre_env.encoding import obs_layout
from partner_lab.dataset import load_dataset, parse_mix, shard_seeds, to_arrays, write_dataset

ROOT = Path(__file__).resolve().parents[1]
RULES = make_rules("five_handed")
LAYOUT = obs_layout(RULES)


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> dict[str, np.ndarray]:
    folder = write_dataset(
        tmp_path_factory.mktemp("ds") / "d", parse_mix("heuristic=3,random=1"), 300, 100, seed=7
    )
    return to_arrays(load_dataset(folder))


def test_rows_come_once_per_viewer_in_hand_and_decision_order(data):
    key = data["hand"] * 1000 + data["decision"]
    assert np.all(np.diff(key) >= 0), "rows are not ordered by hand and decision"
    _, counts = np.unique(key, return_counts=True)
    assert np.all(counts == RULES.num_players), "each decision must have one row per viewer"
    for k in np.unique(key)[:50]:
        assert sorted(data["viewer"][key == k]) == list(range(RULES.num_players))


def test_labels_agree_with_each_viewers_own_observation(data):
    obs, label = data["obs"], data["label"]
    holds = obs[:, LAYOUT.slice("i_hold_called")][:, 0] == 1
    np.testing.assert_array_equal(holds, label == 0, err_msg="'I hold the called card' must mean label 0")
    maker = obs[:, LAYOUT.slice("maker")].argmax(axis=1)
    np.testing.assert_array_equal(maker, data["maker"])
    assert not np.any(label == data["maker"]), "the maker cannot be its own partner"
    revealed = obs[:, LAYOUT.slice("revealed_by")]
    public_called = revealed.any(axis=1)
    assert np.all(revealed[public_called].argmax(axis=1) == label[public_called]), (
        "the revealer is the partner"
    )
    alone = obs[:, LAYOUT.slice("alone")][:, 0] == 1
    assert np.all(label[alone] == -1), "a lone maker has no partner"
    np.testing.assert_array_equal(data["public"], public_called | alone)
    assert set(np.unique(label)) == {-1, 0, 1, 2, 3, 4}


def test_labels_and_actions_match_a_replay_of_the_same_deals(tmp_path):
    """All-heuristic tables are deterministic: replaying the shard's seeds gives the same actions and partner."""
    folder = write_dataset(tmp_path / "d", parse_mix("heuristic"), 60, 60, seed=11)
    d = to_arrays(load_dataset(folder))
    seeds, rng = shard_seeds(11, 0, 60)
    actions: dict[tuple[int, int], int] = {}
    counter = np.zeros(60, dtype=int)

    def observe(s, acts):
        for t in np.flatnonzero(acts >= 0):
            actions[(int(t), int(counter[t]))] = int(acts[t])
        counter[acts >= 0] += 1

    final = play_tables(RULES, seeds, np.zeros((60, 5), dtype=int), [make_agent("heuristic", RULES)], rng,
                        observer=observe)  # fmt: skip
    np.testing.assert_array_equal(d["seed"], seeds[d["hand"]])
    for hand, decision, action in zip(d["hand"], d["decision"], d["action"], strict=True):
        assert actions[(int(hand), int(decision))] == action
    partner = final.last_partner[d["hand"]].astype(int)
    expected = np.where(partner >= 0, (partner - d["viewer"]) % 5, -1)
    np.testing.assert_array_equal(d["label"], expected)
    played = {h for h in range(60) if final.last_maker[h] >= 0}
    assert set(np.unique(d["hand"])) == played, "every hand with a maker (and only those) has rows"


def test_the_same_seed_gives_the_same_shards_and_shards_can_be_made_separately(tmp_path):
    mix = parse_mix("heuristic=1,random=1")
    whole = write_dataset(tmp_path / "whole", mix, 90, 30, seed=3)
    part = write_dataset(tmp_path / "part", mix, 90, 30, seed=3, shards=[2])
    write_dataset(tmp_path / "part", mix, 90, 30, seed=3, shards=[0, 1])  # the missing shards of the same set
    a, b = load_dataset(whole), load_dataset(part)
    assert a.equals(b)
    other = load_dataset(write_dataset(tmp_path / "other", mix, 90, 30, seed=4))
    assert not a.equals(other)
    assert load_dataset(whole, shards=[1]).num_rows < a.num_rows


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "nosuch"], "unknown agent 'nosuch'"),
        (["--agents", "heuristic=-1"], "must be a finite number >= 0"),
        (["--agents", "heuristic=0"], "at least one agent with a positive weight"),
        (["--hands", "0"], "hands must be an integer >= 1"),
        (["--shards", "9"], "shards must be in 0..0"),
        (["--shards", "a-b"], "--shards must look like"),
    ],
)
def test_bad_requests_exit_2_with_a_message(argv, message, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "apps.cli", "dataset", "--out", str(tmp_path / "d"),
                           "--hands", "10", *argv], check=False, cwd=ROOT, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_an_existing_dataset_is_refused_unless_overwrite_and_four_handed_is_refused(tmp_path):
    mix = parse_mix("random")
    write_dataset(tmp_path / "d", mix, 10, 10, seed=0)
    with pytest.raises(ValueError, match="already holds a dataset"):
        write_dataset(tmp_path / "d", mix, 10, 10, seed=1)
    write_dataset(tmp_path / "d", mix, 10, 10, seed=1, overwrite=True)
    with pytest.raises(ValueError, match="five-handed"):
        write_dataset(tmp_path / "e", mix, 10, 10, rules=make_rules("four_handed"))
    with pytest.raises(ValueError, match="not a dataset folder"):
        load_dataset(tmp_path / "e")
