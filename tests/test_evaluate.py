"""Duplicate-deal evaluation: rotations, statistics, reproducibility, and the CLI outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents import HeuristicAgent, RandomAgent
from arena.evaluate import EvalResult, evaluate, main, seat_patterns
from euchre_env import make_rules


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_every_agent_holds_every_hand(variant: str) -> None:
    """Across the rotations of a deal, each agent's scoring seats cover every seat equally often."""
    rules = make_rules(variant)
    slots, focal = seat_patterns(rules)
    for k in (0, 1):
        held = ((slots == k) & focal).sum(axis=0)
        assert np.all(held == held[0]) and held[0] > 0, f"agent {k} holds seats {held.tolist()}"


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_self_play_comes_out_level(variant: str) -> None:
    """Random against random (two instances) is level within its confidence interval."""
    rules = make_rules(variant)
    result = evaluate({"a": RandomAgent(rules), "b": RandomAgent(rules)}, rules, 400, seed=3)
    adv = result.matchups[0].advantage
    assert adv.low <= 0.0 <= adv.high, f"self-play advantage {adv} excludes 0"
    assert adv.ci95 > 0, "a random self-play should have a non-zero interval"


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_heuristic_beats_random(variant: str) -> None:
    """The heuristic agent out-scores random by more than the confidence interval, and wins more games."""
    rules = make_rules(variant)
    agents = {"heuristic": HeuristicAgent(rules), "random": RandomAgent(rules)}
    result = evaluate(agents, rules, 1000, seed=0, num_games=20)
    adv = result.matchups[0].advantage
    assert adv.low > 0, f"heuristic minus random = {adv}: not above 0 outside the CI"
    heur, rand = result.matchups[0].reports
    assert heur.win_rate.mean > rand.win_rate.mean, f"win rates {heur.win_rate} vs {rand.win_rate}"
    assert heur.roles["maker"]["made"] > rand.roles["maker"]["made"], (
        "heuristic makers should score more often"
    )


def test_four_handed_games_have_one_winning_side() -> None:
    """Four-handed, exactly one partnership wins each game, so the two win rates add up to 1."""
    rules = make_rules("four_handed", points_to_win=5)
    result = evaluate({"h": HeuristicAgent(rules), "r": RandomAgent(rules)}, rules, 20, seed=1, num_games=30)
    a, b = result.matchups[0].reports
    assert a.win_rate.mean + b.win_rate.mean == pytest.approx(1.0), f"{a.win_rate} + {b.win_rate} != 1"
    assert result.matchups[0].hands_per_game >= 2, "a game to 5 takes at least two hands"


def test_same_seed_same_result() -> None:
    """Two runs with the same seed give identical numbers; another seed deals other hands."""
    rules = make_rules("five_handed")
    agents = {"h": HeuristicAgent(rules), "r": RandomAgent(rules)}

    def strip(r: EvalResult) -> dict:
        return {k: v for k, v in r.to_dict().items() if k != "seconds"}

    one, two = (evaluate(agents, rules, 50, seed=11, num_games=2) for _ in range(2))
    assert strip(one) == strip(two), "same seed gave different results"
    other = evaluate(agents, rules, 50, seed=12)
    assert other.overall["r"].mean != one.overall["r"].mean, "a different seed should deal different hands"


def test_three_agents_give_a_head_to_head_table() -> None:
    """With three agents every pair plays, and the head-to-head table is antisymmetric."""
    rules = make_rules("four_handed")
    agents = {"h": HeuristicAgent(rules), "r1": RandomAgent(rules), "r2": "random"}
    result = evaluate(agents, rules, 100, seed=2)
    assert len(result.matchups) == 3, f"expected 3 pairs, got {len(result.matchups)}"
    table = result.head_to_head()
    for a in agents:
        for b in agents:
            if a != b:
                assert table[a][b].mean == pytest.approx(-table[b][a].mean), f"{a} vs {b} not antisymmetric"
    assert table["h"]["r1"].low > 0 and table["h"]["r2"].low > 0, "heuristic should beat both randoms"


def test_bad_arguments_are_named() -> None:
    """Too few deals or agents, or a non-policy agent, gives a ValueError naming the argument."""
    rules = make_rules("four_handed")
    agents = {"h": HeuristicAgent(rules), "r": RandomAgent(rules)}
    with pytest.raises(ValueError, match="num_deals"):
        evaluate(agents, rules, 1)
    with pytest.raises(ValueError, match="num_games"):
        evaluate(agents, rules, 10, num_games=1)
    with pytest.raises(ValueError, match="at least two"):
        evaluate({"h": HeuristicAgent(rules)}, rules, 10)
    with pytest.raises(ValueError, match="act"):
        evaluate({"h": HeuristicAgent(rules), "x": object()}, rules, 10)


def test_cli_writes_json_markdown_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``euchre eval`` writes eval.json, eval.md and eval.png with the measured numbers."""
    out = tmp_path / "eval"
    argv = ["--variant", "five_handed", "--agents", "random", "heuristic", "--deals", "40", "--games", "4",
            "--seed", "0", "--out", str(out), "--quiet"]  # fmt: skip
    assert main(argv) == 0
    data = json.loads((out / "eval.json").read_text())
    assert data["variant"] == "five_handed" and data["num_deals"] == 40, f"bad header {data['variant']}"
    assert set(data["overall_points_per_hand"]) == {"random", "heuristic"}
    assert data["matchups"][0]["reports"][0]["win_rate"]["n"] == 4, "games were not recorded"
    md = (out / "eval.md").read_text()
    assert "| heuristic |" in md and "Head-to-head" in md, "markdown report lacks the tables"
    assert (out / "eval.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "eval.png is not a PNG"
    with pytest.raises(SystemExit):
        main(["--agents", "random"])
    assert "at least two" in capsys.readouterr().err
    assert main(["--agents", "random", "heuristc", "--out", str(tmp_path / "other"), "--quiet"]) == 2
    assert "known agents" in capsys.readouterr().err, "a mistyped agent name should list the known ones"


def test_result_round_trips_to_json() -> None:
    """EvalResult.to_json is valid JSON holding the CI bounds of every agent."""
    rules = make_rules("four_handed")
    result = evaluate({"h": "heuristic", "r": "random"}, rules, 30, seed=0)
    assert isinstance(result, EvalResult)
    data = json.loads(result.to_json())
    for name in ("h", "r"):
        stat = data["overall_points_per_hand"][name]
        assert stat["low"] <= stat["mean"] <= stat["high"], f"{name}: CI does not contain the mean"


def test_plot_shows_every_pair_difference_with_its_interval(tmp_path: Path) -> None:
    """The plot is a forest of head-to-head differences: one row per pair, the agent ahead first,
    each the match's advantage and CI; the PNG is written."""
    rules = make_rules("four_handed")
    result = evaluate({"h": "heuristic", "r1": "random", "r2": "random"}, rules, 60, seed=4)
    rows = result.forest_rows()
    advantage = {frozenset(m.agents): m.advantage for m in result.matchups}
    assert len(rows) == 3, f"one row per pair, got {[label for label, _ in rows]}"
    for label, stat in rows:
        ahead, behind = label.split(" − ")
        adv = advantage[frozenset((ahead, behind))]
        assert stat.mean >= 0 and stat.mean == pytest.approx(abs(adv.mean)), f"{label}: {stat} vs {adv}"
        assert stat.ci95 == pytest.approx(adv.ci95), f"{label}: interval {stat.ci95} != match's {adv.ci95}"
    assert [s.mean for _, s in rows] == sorted((s.mean for _, s in rows), reverse=True), "rows not sorted"
    assert {label for label, _ in rows} >= {"h − r1", "h − r2"}, f"heuristic should lead: {rows}"
    fig = result.figure()
    try:
        ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
        assert sorted(ticks) == sorted(label for label, _ in rows), f"forest axis shows {ticks}"
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)
    path = result.plot(tmp_path / "eval.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", "the plot file is not a PNG"


def test_five_handed_relative_points_follow_from_the_hands(tmp_path: Path) -> None:
    """Relative points (the single seat's points minus its table's mean), recomputed from the hand records."""
    rules = make_rules("five_handed")
    agents = {"heuristic": HeuristicAgent(rules), "random": RandomAgent(rules)}
    result = evaluate(agents, rules, 60, seed=4, records=tmp_path)
    per_deal: dict[str, dict[str, list[float]]] = {}
    for line in next(tmp_path.glob("*.jsonl")).read_text().splitlines():
        record = json.loads(line)
        points, names = np.array(record["points"], float), record["agents"]
        single = next(n for n in names if names.count(n) == 1)
        per_deal.setdefault(record["seed"], {"heuristic": [], "random": []})[single].append(
            points[names.index(single)] - points.mean()
        )
    diffs = [np.mean(d["heuristic"]) - np.mean(d["random"]) for d in per_deal.values()]
    assert len(diffs) == 60 and all(len(v) == 5 for d in per_deal.values() for v in d.values())
    rel = result.matchups[0].relative
    assert rel.mean == pytest.approx(np.mean(diffs)) and rel.low > 0, f"heuristic − random relative {rel}"
    assert result.to_dict()["matchups"][0]["relative_advantage"]["mean"] == pytest.approx(rel.mean)
    assert "Relative points per hand" in result.to_markdown()


def test_four_handed_relative_points_are_the_advantage() -> None:
    """Four-handed, a side's points minus the table's mean ranks agents exactly as points per hand do."""
    rules = make_rules("four_handed")
    result = evaluate({"heuristic": HeuristicAgent(rules), "random": RandomAgent(rules)}, rules, 100, seed=5)
    m = result.matchups[0]
    assert m.relative.mean == pytest.approx(m.advantage.mean)
    assert m.relative.ci95 == pytest.approx(m.advantage.ci95)
    assert "Relative points per hand" not in result.to_markdown()


def test_games_won_difference_is_reported() -> None:
    """With games played, the match reports A's share of games won minus B's, with its interval."""
    rules = make_rules("five_handed")
    result = evaluate({"heuristic": HeuristicAgent(rules), "random": RandomAgent(rules)}, rules, 20, seed=6,
                      num_games=20)  # fmt: skip
    m = result.matchups[0]
    h, r = (rep.win_rate.mean for rep in m.reports)
    assert m.won.mean == pytest.approx(h - r) and m.won.low > 0, f"games won difference {m.won}"
    no_games = evaluate({"a": RandomAgent(rules), "b": RandomAgent(rules)}, rules, 5, seed=6)
    assert no_games.matchups[0].won is None


def test_five_handed_halves_of_the_heuristic_against_itself_are_zero(capsys: pytest.CaptureFixture[str]) -> None:
    """``arena.five_handed_halves``: each half is measured against the heuristic in the same seat among
    heuristics, so the heuristic against itself gives exactly 0 in both; random alone loses in both units."""
    from arena.five_handed_halves import halves, main

    same = halves("heuristic", 30, seed=1)
    for name in ("agent alone", "heuristic alone"):
        assert same[name]["raw"].mean == 0 and same[name]["relative"].mean == 0
        assert same[name]["maker"] == pytest.approx(same["baseline"]["maker"])
    rand = halves("random", 60, seed=1)
    assert rand["agent alone"]["relative"].high < 0 and rand["agent alone"]["raw"].high < 0
    assert main(["random", "--deals", "20"]) == 0 and "heuristic alone" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["random", "--deals", "1"])


class _Extreme:
    """The first (``last=False``) or last legal action of every row."""

    def __init__(self, last: bool) -> None:
        self.last = last

    def act(self, obs, masks, rng):
        return masks.shape[1] - 1 - masks[:, ::-1].argmax(axis=1) if self.last else masks.argmax(axis=1)


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_phase_split_bids_like_its_bidder_and_plays_like_its_player(variant: str) -> None:
    """``PhaseSplit``: on decisions of every phase from real hands, the rows outside the card play get the
    bidder's actions and the card plays the player's; the heuristic crossed with itself is the heuristic."""
    from agents.phase_split import PhaseSplit
    from agents.view import ObsView
    from euchre_env.actions import Phase
    from training.batched.rollout import collect

    rules = make_rules(variant)
    rng = np.random.default_rng(4)
    first, last = _Extreme(False), _Extreme(True)
    act = lambda obs, masks: (first.act(obs, masks, rng), np.zeros(len(obs), np.float32))
    p = rules.num_players
    ro = collect(rules, rng.integers(0, 2**63, size=200, dtype=np.uint64), np.full((200, p), -1), act, [], rng, True)
    play = ObsView(ro.obs, rules).phase == Phase.PLAY
    assert play.any() and (~play).any()
    got = PhaseSplit(first, last, rules).act(ro.obs, ro.masks, rng)
    want = np.where(play, last.act(ro.obs, ro.masks, rng), first.act(ro.obs, ro.masks, rng))
    assert np.array_equal(got, want)
    assert (got != first.act(ro.obs, ro.masks, rng))[play].any()  # the two agents do differ at play
    h = HeuristicAgent(rules)
    assert np.array_equal(PhaseSplit(h, h, rules).act(ro.obs, ro.masks, rng), h.act(ro.obs, ro.masks, rng))
    with pytest.raises(ValueError, match="observations must have shape"):
        PhaseSplit(h, h, rules).act(ro.obs[:, :-1], ro.masks, rng)


def test_phase_split_of_the_heuristic_is_zero_and_of_random_negative(capsys: pytest.CaptureFixture[str]) -> None:
    """``arena.phase_split``: the heuristic crossed with itself is level with it in every row (the same
    deals); random loses in every row, most where it does both; the CLI prints the rows and refuses 1 deal."""
    from arena.phase_split import ROWS, main, phase_split

    same = phase_split("heuristic", "four_handed", 20, seed=1)
    assert list(same) == list(ROWS) and all(r["advantage"] == 0 and r["relative"] == 0 for r in same.values())
    rand = phase_split("random", "five_handed", 60, seed=1)
    assert all(r["relative"] + r["relative_ci95"] < 0 for r in rand.values())
    assert rand[ROWS[0]]["relative"] < min(rand[ROWS[1]]["relative"], rand[ROWS[2]]["relative"])
    assert main(["random", "--deals", "20"]) == 0 and "heuristic bidding, agent playing" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["random", "--deals", "1"])


def test_an_open_card_player_beats_the_heuristic_in_every_phase(capsys: pytest.CaptureFixture[str]) -> None:
    """``arena.open_cards``: the search agent whose one world is the real deal wins clearly where it searches
    (bidding, play, both; four-handed, and five-handed in relative points), since it knows every card; the CLI
    prints the match and refuses 1 deal and an unknown opponent."""
    from arena.open_cards import OpenCardSearch, main, open_card_match
    from euchre_env import engine
    from euchre_env.encoding import encode

    rules = make_rules("four_handed")
    for phases in ("bidding", "play", "all"):
        points, relative = open_card_match(rules, phases, "heuristic", 150, seed=3)
        assert points.low > (0.2 if phases == "all" else 0.0), (phases, points)
        assert relative.mean == pytest.approx(points.mean)  # four-handed: one side's points against the other's
    _, relative = open_card_match(make_rules("five_handed"), "all", "heuristic", 60, seed=3)
    assert relative.low > 0.1, relative
    assert main(["--phases", "play", "--deals", "20"]) == 0 and "open cards (play) - heuristic" in capsys.readouterr().out
    s = engine.init_state(rules, seeds=np.array([5, 5], np.uint64))  # one deal twice: one view of two tables
    with pytest.raises(ValueError, match="must differ"):
        OpenCardSearch(rules).set_truth(s, encode(s, s.turn, rules, dtype=np.float32))
    for bad in (["--deals", "1"], ["--opponent", "nosuch"]):
        with pytest.raises(SystemExit):
            main(bad)
