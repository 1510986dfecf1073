"""``euchre serve``: the JSON API behind the browser page, driven as the page drives it (Flask's test client).

* Whole hands and games of both games are played through the API by choosing
  among the legal moves the view offers, and every view is checked against
  the engine state the server holds: the hand, the legal moves, the seat to
  act, cards held, tricks (with their winners), bids, trump, scores, the hand
  summary, the game's end, the five-handed belief panel; no view ever names a
  card hidden from the player's seat (another seat's hand, the kitty, a
  bot's discard).
* Illegal, stale and forged requests (another seat, a wrong game id, a
  malformed body, a foreign Host) are refused with a clear JSON error and the
  game is exactly as before.
* A record saved from a served game replays through the replay API, and the
  replay's view from the player's seat is the view the player had.
* The page is served, references only static files that exist, and every
  element its script looks up is in it (no JavaScript is run here).
"""

from __future__ import annotations

import json
import re
import threading
import urllib.error
import urllib.request
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from apps import serve
from apps.serve import ServeConfig, create_app
from euchre_env import actions, cards, engine
from euchre_env.beliefs import ExactBelief
from euchre_env.records import HandRecord
from euchre_env.rules import PRESETS
from euchre_env.state import State

CARD = re.compile(r"(?<![\w])(10|[89TJQKA])([♣♦♥♠CDHS])(?![\w])")
WEB = Path(serve.__file__).with_name("web")


@pytest.fixture
def app():
    return create_app(ServeConfig())


@pytest.fixture
def client(app):
    return app.test_client()


def games(app) -> dict:
    return app.config["EUCHRE_GAMES"]


def new_game(client, **body) -> dict:
    r = client.post("/api/games", json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def post_move(client, view: dict, action: int) -> dict:
    r = client.post(
        f"/api/games/{view['game_id']}/move",
        json={"version": view["version"], "seat": view["human"], "action": action},
    )
    assert r.status_code == 200, r.get_json()
    return r.get_json()


# --- what a seat may know ---------------------------------------------------------------------------


def hidden_from(s: State, seat: int) -> set[int]:
    """Cards ``seat`` may not know now: the other hands, the kitty, another seat's discard (the upcard
    and the called card are public wherever they are)."""
    hidden = set(cards.cards_of(int(s.kitty[0])))
    for other in range(s.hands.shape[1]):
        if other != seat:
            hidden |= set(cards.cards_of(int(s.hands[0, other])))
    if int(s.dealer[0]) != seat and int(s.discard[0]) >= 0:
        hidden.add(int(s.discard[0]))
    return hidden - {int(s.upcard[0]), int(s.called[0])}


def card_ids(node: object) -> set[int]:
    """Every card object (``{"id", "name", "label", ...}``) anywhere in a view."""
    out = set()
    if isinstance(node, dict):
        if {"id", "name", "label", "symbol"} <= set(node):
            assert cards.name(node["id"]) == node["name"]
            out.add(node["id"])
        for v in node.values():
            out |= card_ids(v)
    elif isinstance(node, list):
        for v in node:
            out |= card_ids(v)
    return out


def named_in(lines: list[str]) -> set[int]:
    return {cards.parse(rank + suit) for line in lines for rank, suit in CARD.findall(line)}


def current_hand_lines(lines: list[str]) -> list[str]:
    """The story's lines since the current hand's deal (an earlier hand's cards may be dealt anew)."""
    starts = [i for i, line in enumerate(lines) if line.startswith("--- hand ") and " deals, upcard " in line]
    return lines[starts[-1] :] if starts else lines


def check_view(view: dict, game) -> None:
    """The view against the engine state the server holds for the game."""
    s, rules, human = game.state, game.rules, game.human
    p = rules.num_players
    assert view["version"] == game.version and view["human"] == human and view["viewer"] == human
    assert [c["id"] for c in view["hand"]] == cards.cards_of(int(s.hands[0, human]))
    turn = int(s.turn[0])
    assert view["to_act"] == (turn if turn >= 0 else None)
    assert view["your_turn"] == (turn == human)
    legal = engine.expand(s.mask_base, s.mask_bits)[0].nonzero()[0].tolist() if turn == human else []
    assert [a["id"] for a in view["legal"]] == legal
    for a in view["legal"]:
        assert a["name"] == actions.describe(a["id"])
    assert view["phase"] == actions.Phase(int(s.phase[0])).name
    assert view["dealer"] == int(s.dealer[0])
    assert [x["cards"] for x in view["seats"]] == [int(h).bit_count() for h in s.hands[0, :p]]
    assert view["tricks_won"] == [int(x) for x in s.tricks_won[0, :p]]
    assert view["scores"] == [int(x) for x in s.scores[0, :p]]
    assert [x["agent"] for x in view["seats"]] == game.names
    made = int(s.trump[0]) < 4
    assert (view["trump"] or {}).get("id") == (int(s.trump[0]) if made else None)
    assert view["maker"] == (int(s.maker[0]) if made else None)
    assert (view["called"] or {}).get("id") == (int(s.called[0]) if made and int(s.called[0]) >= 0 else None)
    # finished tricks with their winners, as the engine has them
    if int(s.phase[0]) == actions.Phase.PLAY or (
        int(s.phase[0]) == actions.Phase.DONE and int(s.leader[0]) >= 0
    ):
        finished = int(sum(s.tricks_won[0]))
        assert len(view["tricks"]) == finished
        for t in view["tricks"]:
            k = t["index"]
            assert t["winner"] == int(s.trick_winner[0, k])
            assert {(c["seat"], c["card"]["id"]) for c in t["cards"]} == {
                (x, int(s.trick_cards[0, k, x])) for x in range(p) if int(s.trick_cards[0, k, x]) >= 0
            }
    if s.hand_over[0]:
        assert view["summary"]["points"] == [int(x) for x in s.last_points[0, :p]]
    else:
        assert view["summary"] is None
    # nothing hidden from the seat, in the structured view or in the story of this hand
    hidden = hidden_from(s, human)
    # (the legal moves are checked below; the hand before, in a game, was all played in the open)
    shown = card_ids({k: v for k, v in view.items() if k not in ("legal", "last_tricks", "summary")})
    if view["summary"] is not None and view["phase"] == "DONE":
        shown |= card_ids(view["summary"])
    assert not shown & hidden, f"hidden cards in the view: {shown & hidden}"
    for a in view["legal"]:  # a card to play or discard is the seat's own; a call names any card it lacks
        if a["kind"] in ("play", "discard"):
            assert a["card"]["id"] in cards.cards_of(int(s.hands[0, human]))
    assert not named_in(current_hand_lines(view["log"])) & hidden
    assert "seed" not in json.dumps(view)
    if view["belief"] is not None:
        expected = ExactBelief()(s, rules, human).probs[0]
        got = [x["p"] for x in view["belief"]["seats"]] + [view["belief"]["no_partner"]]
        assert np.allclose(got, expected) and abs(sum(got) - 1) < 1e-9


def play_out(client, app, view: dict, rng: np.random.Generator, seen: list | None = None) -> dict:
    """Choose legal moves (as a person clicking would) until the episode is over; every view checked."""
    check_view(view, games(app)[view["game_id"]])
    while view["phase"] != "DONE":
        assert view["your_turn"], "the bots move until it is the person's turn"
        choice = view["legal"][rng.integers(len(view["legal"]))]
        if seen is not None:
            seen.append(view)
        view = post_move(client, view, choice["id"])
        check_view(view, games(app)[view["game_id"]])
    return view


# --- playing --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "seat", "bots"),
    [
        ("four_handed", 0, "heuristic"),
        ("five_handed", 3, "heuristic"),
        ("four_handed_defend_alone", 2, "random"),
    ],
)
def test_whole_hands_played_through_the_api(app, client, rng, variant, seat, bots) -> None:
    view = new_game(client, variant=variant, seat=seat, bots=bots, seed=int(rng.integers(2**40)))
    assert view["human"] == seat and view["episode"] == "hand"
    gid = view["game_id"]
    total = [0] * view["num_players"]
    beliefs = 0
    for hand in range(3):
        view = play_out(client, app, view, rng)
        beliefs += view["belief"] is not None
        assert view["can_deal"] and view["records"] == hand + 1 and view["hands_played"] == hand + 1
        total = [a + b for a, b in zip(total, view["summary"]["points"], strict=True)]
        assert view["totals"] == total
        assert len(view["tricks"]) == 5 or view["summary"]["maker"] is None
        r = client.post(f"/api/games/{gid}/next", json={"version": view["version"]})
        assert r.status_code == 200, r.get_json()
        view = r.get_json()
        assert view["phase"] != "DONE" and view["tricks"] == []
    records = client.get(f"/api/games/{gid}/records").get_json()["records"]
    assert len(records) == 3
    for rec, agents in ((HandRecord.from_dict(d), d["agents"]) for d in records):
        assert agents[seat] == "human" and all(a == bots for i, a in enumerate(agents) if i != seat)
        assert rec.rules == PRESETS[variant]


def test_five_handed_belief_panel_follows_the_exact_belief(app, client) -> None:
    view = new_game(client, variant="five_handed", seat=1, bots="heuristic", seed=3)
    rng = np.random.default_rng(3)
    shown = 0
    for _ in range(4):
        seen: list[dict] = []
        view = play_out(client, app, view, rng, seen)  # check_view compares each panel with ExactBelief
        shown += sum(v["belief"] is not None for v in seen)
        view = client.post(f"/api/games/{view['game_id']}/next", json={"version": view["version"]}).get_json()
    assert shown > 0
    off = new_game(client, variant="five_handed", seat=1, bots="heuristic", seed=3, belief=False)
    assert all(v is None for v in [off["belief"]])
    four = new_game(client, variant="four_handed", seed=3)
    assert four["belief"] is None


def test_a_whole_game_to_the_target_and_its_records_after_the_end(app, client) -> None:
    view = new_game(
        client, variant="five_handed", seat=0, bots="random", seed=9, episode="game", points_to_win=3
    )
    gid = view["game_id"]
    game_rng = np.random.default_rng(9)
    hands = 0
    while True:
        view = (
            post_move(client, view, view["legal"][game_rng.integers(len(view["legal"]))]["id"])
            if view["your_turn"]
            else view
        )
        check_view(view, games(app)[gid])
        listing = client.get(f"/api/games/{gid}/records").get_json()
        if view["phase"] == "DONE":
            break
        hands = view["hands_played"]
        assert listing["records"] == [] and listing["pending"] == hands  # a record would tell the game's seed
    s = games(app)[gid].state
    assert view["game_over"] and max(view["scores"]) >= 3
    assert view["winners"] == [x for x in range(5) if int(s.winners[0]) >> x & 1] and view["winners"]
    records = [HandRecord.from_dict(d) for d in client.get(f"/api/games/{gid}/records").get_json()["records"]]
    assert len(records) == view["hands_played"] == int(s.hand_no[0]) + 1
    assert [r.hand_no for r in records] == list(range(len(records)))
    assert records[-1].scores == tuple(view["scores"])
    r = client.post(f"/api/games/{gid}/next", json={"version": view["version"]})
    assert r.status_code == 409 and "start a new game" in r.get_json()["error"]


# --- refusals -------------------------------------------------------------------------------------


def snapshot(game) -> tuple:
    return (
        game.state.copy(), game.version, list(game.story.lines), json.dumps(game.story.tricks),
        len(game.records), len(game.pending), game.hands_played, list(game.totals),
    )  # fmt: skip


def same(a: tuple, b: tuple) -> bool:
    return a[0] == b[0] and a[1:] == b[1:]


def test_illegal_stale_and_forged_moves_are_refused_and_change_nothing(app, client) -> None:
    view = new_game(client, variant="four_handed", seat=0, bots="heuristic", seed=12)
    gid = view["game_id"]
    url = f"/api/games/{gid}/move"
    game = games(app)[gid]
    before = snapshot(game)
    legal = [a["id"] for a in view["legal"]]
    illegal = next(a for a in range(actions.NUM_ACTIONS) if a not in legal)
    ok = {"version": view["version"], "seat": 0, "action": legal[0]}
    cases = [
        (f"/api/games/{gid}x/move", {"json": ok}, 404, "no game"),
        (url, {"data": "version=1&seat=0&action=84", "content_type": "application/x-www-form-urlencoded"}, 415, "must be JSON"),
        (url, {"data": "{", "content_type": "application/json"}, 400, "^malformed JSON in the request body: "),
        (url, {"json": [ok]}, 400, "must be a JSON object, got an array"),
        (url, {"json": {"version": view["version"], "seat": 0}}, 400, r"missing keys \['action'\]"),
        (url, {"json": dict(ok, extra=1)}, 400, r"unknown keys \['extra'\]"),
        (url, {"json": dict(ok, version=view["version"] - 1)}, 409, "stale request"),
        (url, {"json": dict(ok, version=view["version"] + 5)}, 409, "stale request"),
        (url, {"json": dict(ok, version=str(view["version"]))}, 400, "version must be an integer"),
        (url, {"json": dict(ok, version=True)}, 400, "version must be an integer"),
        (url, {"json": dict(ok, seat=1)}, 403, "you play seat 0 in this game; seat 1 is a bot's"),
        (url, {"json": dict(ok, seat=4)}, 400, r"seat must be an integer in 0\.\.3"),
        (url, {"json": dict(ok, action=illegal)}, 400, f"action {illegal} .* is not legal now; legal: "),
        (url, {"json": dict(ok, action=93)}, 400, r"action must be an integer in 0\.\.92"),
        (url, {"json": dict(ok, action=-1)}, 400, "action must be an integer"),
        (url, {"json": dict(ok, action=float(legal[0]))}, 400, "action must be an integer"),
        (url, {"json": dict(ok, action=str(legal[0]))}, 400, "action must be an integer"),
        (url, {"json": dict(ok, action=None)}, 400, "action must be an integer"),
        (url, {"json": ok, "headers": {"Host": "evil.example:8000"}}, 403, "requests must be addressed to"),
        (f"/api/games/{gid}/next", {"json": {"version": view["version"]}}, 409, "the hand is not over yet"),
        (f"/api/games/{gid}/next", {"json": {}}, 400, r"missing keys \['version'\]"),
    ]  # fmt: skip
    for path, kwargs, status, message in cases:
        r = client.post(path, **kwargs)
        assert r.status_code == status, (path, kwargs, r.get_json())
        assert re.search(message, r.get_json()["error"]), r.get_json()
        assert same(snapshot(games(app)[gid]), before)
    assert client.get(f"/api/games/{gid}").get_json() == view  # what the page shows is as it was
    # a request sent twice: the second is stale
    moved = post_move(client, view, legal[0])
    after = snapshot(games(app)[gid])
    r = client.post(url, json=ok)
    assert r.status_code == 409 and same(snapshot(games(app)[gid]), after)
    assert client.get(f"/api/games/{gid}").get_json() == moved


def test_moves_after_the_hand_are_refused(app, client) -> None:
    view = play_out(client, app, new_game(client, seed=5), np.random.default_rng(5))
    gid = view["game_id"]
    before = snapshot(games(app)[gid])
    r = client.post(
        f"/api/games/{gid}/move", json={"version": view["version"], "seat": 0, "action": actions.PASS}
    )
    assert r.status_code == 409 and "the hand is over" in r.get_json()["error"]
    assert same(snapshot(games(app)[gid]), before)


def test_bad_new_game_requests_are_refused_and_start_nothing(app, client) -> None:
    cases = [
        ({"variant": "six_handed"}, "variant must be one of"),
        ({"seat": 4}, r"seat must be an integer in 0\.\.3"),
        ({"variant": "five_handed", "seat": 5}, r"seat must be an integer in 0\.\.4"),
        ({"bots": ["heuristic", "random"]}, "bots must be one agent name or 3"),
        ({"bots": 7}, "bots must be one agent name"),
        ({"bots": "model:/etc/passwd"}, "is not offered by this server"),
        ({"bots": "nobody"}, "is not offered by this server"),
        ({"episode": "match"}, "episode must be 'hand' or 'game'"),
        ({"points_to_win": 0}, r"points_to_win must be an integer in 1\.\.1000"),
        ({"seed": -3}, "seed must be an integer"),
        ({"belief": "yes"}, "belief must be true or false"),
        ({"cheat": True}, r"unknown keys \['cheat'\]"),
    ]
    for body, message in cases:
        r = client.post("/api/games", json=body)
        assert r.status_code == 400 and re.search(message, r.get_json()["error"]), (body, r.get_json())
    assert games(app) == {}
    assert client.get("/api/games/nothing").status_code == 404
    r = client.get("/api/nowhere")
    assert r.status_code == 404 and "error" in r.get_json()


def test_agents_given_on_the_command_line_are_offered(rng) -> None:
    app = create_app(ServeConfig(bots=("random",), extra_agents=("model:four_handed",)))
    agents = app.test_client().get("/api/config").get_json()["agents"]
    assert {"heuristic", "random", "search", "model:four_handed"} <= set(agents)
    assert not any(a.endswith(":...") for a in agents)


# --- replays --------------------------------------------------------------------------------------

TABLE_KEYS = ("hand", "trick", "tricks", "bids", "trump", "maker", "called", "called_holder", "upcard",
              "upcard_fate", "tricks_won", "scores", "phase", "to_act", "dealer", "discard", "summary")  # fmt: skip


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_a_served_hand_replays_as_the_player_saw_it(app, client, variant) -> None:
    rng = np.random.default_rng(21)
    seen: list[dict] = []
    view = play_out(client, app, new_game(client, variant=variant, seat=1, seed=21), rng, seen)
    seen.append(view)
    record = client.get(f"/api/games/{view['game_id']}/records").get_json()["records"][0]
    jsonl = client.get(f"/api/games/{view['game_id']}/records?format=jsonl")
    assert jsonl.status_code == 200 and json.loads(jsonl.get_data(as_text=True)) == record
    r = client.post("/api/replays", json={"record": record})
    assert r.status_code == 201, r.get_json()
    rid, steps = r.get_json()["replay_id"], r.get_json()["steps"]
    assert steps == len(record["decisions"])
    states = HandRecord.from_dict(record).states()
    # from the player's seat, each step the player decided at looks as it did live
    mine = [k for k, d in enumerate(record["decisions"]) if d["seat"] == 1] + [steps]
    assert len(mine) == len(seen)
    for k, live in zip(mine, seen, strict=True):
        rep = client.get(f"/api/replays/{rid}?step={k}&seat=1").get_json()
        for key in TABLE_KEYS:
            assert rep[key] == live[key], (k, key)
        assert current_hand_lines(rep["log"]) == current_hand_lines(live["log"])
        hidden = hidden_from(states[k], 1)
        assert not card_ids(rep) & hidden and not named_in(rep["log"]) & hidden
    # with every hand shown: the replayed states, step by step
    for k in range(steps + 1):
        rep = client.get(f"/api/replays/{rid}?step={k}&seat=all").get_json()
        s = states[k]
        assert [[c["id"] for c in h] for h in rep["all_hands"]] == [
            cards.cards_of(int(h)) for h in s.hands[0]
        ]
        assert rep["step"] == k and rep["viewer"] is None and rep["hand"] == []
        if k < steps:
            assert rep["next_decision"] == record["decisions"][k]
    assert rep["summary"]["points"] == record["points"] == rep["record_points"]


def test_replay_requests_are_checked(client) -> None:
    record = HandRecord.from_dict(
        json.loads((Path(__file__).parent / "data" / "hand_record.json").read_text())
    )
    good = record.to_dict()
    r = client.post("/api/replays", json={"record": dict(good, points=[1, 2, 3, 4])})
    assert r.status_code == 400 and "not a valid hand record: record points" in r.get_json()["error"]
    r = client.post("/api/replays", json={"record": "hello"})
    assert r.status_code == 400 and "record: expected a JSON object" in r.get_json()["error"]
    r = client.post("/api/replays", json={"records": [good]})
    assert r.status_code == 400
    r = client.post("/api/replays", json={"record": good})
    rid, steps = r.get_json()["replay_id"], r.get_json()["steps"]
    for query, message in [
        (f"step={steps + 1}", rf"step must be an integer in 0\.\.{steps}"),
        ("step=-1", "step must be an integer"),
        ("step=1&seat=4", r"seat must be 'all' or a seat in 0\.\.3"),
        ("step=1&seat=x", "seat must be"),
    ]:
        r = client.get(f"/api/replays/{rid}?{query}")
        assert r.status_code == 400 and re.search(message, r.get_json()["error"]), query
    assert client.get("/api/replays/nope?step=0").status_code == 404
    # from one seat, another seat's discard stays face down
    for k, d in enumerate(good["decisions"]):
        if actions.DISCARD_BASE <= d["action"] < actions.CALL_BASE:
            other = (d["seat"] + 1) % 4
            rep = client.get(f"/api/replays/{rid}?step={k + 1}&seat={other}").get_json()
            assert rep["previous_decision"] == {
                "seat": d["seat"],
                "action": None,
                "name": "discard (face down)",
            }
            assert d["action"] - actions.DISCARD_BASE not in card_ids(rep)
            break
    else:
        pytest.fail("the stored record has a discard")


# --- request size, malformed bodies, what an error quotes ------------------------------------------

BIG = "Z" * 100_000  # a value far longer than any error may quote


def longest_run(text: str, char: str = "Z") -> int:
    return max((len(m) for m in re.findall(f"{char}+", text)), default=0)


def test_a_body_over_the_size_limit_is_refused_with_a_short_error(app, client) -> None:
    """A body over ``MAX_REQUEST_BYTES`` (1 MiB) is refused with 413 on every route, before the server
    acts on it, with a short JSON error that echoes nothing of it; a body under the limit is served."""
    assert serve.MAX_REQUEST_BYTES == 1 << 20 and app.config["MAX_CONTENT_LENGTH"] == serve.MAX_REQUEST_BYTES
    view = new_game(client, seed=3)
    gid = view["game_id"]
    before = snapshot(games(app)[gid])
    huge = json.dumps({"variant": "Z" * (2 << 20)})
    for path in ("/api/games", f"/api/games/{gid}/move", f"/api/games/{gid}/next", "/api/replays"):
        r = client.post(path, data=huge, content_type="application/json")
        assert r.status_code == 413, (path, r.status_code)
        error = r.get_json()["error"]
        assert error == serve.TOO_LARGE and "1048576 bytes (1 MiB)" in error and "Z" not in error
    assert list(games(app)) == [gid] and same(snapshot(games(app)[gid]), before)
    padded = '{"seed": 1}' + " " * (serve.MAX_REQUEST_BYTES - 100)  # just under the limit: valid JSON
    assert client.post("/api/games", data=padded, content_type="application/json").status_code == 201


def test_a_chunked_body_over_the_limit_is_refused_by_a_real_server() -> None:
    """Sent without a length (chunked), the body is cut off at the limit as it is read: still 413, not a
    "malformed JSON" made of its first megabyte."""
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, create_app(ServeConfig()), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def chunks():
        yield b'{"variant": "'
        for _ in range(40):
            yield b"Z" * 65536
        yield b'"}'

    try:
        req = urllib.request.Request(
            f"http://127.0.0.1:{server.port}/api/games",
            data=chunks(),
            headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
            method="POST",
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req, timeout=30)
        assert info.value.code == 413
        assert json.loads(info.value.read())["error"] == serve.TOO_LARGE
    finally:
        server.shutdown()
        thread.join(10)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("{", r"^malformed JSON in the request body: Expecting property name"),
        ('{"seed": 1,}', r"^malformed JSON in the request body: "),
        ("", r"^malformed JSON in the request body: Expecting value"),
        (b"\xff\xfe\x00", r"^malformed JSON in the request body: "),
        ("[" * 100_000, r"^malformed JSON in the request body: nested too deeply"),
        ("null", r"^the request body must be a JSON object, got null$"),
        ("[1, 2]", r"^the request body must be a JSON object, got an array$"),
        ('"seed"', r"^the request body must be a JSON object, got a string$"),
        ("7", r"^the request body must be a JSON object, got a number$"),
    ],
    ids=["unclosed", "trailing_comma", "empty", "not_utf8", "too_deep", "null", "array", "string", "number"],
)
def test_malformed_json_is_told_apart_from_json_that_is_not_an_object(app, client, body, message) -> None:
    """A body that does not parse is "malformed JSON" (with where the parser stopped, none of the body);
    valid JSON of another kind is "must be a JSON object", with the kind it is. Nothing starts."""
    r = client.post("/api/games", data=body, content_type="application/json")
    assert r.status_code == 400 and re.search(message, r.get_json()["error"]), r.get_json()
    assert len(r.get_json()["error"]) < 200 and games(app) == {}


def test_errors_quote_only_a_short_prefix_of_what_was_sent(app, client) -> None:
    """Every refusal that quotes a value of the request (a body field, a key, the URL, the query, the Host
    header) quotes at most its first ``QUOTE_CHARS`` (80) characters and says how long it was; no error
    message is longer than ``MAX_ERROR_CHARS``."""
    view = new_game(client, seed=4)
    gid = view["game_id"]
    move = f"/api/games/{gid}/move"
    ok = {"version": view["version"], "seat": 0, "action": view["legal"][0]["id"]}
    record = json.loads((Path(__file__).parent / "data" / "hand_record.json").read_text())
    rid = client.post("/api/replays", json={"record": record}).get_json()["replay_id"]
    cases = [
        ("post", "/api/games", {"json": {"variant": BIG}}, 400, "variant must be one of"),
        ("post", "/api/games", {"json": {"episode": BIG}}, 400, "episode must be"),
        ("post", "/api/games", {"json": {"belief": BIG}}, 400, "belief must be true or false"),
        ("post", "/api/games", {"json": {"seed": BIG}}, 400, "seed must be an integer"),
        ("post", "/api/games", {"json": {"bots": BIG}}, 400, "is not offered by this server"),
        ("post", "/api/games", {"json": {"bots": [BIG, "random"]}}, 400, "bots must be one agent name"),
        ("post", "/api/games", {"json": {BIG: 1}}, 400, "unknown keys"),
        ("post", "/api/games", {"json": {"seat": [1] * 50_000}}, 400, "seat must be an integer"),
        ("post", move, {"json": dict(ok, version=BIG)}, 400, "version must be an integer"),
        ("post", move, {"json": dict(ok, action=BIG)}, 400, "action must be an integer"),
        ("post", f"/api/games/{BIG}/move", {"json": ok}, 404, "no game"),
        ("get", f"/api/games/{BIG}", {}, 404, "no game"),
        ("get", f"/api/games/{gid}/records?format={BIG}", {}, 400, "format must be"),
        ("get", f"/api/replays/{BIG}", {}, 404, "no replay"),
        ("get", f"/api/replays/{rid}?step={BIG}", {}, 400, "step must be an integer"),
        ("get", f"/api/replays/{rid}?seat={BIG}", {}, 400, "seat must be 'all'"),
        ("get", "/api/config", {"headers": {"Host": BIG}}, 403, "must be addressed"),
    ]  # fmt: skip
    for method, path, kwargs, status, message in cases:
        r = getattr(client, method)(path, **kwargs)
        error = r.get_json()["error"]
        assert r.status_code == status and message in error, (path[:100], r.status_code, error[:200])
        assert len(error) <= serve.MAX_ERROR_CHARS and longest_run(error) <= serve.QUOTE_CHARS, error[:300]
        assert re.search(r"\.\.\. \((a \w+ of )?\d+ characters\)", error), error  # it says it cut
    # a record's own checks quote its values shortly; their whole message is bounded all the same
    for bad in (
        dict(record, **{BIG: 1}),
        dict(record, agents=[BIG] * 4),
        dict(record, deal=dict(record["deal"], hands=[BIG] * 9)),
    ):
        r = client.post("/api/replays", json={"record": bad})
        error = r.get_json()["error"]
        assert r.status_code == 400 and error.startswith("not a valid hand record: "), error[:200]
        assert len(error) <= serve.MAX_ERROR_CHARS and BIG not in error


# --- the page -------------------------------------------------------------------------------------


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.refs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        a = dict(attrs)
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "script" and a.get("src"):
            self.refs.append(a["src"])
        if tag == "link" and a.get("rel") == "stylesheet":
            self.refs.append(a["href"])


def test_the_page_and_its_files_are_served(client) -> None:
    r = client.get("/")
    assert r.status_code == 200 and r.mimetype == "text/html"
    page = _Page()
    page.feed(r.get_data(as_text=True))
    assert sorted(page.refs) == ["/static/app.js", "/static/style.css"]
    types = {
        "/static/app.js": {"text/javascript", "application/javascript"},
        "/static/style.css": {"text/css"},
    }
    for ref in page.refs:
        got = client.get(ref)
        assert got.status_code == 200 and got.mimetype in types[ref]
        assert got.get_data() == (WEB / ref.rsplit("/", 1)[1]).read_bytes()
    # every element the script looks up by id is on the page
    script = (WEB / "app.js").read_text(encoding="utf-8")
    wanted = set(re.findall(r'\$\("([\w-]+)"\)', script))
    assert wanted and wanted <= page.ids, sorted(wanted - page.ids)
    # and the API paths it calls exist
    for path in ("/api/config", "/api/games", "/api/replays"):
        assert path in script
    assert client.get("/static/../serve.py").status_code == 404
    assert client.get("/static/nothing.js").status_code == 404


def test_a_real_http_round_trip() -> None:
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, create_app(ServeConfig()), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.port}"
        with urllib.request.urlopen(f"{base}/api/config", timeout=10) as r:
            assert json.loads(r.read())["defaults"]["variant"] == "four_handed"
        req = urllib.request.Request(
            f"{base}/api/games",
            data=b'{"seed": 1}',
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 201 and json.loads(r.read())["your_turn"]
    finally:
        server.shutdown()
        thread.join(10)


def test_cli_refuses_bad_arguments(capsys) -> None:
    for argv, message in [
        (["--seat", "4"], r"--seat must be a seat in 0\.\.3"),
        (["--bots", "random", "heuristic"], "--bots takes one agent name or 3"),
        (["--port", "70000"], r"--port must be in 0\.\.65535"),
        (["--points-to-win", "0"], "points_to_win must be an integer"),
    ]:
        with pytest.raises(SystemExit):
            serve.main(argv)
        assert re.search(message, capsys.readouterr().err), argv
    assert serve.main(["--bots", "nobody", "--no-browser"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err
