"""Frozen deal sets and ``euchre leaderboard``: checksums, the rating fit, the pair cache."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from arena import deal_sets
from arena.evaluate import evaluate
from arena.leaderboard import Entrant, fit_ratings, leaderboard, main, parse_entrant


# ------------------------------------------------------------------------------------------- deal sets
def test_shipped_sets_load_with_their_checksums() -> None:
    sets = deal_sets.shipped()
    assert {"four_handed-v1", "five_handed-v1"} <= set(sets)
    for name, found in sets.items():
        assert name.startswith(found.variant + "-v")
        assert deal_sets.load(name) == found


def test_a_sets_first_deals_are_the_deals_of_a_shorter_match() -> None:
    """``--deals n`` plays the first n deals of a set, whatever the set's size."""
    assert np.array_equal(deal_sets.deal_seeds(7001, 1000)[:50], deal_sets.deal_seeds(7001, 50))


def test_a_changed_dealer_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """Deals that no longer give the frozen cards are refused, naming the set."""
    real = deal_sets.deal_seeds
    monkeypatch.setattr(deal_sets, "deal_seeds", lambda seed, n: real(seed + 1, n))
    with pytest.raises(ValueError, match=r"four_handed-v1.*dealer changed"):
        deal_sets.load("four_handed-v1")


def test_a_checksum_covers_every_card(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two sets differing in one deal differ in checksum; a wrong shipped checksum is refused."""
    assert deal_sets.checksum("four_handed", 1, 20) != deal_sets.checksum("four_handed", 1, 21)
    assert deal_sets.checksum("four_handed", 1, 20) != deal_sets.checksum("four_handed", 2, 20)
    assert deal_sets.checksum("four_handed", 1, 20) == deal_sets.checksum("four_handed", 1, 20)
    frozen = deal_sets.freeze("four_handed-test", "four_handed", 1, 20)
    wrong = {**frozen.to_dict(), "sha256": "0" * 64}
    path = tmp_path / "sets.json"
    path.write_text(json.dumps({"sets": [frozen.to_dict(), {**wrong, "name": "bad-v1"}]}))
    monkeypatch.setattr(deal_sets, "SETS_FILE", path)
    assert deal_sets.load("four_handed-test") == frozen
    with pytest.raises(ValueError, match="bad-v1"):
        deal_sets.load("bad-v1")
    with pytest.raises(ValueError, match=r"unknown deal set 'nope'.*four_handed-test"):
        deal_sets.load("nope")
    with pytest.raises(ValueError, match="variant must be one of"):
        deal_sets.freeze("x-v1", "six_handed", 1, 20)


# --------------------------------------------------------------------------------------------- ratings
def test_the_fit_recovers_a_known_order_from_noisy_pairs() -> None:
    """Pairs drawn around known ratings give those ratings back, inside their intervals."""
    truth = {"a": 0.0, "b": 0.4, "c": -0.3, "d": 1.1, "e": -1.0}
    names = list(truth)
    rng = np.random.default_rng(3)
    se = 0.02
    pairs = [
        (x, y, truth[x] - truth[y] + rng.normal(0, se), se)
        for i, x in enumerate(names)
        for y in names[i + 1 :]
    ]
    fit = fit_ratings(names, pairs, anchor="a")
    assert sorted(names, key=lambda n: -fit.ratings[n][0]) == ["d", "b", "a", "c", "e"]
    for n in names:
        rating, half = fit.ratings[n]
        assert abs(rating - truth[n]) <= half + 1e-12
    assert fit.ratings["a"] == (0.0, 0.0) and fit.dof == 10 - 4 and fit.chi2 < 25


def test_consistent_pairs_are_reproduced_exactly_and_inconsistent_ones_widen_the_intervals() -> None:
    exact = [("a", "b", 0.5, 0.1), ("b", "c", 0.25, 0.1), ("a", "c", 0.75, 0.1)]
    fit = fit_ratings(["a", "b", "c"], exact, anchor="c")
    assert fit.ratings["a"][0] == pytest.approx(0.75) and fit.ratings["b"][0] == pytest.approx(0.25)
    assert fit.chi2 == pytest.approx(0.0, abs=1e-9) and fit.scale == 1.0
    cycle = [("a", "b", 0.5, 0.1), ("b", "c", 0.5, 0.1), ("c", "a", 0.5, 0.1)]  # a > b > c > a
    loose = fit_ratings(["a", "b", "c"], cycle, anchor="c")
    assert loose.chi2 > 20 and loose.scale > 1
    assert loose.ratings["a"][1] == pytest.approx(fit.ratings["a"][1] * loose.scale)


def test_the_fit_names_what_it_cannot_do() -> None:
    with pytest.raises(ValueError, match="anchor 'z'"):
        fit_ratings(["a", "b"], [("a", "b", 0.1, 0.1)], anchor="z")
    with pytest.raises(ValueError, match="not connected"):
        fit_ratings(["a", "b", "c", "d"], [("a", "b", 0.1, 0.1), ("c", "d", 0.1, 0.1)], anchor="a")
    with pytest.raises(ValueError, match="standard error of a - b must be positive"):
        fit_ratings(["a", "b"], [("a", "b", 0.1, 0.0)], anchor="a")


def test_entrants_parse_with_an_optional_deal_cap() -> None:
    assert parse_entrant("search@400") == Entrant("search", 400)
    assert parse_entrant("model:four_handed") == Entrant("model:four_handed")
    assert parse_entrant("py:my.mod:make@20") == Entrant("py:my.mod:make", 20)
    for bad in ("@20", "search@1", "search@many"):
        with pytest.raises(ValueError, match="--agents"):
            parse_entrant(bad)


# ---------------------------------------------------------------------------------------- board, cache
def test_a_board_plays_only_its_new_pairs_and_each_pair_is_the_eval_match(tmp_path: Path) -> None:
    out = tmp_path / "board"
    first = leaderboard("four_handed-v1", [Entrant("random", 40), Entrant("heuristic")], out, progress=False)
    assert first["played"] == [["random", "heuristic"]]
    (pair,) = first["pairs"]
    assert pair["deals"] == 40
    same = evaluate({"random": "random", "heuristic": "heuristic"}, "four_handed", 40, seed=7001)
    assert pair["mean"] == pytest.approx(same.matchups[0].advantage.mean)
    assert first["ratings"][0]["agent"] == "heuristic" and first["ratings"][1]["rating"] == pytest.approx(
        pair["mean"]
    )

    second = leaderboard(
        "four_handed-v1", [Entrant("random", 40), Entrant("heuristic"), Entrant("model:four_handed", 30)], out,
        progress=False,
    )  # fmt: skip
    assert second["played"] == [["random", "model:four_handed"], ["heuristic", "model:four_handed"]]
    assert second["pairs"][0] == {**pair, "fitted": second["pairs"][0]["fitted"]}
    assert {r["agent"] for r in second["ratings"]} == {"random", "heuristic", "model:four_handed"}
    written = json.loads((out / "leaderboard.json").read_text())
    assert written["ratings"] == second["ratings"] and (out / "leaderboard.md").is_file()
    assert "`model:four_handed`" in (out / "leaderboard.md").read_text()

    # a changed cap is a different match; --overwrite forgets every cached pair
    third = leaderboard("four_handed-v1", [Entrant("random", 20), Entrant("heuristic")], out, progress=False)
    assert third["played"] == [["random", "heuristic"]]
    again = leaderboard(
        "four_handed-v1", [Entrant("random", 40), Entrant("heuristic")], out, progress=False, fresh=True
    )
    assert again["played"] == [["random", "heuristic"]] and again["pairs"][0]["mean"] == pytest.approx(
        pair["mean"]
    )


def test_the_command_refuses_bad_boards_before_playing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = [
        (["--agents", "random", "nosuchagent"], "nosuchagent"),
        (["--agents", "random"], "at least two different agents"),
        (["--agents", "random", "search", "--anchor", "heuristic"], "--anchor 'heuristic'"),
        (["--agents", "random", "heuristic@x"], "'heuristic@x'"),
        (["--agents", "random", "heuristic", "--deal-set", "four_handed-v9"], "invalid choice"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit) as exit_:
            main([*argv, "--out", str(tmp_path / "b")])
        assert exit_.value.code == 2 and message in capsys.readouterr().err
    assert not (tmp_path / "b").exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(SystemExit):
        main(["--agents", "random", "heuristic", "--out", str(tmp_path / "file")])
    assert "is a file" in capsys.readouterr().err
