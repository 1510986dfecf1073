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

from agents.partner_features import GROUPS
from euchre_env import engine, make_rules
from euchre_env.actions import Phase
from partner_lab import bench as partner_bench
from partner_lab import sets as partner_sets

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    args = argparse.Namespace(out=str(out), hands=40, populations=["heuristic", "mix"], worlds=16, fit_hands=8,
                              train_hands=400, row_fraction=0.25, ablation=True, classifier="", seed=3, threads=1,
                              beliefs=list(partner_bench.BUILTIN))  # fmt: skip
    return out, partner_bench.run(args)


def test_the_report_files_and_every_belief_in_both_views_of_every_population(report):
    out, rep = report
    for name in partner_bench.OUTPUTS:
        assert (out / name).exists(), name
    assert json.loads((out / "partner_bench.json").read_text())["populations"].keys() == {"heuristic", "mix"}
    names = {"uniform", "exact", "policy-true", "policy-wrong", "learned", "learned-heuristic", "learned-mix", "oracle"}
    for pop, e in rep["populations"].items():
        assert set(e["beliefs"]) == names and e["positions"] > 0
        assert e["set"]["name"] == f"partner-{pop}-seed3-40" and not e["set"]["frozen"] and len(e["set"]["sha256"]) == 64
        for name in names:
            for view in ("seat", "public"):
                v = e["beliefs"][name][view]
                assert v["n"] > 0 and np.isfinite(v["log_loss"]) and 0 <= v["accuracy"] <= 1
                assert set(v["by_trick"]) == set(range(5)) and set(v["by_role"]) <= set(partner_bench.ROLES)
                low, high = v["log_loss_ci95"]  # over hands, around the log-loss itself
                assert low - 1e-12 <= v["log_loss"] <= high + 1e-12, (pop, name, view)
                low, high = v["x_exact_ci95"]  # the share of counting's, paired on the same hands
                assert low - 1e-12 <= v["x_exact"] <= high + 1e-12, (pop, name, view)
                assert v["x_exact"] == pytest.approx(v["log_loss"] / e["beliefs"]["exact"][view]["log_loss"])
        learned = e["beliefs"]["learned"]["seat"]["log_loss_ci95"]
        assert learned[0] < learned[1] and e["beliefs"]["exact"]["seat"]["x_exact_ci95"] == [1.0, 1.0]
        for name in e["calibration"]:
            low, high = e["beliefs"][name]["seat"]["ece_ci95"]
            assert 0 <= low <= high <= 1, (pop, name)
        assert set(e["beliefs_per_second"]) == names - {"oracle"}
        assert e["noise"]["seat"]["epsilon"] in [r["epsilon"] for r in e["noise"]["seat"]["grid"]]
        assert {"exact", "learned", "policy-true"} <= set(e["calibration"])
    assert set(rep["train"]) == {"heuristic", "mix", "all", "ablation"}
    assert set(rep["train"]["ablation"]) == {"none", "all but exact", *GROUPS}
    text = (out / "partner_bench.md").read_text()
    for heading in ("## heuristic", "## mix", "### public view", "### by role", "## Cross-population",
                    "## What each input buys"):  # fmt: skip
        assert heading in text, heading


def test_the_oracle_is_perfect_and_counting_beats_reading_no_cards(report):
    _, rep = report
    for e in rep["populations"].values():
        b = e["beliefs"]
        for view in ("seat", "public"):
            assert b["oracle"][view]["log_loss"] == 0.0 and b["oracle"][view]["accuracy"] == 1.0
            assert b["oracle"][view]["identification"]["identified_before_reveal"] == 1.0
            assert b["exact"][view]["log_loss"] < b["uniform"][view]["log_loss"]
        # the public sees less than a seat: the same belief is less sure of the answer
        assert b["exact"]["public"]["log_loss"] > b["exact"]["seat"]["log_loss"]


def test_the_frozen_evaluation_sets_are_the_ones_the_published_report_scored():
    """Each population's set (deal seeds and the hands its players logged) hashes as the code pins it and as
    the docs' report records it."""
    published = json.loads((ROOT / "docs/results/partner_bench/partner_bench.json").read_text())
    rules = make_rules("five_handed")
    assert set(published["populations"]) == set(partner_sets.FROZEN_SHA256)
    for pop, e in published["populations"].items():
        s = e["set"]
        assert (s["hands"], s["seed"]) == (partner_sets.FROZEN_HANDS, partner_sets.FROZEN_SEED)
        _, _, meta = partner_sets.evaluation_set(rules, pop)
        assert meta["sha256"] == s["sha256"] == partner_sets.FROZEN_SHA256[pop], pop
        assert meta["name"] == s["name"] == f"partner-{pop}-v1" and meta["frozen"]


def test_the_kept_hand_records_are_the_frozen_sets_with_no_player_needed():
    """The records kept beside the report replay, without any agent, to the positions the code pins; they
    name who sat where (mix: three kinds of player)."""
    from euchre_env.records import load_records

    rules = make_rules("five_handed")
    for pop, digest in partner_sets.FROZEN_SHA256.items():
        records = load_records(ROOT / "docs/results/partner_bench/sets" / f"partner-{pop}-v1.jsonl.gz")
        assert len(records) == partner_sets.FROZEN_HANDS
        states, hand = partner_sets.positions_from_records(records)
        assert partner_sets.set_digest(states, hand) == digest, pop
        assert partner_sets.evaluation_set(rules, pop, records=records)[2]["sha256"] == digest
        seen = {name for r in records for name in r.agents}
        assert seen == ({"heuristic", "trained", "random"} if pop == "mix" else {pop}), (pop, seen)
    with pytest.raises(ValueError, match="the records of partner-mix-v1 hold 399 hands, expected 400"):
        partner_sets.evaluation_set(rules, "mix", records=records[:-1])
    from euchre_env.records import HandRecorder

    four = make_rules("four_handed")
    recorder, s = HandRecorder(four), engine.init_state(four, seeds=[3])
    while not engine.is_done(s)[0]:
        act = engine.sample_legal(s, four, np.random.default_rng(0))
        recorder(s, act)
        s = engine.step(s, act, four)
    with pytest.raises(ValueError, match=r"five-handed called-card Euchre, records\[1\] is four_handed"):
        partner_sets.positions_from_records([records[0], *recorder.finish(s)])


def test_a_run_writes_its_sets_and_another_replays_them(tmp_path):
    """Each run keeps its evaluation sets as hand records; ``--sets`` scores the same positions from them."""
    args = argparse.Namespace(out=str(tmp_path / "a"), hands=25, populations=["mix"], worlds=4, fit_hands=4,
                              train_hands=50, row_fraction=0.1, ablation=False, classifier="", seed=9, threads=1,
                              beliefs=["exact"], sets="")  # fmt: skip
    first = partner_bench.run(args)["populations"]["mix"]
    kept = tmp_path / "a" / "sets" / "partner-mix-seed9-25.jsonl.gz"
    assert kept.is_file()
    again = partner_bench.run(argparse.Namespace(**{**vars(args), "out": str(tmp_path / "b"),
                                                    "sets": str(tmp_path / "a" / "sets")}))["populations"]["mix"]  # fmt: skip
    assert again["set"] == first["set"] and again["beliefs"]["exact"] == first["beliefs"]["exact"]
    assert (tmp_path / "b" / "sets" / kept.name).read_bytes() == kept.read_bytes()


def test_a_frozen_set_that_hashes_otherwise_is_refused(monkeypatch):
    """Scores on a set that is not the published one must not pass for scores on it."""
    monkeypatch.setitem(partner_sets.FROZEN_SHA256, "heuristic", "0" * 64)
    with pytest.raises(ValueError, match=r"partner-heuristic-v1 hashes to \w+\.\.\., not 0000"):
        partner_sets.evaluation_set(make_rules("five_handed"), "heuristic")
    with pytest.raises(ValueError, match="population must be one of heuristic, trained, mix, got 'nope'"):
        partner_sets.evaluation_set(make_rules("five_handed"), "nope")


def test_the_published_learned_belief_and_counting_score_as_published():
    """The classifier kept beside the report, and the counted belief, scored on the frozen sets through
    ``score_belief``, give the published rows: a researcher's own belief is scored on the same footing."""
    from agents.partner_model import PartnerClassifier
    from euchre_env.beliefs import ExactBelief

    folder = ROOT / "docs/results/partner_bench"
    published = json.loads((folder / "partner_bench.json").read_text())
    learned = PartnerClassifier(str(folder / "partner_classifier.safetensors"))
    for pop, e in published["populations"].items():
        for name, belief in (("exact", ExactBelief()), ("learned", learned)):
            got = partner_bench.score_belief(belief, pop, name=name)
            assert got["set"]["sha256"] == e["set"]["sha256"]
            assert got["seat"]["x_exact"] == pytest.approx(got["seat"]["log_loss"] / e["beliefs"]["exact"]["seat"]["log_loss"])
            for view in ("seat", "public"):
                want = e["beliefs"][name][view]
                assert got[view]["n"] == want["n"], (pop, name, view)
                assert got[view]["log_loss"] == pytest.approx(want["log_loss"], rel=1e-6), (pop, name, view)
                assert got[view]["accuracy"] == pytest.approx(want["accuracy"], abs=1e-9), (pop, name, view)
            want_bins = partner_bench.bins_inside(e["calibration"][name])
            assert partner_bench.bins_inside(got["calibration"]) == want_bins, (pop, name)
            assert got["seat"]["ece"] == pytest.approx(e["beliefs"][name]["seat"]["ece"], rel=1e-5)


def test_beliefs_picks_what_runs_and_scores_a_belief_loaded_by_name(tmp_path):
    """``--beliefs`` with no learned or policy belief trains and fits nothing; a belief named
    module:attribute (here a class, made with no arguments) scores exactly as the built-in it is."""
    args = argparse.Namespace(out=str(tmp_path), hands=30, populations=["mix"], worlds=4, fit_hands=4,
                              train_hands=50, row_fraction=0.1, ablation=True, classifier="", seed=5, threads=1,
                              beliefs=["exact", "euchre_env.beliefs:ExactBelief", "oracle"])  # fmt: skip
    rep = partner_bench.run(args)
    e = rep["populations"]["mix"]
    assert list(e["beliefs"]) == ["exact", "euchre_env.beliefs:ExactBelief", "oracle"]
    assert rep["train"] == {} and e["noise"] is None and not (tmp_path / "train_data").exists()
    for view in ("seat", "public"):
        assert e["beliefs"]["euchre_env.beliefs:ExactBelief"][view]["log_loss"] == e["beliefs"]["exact"][view]["log_loss"]
    assert "euchre_env.beliefs:ExactBelief" in (tmp_path / "partner_bench.md").read_text()


def test_the_ece_interval_resamples_the_ece_of_the_reliability_table():
    """Drawing every hand once, the ECE bootstrap gives the table's ECE; drawing one hand, that hand's."""
    from partner_lab.classifier import calibration

    rng = np.random.default_rng(4)
    probs = rng.dirichlet(np.ones(6), size=300)
    y = np.array([rng.choice(6, p=row) for row in probs])
    hands = np.repeat(np.arange(60), 5)
    ece = partner_bench.expected_calibration_error(calibration(probs, y))
    assert partner_bench._ece_interval(probs, y, hands, np.ones((1, 60))) == pytest.approx([ece, ece])
    only = np.zeros((1, 60))
    only[0, 7] = 3.0  # hand 7 drawn three times: its own ECE
    rows = hands == 7
    ece7 = partner_bench.expected_calibration_error(calibration(probs[rows], y[rows]))
    assert partner_bench._ece_interval(probs, y, hands, only) == pytest.approx([ece7, ece7])


def test_a_belief_whose_probabilities_are_not_a_distribution_is_refused_by_name():
    """A researcher's belief that gives rows not summing to 1 (or NaN) is refused, not scored."""
    from euchre_env.beliefs import BeliefResult, PartnerBelief

    class Halves(PartnerBelief):
        def from_observations(self, observations, rules, public):
            return BeliefResult(np.full((len(observations), rules.num_players + 1), self.value))

    for value in (0.5, np.nan):
        belief = Halves()
        belief.value = value
        with pytest.raises(ValueError, match=r"belief 'halves' \(seat 0's view\): each row of probs must be finite"):
            partner_bench.score_belief(belief, "heuristic", name="halves")
    with pytest.raises(ValueError, match="name 'exact' is the counted belief's"):
        partner_bench.score_belief(belief, "heuristic", name="exact")


@pytest.mark.parametrize(
    ("spec", "message"),
    [("nope", "must be written module:attribute, got 'nope'"), ("euchre_env.beliefs:Nothing", "cannot load the belief"),
     ("no_such_module_x:B", "cannot load the belief 'no_such_module_x:B'"),
     ("numpy:pi", "must be a euchre_env.beliefs.PartnerBelief or make one"),
     ("euchre_env.beliefs:PartnerBelief", "cannot make the belief")],
)  # fmt: skip
def test_load_belief_names_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message):
        partner_bench.load_belief(spec)


def test_the_published_policy_belief_with_fitted_noise_is_not_worse_than_counting():
    """The claim the docs make from the report: with the true player model and its noise fitted on other
    hands, the policy belief scores no worse than the counted belief from either view, in every population."""
    published = json.loads((ROOT / "docs/results/partner_bench/partner_bench.json").read_text())
    for pop, e in published["populations"].items():
        for view in ("seat", "public"):
            b = e["beliefs"]
            assert b["policy-true"][view]["log_loss"] <= b["exact"][view]["log_loss"], (pop, view)


def test_positions_start_a_trick_after_the_declaration():
    rules = make_rules("five_handed")
    states, hand = partner_sets.positions(rules, {"heuristic": 1.0}, 30, seed=1)
    assert states.batch_size == hand.size > 0
    assert np.all(states.phase == Phase.PLAY) and np.all(states.n_played == 0) and np.all(states.called >= 0)
    assert np.all(np.diff(states.trick_no[hand == hand[0]]) == 1)


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--hands", "0"], "--hands must be at least 1"), (["--populations", "nope"], "must be some of heuristic"),
     (["--seed", "-2"], "--seed must be at least 0"),
     (["--beliefs", "exact,nope"], "--beliefs: must be some of uniform, exact"),
     (["--beliefs", "exact,numpy:pi"], "'numpy:pi' must be a euchre_env.beliefs.PartnerBelief"),
     (["--beliefs", "exact", "--sets", "/nonexistent"], "--sets '/nonexistent' holds no partner-heuristic-seed0-5")],
)  # fmt: skip
def test_bad_options_exit_2_with_a_message(argv, message, tmp_path):
    proc = subprocess.run([sys.executable, "-m", "apps.cli", "partner-bench", "--out", str(tmp_path / "b"),
                           "--hands", "5", "--train-hands", "50", "--worlds", "4", *argv], check=False, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert message in proc.stderr and "Traceback" not in proc.stderr
