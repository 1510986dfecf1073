"""Hand records (euchre_env.records): recorded hands round-trip through JSON and replay to the states played.

Hands of both games (every preset, hand and game episodes, random and
heuristic agents) are recorded while the engine plays them, saved, loaded
and replayed; the replayed states are compared with the states the table
passed through. Malformed records (hand-made faults and a few hundred random
mutations of real records) are refused with a ValueError naming the field.
``euchre play --record`` and ``euchre eval --records`` write loadable records.
"""

from __future__ import annotations

import copy
import io
import json
from dataclasses import fields

import numpy as np
import pytest

from agents import make_agent
from apps import play as play_mod
from arena import evaluate as evaluate_mod
from arena.evaluate import play_tables
from euchre_env import actions, engine
from euchre_env.encoding import encode
from euchre_env.records import (
    FORMAT,
    HandRecord,
    HandRecorder,
    deal_of,
    load_records,
    replay,
    save_records,
)
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from euchre_env.state import State

LAST = ("hand_over", *(f.name for f in fields(State) if f.name.startswith("last_")))


def play_table(rules: RulesConfig, seed: int, agent: str, rng: np.random.Generator) -> tuple[list, list]:
    """One table played to the end of its episode with ``agent`` at every seat.

    Returns the hand records and the states (batch 1) the table passed through.
    """
    policy = make_agent(agent, rules)
    rec = HandRecorder(rules, agents=[agent] * rules.num_players)
    s = engine.init_state(rules, seeds=[seed])
    trace = [s]
    while not engine.is_done(s)[0]:
        obs = encode(s, s.turn, rules)
        a = np.asarray(policy.act(obs, engine.legal_action_mask(s, rules), rng), np.int64)
        rec(s, a)
        s = engine.step(s, a, rules)
        trace.append(s)
    return rec.finish(s), trace


def split_hands(trace: list[State]) -> list[list[State]]:
    """The trace cut into hands: each from its deal to the state after its last decision."""
    hands, start = [], 0
    for i, s in enumerate(trace[1:], start=1):
        if s.hand_over[0]:
            hands.append(trace[start : i + 1])
            start = i  # a game's next hand is dealt by the step that ended this one
    return hands


def same_but(a: State, b: State, skip: tuple[str, ...]) -> bool:
    return all(
        np.array_equal(getattr(a, f.name), getattr(b, f.name)) for f in fields(State) if f.name not in skip
    )


CASES = [(name, episode) for name in sorted(PRESETS) for episode in ("hand", "game")]


@pytest.mark.parametrize(("preset", "episode"), CASES)
@pytest.mark.parametrize("agent", ["random", "heuristic"])
def test_recorded_hands_round_trip_and_replay_the_states_played(
    preset, episode, agent, tmp_path, rng
) -> None:
    rules = make_rules(preset, episode=episode, points_to_win=5)
    records, trace = play_table(rules, int(rng.integers(2**63)), agent, rng)
    hands = split_hands(trace)
    assert len(records) == len(hands) == int(trace[-1].hand_no[0]) + 1
    path = save_records(tmp_path / "hands.jsonl", records)
    loaded = load_records(path)
    assert loaded == records
    for k, (rec, played) in enumerate(zip(loaded, hands, strict=True)):
        assert rec.agents == (agent,) * rules.num_players
        assert rec.hand_no == k and rec.rules == rules
        assert len(rec.decisions) == len(played) - 1
        states = replay(rec)
        assert len(states) == len(played)
        assert rec.points == tuple(int(x) for x in played[-1].last_points[0])
        assert rec.scores == tuple(int(x) for x in played[-1].scores[0])
        assert states[-1] == played[-1]  # the whole state, a game's next deal or its end included
        for mine, theirs in zip(states[:-1], played[:-1], strict=True):
            # a later hand of a game: the engine still holds the previous hand's record
            assert mine == theirs if k == 0 else same_but(mine, theirs, LAST)
        for d, before in zip(rec.decisions, played[:-1], strict=True):
            assert d.seat == int(before.turn[0]) and d.name == actions.describe(d.action)


@pytest.mark.parametrize("variant", ["five_handed", "four_handed_no_stick"])
def test_recorder_as_a_play_tables_observer_records_every_hand_of_a_batch(variant) -> None:
    rules = make_rules(variant, episode="game", points_to_win=4)
    p = rules.num_players
    pols = [make_agent("random", rules), make_agent("heuristic", rules)]
    slots = np.tile(np.arange(p) % 2, (6, 1))
    slots[::2] = 1 - slots[::2]
    names = ["random", "heuristic"]
    rec = HandRecorder(rules, agents=[[names[k] for k in row] for row in slots])
    s = play_tables(rules, np.arange(6, dtype=np.uint64), slots, pols, np.random.default_rng(1), observer=rec)
    records = rec.finish(s)
    assert len(records) == int((s.hand_no + 1).sum()) and rec.records == records
    by_seed = {}
    for r in records:
        by_seed.setdefault(r.seed, []).append(r)
    for row in range(6):
        mine = by_seed[row]
        assert [r.hand_no for r in mine] == list(range(int(s.hand_no[row]) + 1))
        assert mine[-1].scores == tuple(int(x) for x in s.scores[row])
        assert mine[-1].agents == tuple(names[k] for k in slots[row])
        for r in mine:
            assert HandRecord.from_json(r.to_json()) == r
    # the final scores are the sums of the points
    assert all(
        tuple(sum(col) for col in zip(*(r.points for r in by_seed[row]), strict=True))
        == tuple(int(x) for x in s.scores[row])
        for row in range(6)
    )


def a_record(variant: str = "four_handed", seed: int = 11) -> dict:
    rules = make_rules(variant)
    records, _ = play_table(rules, seed, "heuristic", np.random.default_rng(seed))
    return records[0].to_dict()


def test_the_format_as_documented() -> None:
    d = a_record()
    assert d["format"] == FORMAT and d["version"] == 1
    assert list(d) == [
        "format", "version", "rules", "seed", "hand_no", "deal", "decisions", "points", "scores", "agents"
    ]  # fmt: skip
    assert isinstance(d["seed"], str) and d["seed"].isdigit()  # JSON numbers above 2**53 lose digits
    assert set(d["deal"]) == {"dealer", "hands", "upcard", "kitty", "scores"}
    assert set(d["decisions"][0]) == {"seat", "action", "name"}
    # the deal is the engine's given-deal format: it deals the same table
    s = engine.init_state(make_rules("four_handed"), seeds=[int(d["seed"])])
    assert deal_of(s, make_rules("four_handed")) == d["deal"]
    json.loads(json.dumps(d))  # plain JSON


def test_load_records_reads_one_record_a_list_or_json_lines(tmp_path) -> None:
    a, b = a_record(seed=1), a_record("five_handed", seed=2)
    (tmp_path / "one.json").write_text(json.dumps(a, indent=2))
    (tmp_path / "list.json").write_text(json.dumps([a, b]))
    (tmp_path / "lines.jsonl").write_text(json.dumps(a) + "\n\n" + json.dumps(b) + "\n")
    assert [r.to_dict() for r in load_records(tmp_path / "one.json")] == [a]
    assert [r.to_dict() for r in load_records(tmp_path / "list.json")] == [a, b]
    assert [r.to_dict() for r in load_records(tmp_path / "lines.jsonl")] == [a, b]
    bad = dict(b, points=[9, 9, 9, 9, 9])
    (tmp_path / "bad.jsonl").write_text(json.dumps(a) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(ValueError, match=r"bad\.jsonl: line 2: record points: the record says"):
        load_records(tmp_path / "bad.jsonl")
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(ValueError, match="holds no hand record"):
        load_records(tmp_path / "empty.jsonl")
    (tmp_path / "junk.jsonl").write_text(json.dumps(a) + "\n{oops\n")
    with pytest.raises(ValueError, match=r"line 2: not valid JSON"):
        load_records(tmp_path / "junk.jsonl")


def test_gzip_record_files_round_trip_append_and_refuse_what_is_not_gzip(tmp_path) -> None:
    """A name ending in .gz is read and written compressed; the same records give the same bytes; appending
    adds a gzip member; a file that is not gzip is refused naming it, a missing one raises OSError."""
    a, b = (HandRecord.from_dict(a_record(seed=1)), HandRecord.from_dict(a_record("five_handed", seed=2)))
    path = save_records(tmp_path / "hands.jsonl.gz", [a])
    first = path.read_bytes()
    assert first[:2] == b"\x1f\x8b" and save_records(tmp_path / "again.jsonl.gz", [a]).read_bytes() == first
    save_records(path, [b], append=True)
    assert [r.to_dict() for r in load_records(path)] == [a.to_dict(), b.to_dict()]
    (tmp_path / "plain.jsonl.gz").write_text(a.to_json())
    with pytest.raises(ValueError, match=r"plain\.jsonl\.gz: not a gzip file of hand records"):
        load_records(tmp_path / "plain.jsonl.gz")
    with pytest.raises(OSError):
        load_records(tmp_path / "missing.jsonl.gz")


def _edit(d: dict, path: tuple, value: object) -> dict:
    d = copy.deepcopy(d)
    node = d
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return d


def _illegal_at(d: dict) -> tuple[int, int]:
    """A decision index and an action id that is not legal there."""
    rec = HandRecord.from_dict(d)
    states = replay(rec)
    for i, s in enumerate(states[:-1]):
        legal = engine.expand(s.mask_base, s.mask_bits)[0]
        if int(s.phase[0]) == actions.Phase.PLAY and not legal.all():
            return i, int(np.flatnonzero(~legal[: actions.DISCARD_BASE])[0])
    raise AssertionError("no play decision")


def test_malformed_records_are_refused_naming_the_field() -> None:
    d = a_record()
    n = len(d["decisions"])
    i, illegal = _illegal_at(d)
    first = d["decisions"][0]
    wrong_seat = (first["seat"] + 1) % 4
    cases = [
        ([1, 2], r"^record: expected a JSON object"),
        (_edit(d, ("points",), KeyError), r"missing keys \['points'\]"),
        (dict(d, extra=1), r"unknown keys \['extra'\]"),
        (dict(d, format="something"), r"^record format: expected 'euchre-env/hand-record'"),
        (dict(d, version=2), r"^record version: expected 1"),
        (dict(d, version=True), r"^record version"),
        (_edit(d, ("rules", "variant"), "six_handed"), r"^record rules\.variant: expected one of"),
        (_edit(d, ("rules", "points_to_win"), "10"), r"^record rules: points_to_win must be an integer"),
        (_edit(d, ("rules", "cheat"), True), r"^record rules: unknown keys \['cheat'\]"),
        (dict(d, seed=-1), r"^record seed: expected a decimal string"),
        (dict(d, seed="12a"), r"^record seed"),
        (dict(d, hand_no=1.5), r"^record hand_no: expected an integer"),
        (_edit(d, ("deal", "hands", 0, 0), d["deal"]["hands"][1][0]), r"^record deal: deal: card .* appears twice"),
        (_edit(d, ("deal", "dealer"), 4), r"^record deal: deal dealer must be a seat in 0\.\.3"),
        (_edit(d, ("deal", "upcard"), "8C"), r"^record deal: .*8C is not in the four_handed deck"),
        (dict(d, decisions=[]), r"^record decisions: expected 1\.\.100 decisions"),
        (dict(d, decisions="pass"), r"^record decisions: expected a list"),
        (_edit(d, ("decisions", 0), [0, 84]), r"^record decisions\[0\]: expected an object"),
        (_edit(d, ("decisions", 0, "seat"), wrong_seat), rf"^record decisions\[0\]\.seat: the record says seat {wrong_seat}"),
        (_edit(d, ("decisions", 0, "action"), 93), r"^record decisions\[0\]\.action: expected an integer in 0\.\.92"),
        (_edit(d, ("decisions", 0, "name"), "order up" if first["name"] == "pass" else "pass"), r"^record decisions\[0\]\.name: .* does not match action"),
        (
            _edit(_edit(d, ("decisions", i, "action"), illegal), ("decisions", i, "name"), actions.describe(illegal)),
            rf"^record decisions\[{i}\]\.action: {illegal} \(play .*\) is not legal: phase PLAY",
        ),
        (dict(d, decisions=d["decisions"][:-1]), rf"^record decisions: the hand is not over after the record's {n - 1} decisions"),
        (dict(d, decisions=[*d["decisions"], first]), rf"^record decisions\[{n}\]: the hand ended after decision {n - 1}"),
        (dict(d, points=[5, 5, 5, 5]), r"^record points: the record says \[5, 5, 5, 5\], the replay scores"),
        (dict(d, points=[0, 0, 0]), r"^record points: expected a list of 4 integers"),
        (dict(d, scores=[7, 7, 7, 7]), r"^record scores: the record says \[7, 7, 7, 7\] after the hand"),
        (dict(d, agents=["a", "b"]), r"^record agents: expected null or a list of 4 names"),
        (dict(d, agents=["a", "b", "c", ""]), r"^record agents\[3\]: expected a name"),
    ]  # fmt: skip
    for bad, pattern in cases:
        with pytest.raises(ValueError, match=pattern):
            HandRecord.from_dict(bad)
    with pytest.raises(ValueError, match=r"^record: not valid JSON"):
        HandRecord.from_json("{")
    with pytest.raises(ValueError, match=r"^record: HandRecord.from_json needs JSON text"):
        HandRecord.from_json(d)  # type: ignore[arg-type]
    assert HandRecord.from_dict(dict(d, agents=None)).agents is None  # agents are optional


JUNK = [None, True, -1, 0, 1, 3, 7, 84, 92, 93, 2**70, 1.5, "", "AS", "pass", "8C", [], [0], {}, {"seat": 0}]


def _paths(node: object, prefix: tuple = ()) -> list[tuple]:
    """Every key path inside a record (to the leaves and the containers)."""
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for k, v in enumerate(node):
            out += _paths(v, (*prefix, k))
    return out


def _mutate(d: dict, rng: np.random.Generator) -> dict:
    paths = _paths(d)
    path = paths[rng.integers(len(paths))]
    kind = rng.integers(5)
    if kind == 0:  # another value of any type
        return _edit(d, path, copy.deepcopy(JUNK[rng.integers(len(JUNK))]))
    if kind == 1 and isinstance(path[-1], str):  # a key removed
        return _edit(d, path, KeyError)
    if kind == 2:  # two decisions swapped
        out = copy.deepcopy(d)
        a, b = rng.choice(len(out["decisions"]), 2, replace=False)
        out["decisions"][a], out["decisions"][b] = out["decisions"][b], out["decisions"][a]
        return out
    if kind == 3:  # two cards of the deal exchanged (a different, valid deal)
        out = copy.deepcopy(d)
        hands = out["deal"]["hands"]
        h1, h2 = rng.choice(len(hands), 2, replace=False)
        c1, c2 = rng.integers(5, size=2)
        hands[h1][c1], hands[h2][c2] = hands[h2][c2], hands[h1][c1]
        return out
    out = copy.deepcopy(d)  # a decision's action changed (its name kept in step)
    k = int(rng.integers(len(out["decisions"])))
    a = int(rng.integers(actions.NUM_ACTIONS))
    out["decisions"][k].update(action=a, name=actions.describe(a))
    return out


def test_fuzzed_records_are_refused_with_a_clear_error_or_replay_consistently() -> None:
    rng = np.random.default_rng(7)
    originals = [
        a_record("four_handed", 3),
        a_record("five_handed", 4),
        a_record("four_handed_defend_alone", 5),
    ]
    refused = 0
    for k in range(300):
        d = _mutate(originals[k % 3], rng)
        try:
            rec = HandRecord.from_dict(d)
        except ValueError as err:
            assert str(err).startswith("record"), str(err)
            refused += 1
            continue
        # accepted: then it is a hand the engine plays exactly so
        states = replay(rec)
        assert bool(states[-1].hand_over[0])
        assert rec.points == tuple(int(x) for x in states[-1].last_points[0])
        assert HandRecord.from_json(rec.to_json()) == rec
    assert refused > 250  # almost every mutation breaks something the checks see


def test_deal_of_refuses_a_table_past_its_deal() -> None:
    rules = make_rules("four_handed")
    s = engine.init_state(rules, seeds=[1])
    s = engine.step(s, [actions.PASS], rules)
    with pytest.raises(ValueError, match="not at the start of a hand"):
        deal_of(s, rules)


def test_euchre_play_record_writes_the_hands_played(tmp_path) -> None:
    path = tmp_path / "hands.jsonl"
    out = io.StringIO()
    status = play_mod.main(
        ["--variant", "five_handed", "--hands", "2", "--seed", "4", "--record", str(path), "--ascii"],
        inp=io.StringIO("1\n" * 200),
        out=out,
    )
    assert status == 0
    records = load_records(path)
    assert len(records) == 2
    assert f"wrote 2 hand record(s) to {path}" in out.getvalue()
    for r in records:
        assert r.agents == ("human", "heuristic", "heuristic", "heuristic", "heuristic")
        assert r.rules == PRESETS["five_handed"]
    # the totals printed are the records' points
    totals = [sum(r.points[x] for r in records) for x in range(5)]
    assert f"total rewards: {', '.join(f'player_{i} {t:g}' for i, t in enumerate(totals))}" in out.getvalue()


def test_euchre_play_record_in_a_folder_that_does_not_exist(capsys) -> None:
    """Refused before any hand is dealt: exit status 2 and one line naming --record and the folder."""
    with pytest.raises(SystemExit) as stop:
        play_mod.main(["--record", "/nonexistent-folder/x.jsonl"], inp=io.StringIO(""), out=io.StringIO())
    assert stop.value.code == 2
    assert "--record '/nonexistent-folder/x.jsonl': its folder '/nonexistent-folder' does not exist" in (
        capsys.readouterr().err
    )


def test_euchre_eval_records_writes_every_hand_of_every_match(tmp_path) -> None:
    folder = tmp_path / "records"

    def argv(out: str, *more: str) -> list[str]:
        return ["--variant", "four_handed", "--agents", "random", "heuristic", "--deals", "2",
                "--games", "2", "--points-to-win", "3", "--seed", "1", "--out", str(tmp_path / out),
                "--records", str(folder), "--quiet", "--no-plot", *more]  # fmt: skip

    assert evaluate_mod.main(argv("eval")) == 0
    files = sorted(p.name for p in folder.iterdir())
    assert files == ["0-random-vs-heuristic.jsonl"]
    counts = []
    for name in files:
        records = load_records(folder / name)
        counts.append(len(records))
        a, b = name[2:-6].split("-vs-")
        deals = [r for r in records if r.rules.episode == "hand"]
        games = [r for r in records if r.rules.episode == "game"]
        assert len(deals) == 2 * 2  # deals x rotations
        assert {r.agents for r in deals} == {(a, b, a, b), (b, a, b, a)}
        assert len(games) >= 2 * 2 and all(r.rules.points_to_win == 3 for r in games)
    with pytest.raises(SystemExit):  # the folder holds records: not replaced without --overwrite
        evaluate_mod.main(argv("eval2"))
    assert evaluate_mod.main(argv("eval2", "--overwrite")) == 0  # replaced, not appended to
    assert [len(load_records(folder / name)) for name in files] == counts
