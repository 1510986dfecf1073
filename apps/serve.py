"""Play Euchre in the browser against bots, and replay recorded hands (``euchre serve``).

One command starts a local web server and opens the page::

    euchre serve                                    # four-handed, heuristic bots, http://127.0.0.1:8000
    euchre serve --variant five_handed --bots search heuristic heuristic trained
    euchre serve --game --points-to-win 5 --seed 7 --no-browser

The page (plain HTML, CSS and JavaScript in ``apps/web/``, no build step)
shows the table from your seat: your cards (click one to play it; the legal
ones are highlighted), the bids, the maker, trump, the called card, the trick
on the table and every finished trick with its winner, tricks won, scores and
the end of the hand or game; optionally, five-handed, your exact belief over
who is the maker's hidden partner (:class:`euchre_env.beliefs.ExactBelief`).
Every hand played is kept as a hand record (:mod:`euchre_env.records`) that
you can download and replay step by step, as can any record file from
``euchre play --record`` or ``euchre eval --records``.

**What the page may see.** Every view is built from
:func:`euchre_env.render.table_view` of your seat, the public trick history
and the hand's story as :class:`apps.play.Narrator` tells it to your seat,
so no other seat's hidden card (hands, the kitty, a bot's discard) is ever
sent to the browser. Records of a game's hands are handed out only once they
cannot tell the future: after each hand in hand-by-hand play (each hand is
dealt from a fresh secret seed unless you chose one), after the game in game
play (a record holds the table seed, from which the engine deals the game's
later hands).

**The JSON API** (every error is ``{"error": message}`` with a 4xx status,
and a refused request leaves the game exactly as it was):

* ``GET /api/config``: the defaults, the variants and the agent names allowed.
* ``POST /api/games`` ``{"variant", "seat", "bots", "seed", "episode",
  "points_to_win", "belief"}`` (every key optional): a new game; the bots
  move until it is your turn. Returns the view.
* ``GET /api/games/<id>``: the view (``version`` counts the game's changes).
* ``POST /api/games/<id>/move`` ``{"version", "seat", "action"}``: your
  decision (an action id from the view's ``legal`` list). Refused: another
  seat than yours (403), a stale ``version`` (409), an illegal action or a
  malformed body (400), an unknown game (404).
* ``POST /api/games/<id>/next`` ``{"version"}``: deal the next hand (hand-by-hand play).
* ``GET /api/games/<id>/records``: the records handed out so far
  (``?format=jsonl`` for a JSON Lines download).
* ``POST /api/replays`` ``{"record": {...}}``: check a record and open it for
  replay; ``GET /api/replays/<id>?step=k&seat=all|<seat>``: the table after
  ``k`` decisions, from one seat or with every hand shown.

A request body larger than ``MAX_REQUEST_BYTES`` (1 MiB) is refused (413)
before it is read. A body that is not valid JSON is ``malformed JSON`` (400),
valid JSON that is not an object is told apart from it, and an error message
quotes at most the first ``QUOTE_CHARS`` (80) characters of any value the
request sent.

Requests that change something must be JSON (``Content-Type:
application/json``), which a page of another site cannot send to this server
without its consent. The server has no accounts: it listens on 127.0.0.1 by
default; do not expose it to a network you do not trust.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import secrets
import sys
import threading
import webbrowser
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from apps.web_games import HUMAN, LOCAL_HOSTS, ApiError, Game, Replay, ServeConfig
from euchre_env import actions
from euchre_env.records import HandRecord
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from euchre_env.types import Policy

__all__ = ["ApiError", "Game", "Replay", "ServeConfig", "create_app", "main"]

MAX_GAMES = 64  # games kept in memory; the oldest is dropped beyond this
MAX_REPLAYS = 64
WEB_DIR = Path(__file__).with_name("web")
MAX_REQUEST_BYTES = 1 << 20  # 1 MiB: the largest request body accepted (a hand record is about 5 KB)
TOO_LARGE = (  # the 413 error: it says nothing of the request
    f"the request body is too large: this server accepts at most {MAX_REQUEST_BYTES} bytes "
    f"({MAX_REQUEST_BYTES / 2**20:g} MiB)"
)
QUOTE_CHARS = 80  # an error message quotes at most this much of a value the request sent
# An error message is never longer than this: a backstop for messages of the library's checks (a hand
# record's), which quote values shortly but may list a request's keys whole. The server's own stay under.
MAX_ERROR_CHARS = 500


# --- request checks ---------------------------------------------------------------------------------


def _quote(value: Any) -> str:
    """``repr(value)`` for an error message, cut to its first ``QUOTE_CHARS`` characters.

    A cut quote ends with ``...`` and says how long the whole was, so a message never echoes a large
    value back (a request may send up to ``MAX_REQUEST_BYTES``, a URL or a header more).
    """
    if isinstance(value, str):  # cut before repr: a long string is not copied whole
        if len(value) <= QUOTE_CHARS:
            return repr(value)
        return f"{value[:QUOTE_CHARS]!r}... ({len(value)} characters)"
    try:
        text = repr(value)
    except RecursionError:
        text = f"<a {type(value).__name__} nested too deeply>"
    if len(text) <= QUOTE_CHARS:
        return text
    return f"{text[:QUOTE_CHARS]}... (a {type(value).__name__} of {len(text)} characters)"


def _clip(message: str, limit: int) -> str:
    """``message`` cut to ``limit`` characters (``...`` marks a cut)."""
    return message if len(message) <= limit else message[: limit - 3] + "..."


_JSON_TYPES = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", int: "a number",
               float: "a number", type(None): "null"}  # fmt: skip


def _body(request: Any, keys: Sequence[str], required: Sequence[str]) -> dict[str, Any]:
    """The request's JSON object, with only ``keys`` and every one of ``required``.

    Raises:
        ApiError: 415 not JSON by its Content-Type; 400 malformed JSON (the body does not parse),
            JSON that is not an object, unknown or missing keys; 413 a body over
            ``MAX_REQUEST_BYTES`` (with its length declared, Werkzeug refuses it as it is read).
    """
    if not request.is_json:
        raise ApiError(415, "the request body must be JSON (Content-Type: application/json)")
    data = request.get_data(cache=True)  # a declared length over MAX_CONTENT_LENGTH raises 413
    if request.content_length is None and len(data) >= MAX_REQUEST_BYTES:
        # A chunked body (no length declared) is read up to the limit and silently cut there.
        raise ApiError(413, TOO_LARGE)
    try:
        body = json.loads(data)
    except RecursionError:
        raise ApiError(400, "malformed JSON in the request body: nested too deeply") from None
    except ValueError as err:  # JSONDecodeError, UnicodeDecodeError: positions, no text of the body
        raise ApiError(
            400, f"malformed JSON in the request body: {_clip(str(err), 2 * QUOTE_CHARS)}"
        ) from None
    if not isinstance(body, dict):
        kind = _JSON_TYPES.get(type(body), type(body).__name__)
        raise ApiError(400, f"the request body must be a JSON object, got {kind}")
    unknown = sorted(str(k) for k in set(body) - set(keys))
    missing = sorted(set(required) - set(body))
    if unknown or missing:
        raise ApiError(
            400, f"unknown keys {_quote(unknown)}, missing keys {missing}; expected keys {list(keys)}"
        )
    return body


def _int(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ApiError(400, f"{what} must be an integer in {low}..{high}, got {_quote(value)}")
    return value


class _Store:
    """Games or replays by id, the oldest dropped beyond ``limit``."""

    def __init__(self, limit: int, what: str) -> None:
        self.items: OrderedDict[str, Any] = OrderedDict()
        self.limit, self.what = limit, what

    def get(self, key: str) -> Any:
        if key not in self.items:
            raise ApiError(
                404, f"no {self.what} {_quote(key)} on this server (they live in its memory: start a new one)"
            )
        return self.items[key]

    def put(self, key: str, item: Any) -> None:
        self.items[key] = item
        while len(self.items) > self.limit:
            self.items.popitem(last=False)


def create_app(config: ServeConfig | None = None) -> Any:
    """The Flask app: the page, its static files and the JSON API (module docstring).

    Raises:
        ImportError: Flask is not installed (``pip install -e ".[web]"``).
    """
    from flask import Flask, Response, jsonify, request, send_from_directory
    from werkzeug.exceptions import HTTPException, RequestEntityTooLarge

    config = config or ServeConfig()
    app = Flask(__name__, static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_REQUEST_BYTES  # reading a larger body raises 413
    app.json.ensure_ascii = False  # the suit symbols as they are
    app.json.sort_keys = False
    lock = threading.Lock()
    games, replays = _Store(MAX_GAMES, "game"), _Store(MAX_REPLAYS, "replay")
    policies: dict[tuple[str, RulesConfig], Policy] = {}
    app.config["EUCHRE_GAMES"], app.config["EUCHRE_REPLAYS"] = games.items, replays.items
    allowed = config.allowed_agents()

    @app.errorhandler(ApiError)
    def _api_error(err: ApiError) -> Any:
        return jsonify(error=_clip(err.message, MAX_ERROR_CHARS)), err.status

    @app.errorhandler(RequestEntityTooLarge)
    def _too_large(err: RequestEntityTooLarge) -> Any:
        return jsonify(error=TOO_LARGE), 413

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException) -> Any:
        return jsonify(error=_clip(f"{err.code} {err.name}: {err.description}", MAX_ERROR_CHARS)), err.code

    @app.before_request
    def _check_host() -> None:
        if config.hosts is None:
            return
        name = urlsplit("//" + request.host).hostname or ""
        if name not in config.hosts:
            raise ApiError(
                403, f"requests must be addressed to {list(config.hosts)}, not {_quote(request.host)}"
            )

    @app.before_request
    def _check_size() -> None:
        # A declared length over the limit is refused on every route, before anything reads the body
        # (a chunked body without one is cut off by MAX_CONTENT_LENGTH when it is read).
        if request.content_length is not None and request.content_length > MAX_REQUEST_BYTES:
            raise ApiError(413, TOO_LARGE)

    @app.after_request
    def _no_cache(response: Any) -> Any:
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response

    @app.get("/")
    def _index() -> Any:
        return send_from_directory(WEB_DIR, "index.html")

    @app.get("/static/<path:name>")
    def _static(name: str) -> Any:
        return send_from_directory(WEB_DIR, name)

    @app.get("/api/config")
    def _config() -> Any:
        d = dataclasses.asdict(config)
        d["bots"], d["extra_agents"] = list(config.bots), list(config.extra_agents)
        players = {name: r.num_players for name, r in PRESETS.items()}
        return jsonify(defaults=d, variants=sorted(PRESETS), players=players, agents=allowed)

    def _policy(name: str, rules: RulesConfig) -> Policy:
        from agents import make_agent

        if name not in allowed:
            raise ApiError(400, f"agent {_quote(name)} is not offered by this server; choose from {allowed}")
        key = (name, rules)
        if key not in policies:
            try:
                policies[key] = make_agent(name, rules)
            except (ValueError, OSError) as err:
                raise ApiError(400, f"agent {name!r} cannot play {rules.variant}: {err}") from None
        return policies[key]

    @app.post("/api/games")
    def _new_game() -> Any:
        keys = ("variant", "seat", "bots", "seed", "episode", "points_to_win", "belief")
        body = _body(request, keys, ())
        variant = body.get("variant", config.variant)
        if variant not in PRESETS:
            raise ApiError(400, f"variant must be one of {sorted(PRESETS)}, got {_quote(variant)}")
        episode = body.get("episode", config.episode)
        if episode not in ("hand", "game"):
            raise ApiError(400, f"episode must be 'hand' or 'game', got {_quote(episode)}")
        settings: dict[str, Any] = {"episode": episode}
        ptw = body.get("points_to_win", config.points_to_win)
        if ptw is not None:
            settings["points_to_win"] = _int(ptw, "points_to_win", 1, 1000)
        rules = make_rules(variant, **settings)
        p = rules.num_players
        seat = _int(body.get("seat", config.seat if config.seat < p else 0), "seat", 0, p - 1)
        seed = body.get("seed", config.seed)
        if seed is not None:
            seed = _int(seed, "seed", 0, 2**53 - 1)
        belief = body.get("belief", config.belief)
        if not isinstance(belief, bool):
            raise ApiError(400, f"belief must be true or false, got {_quote(belief)}")
        others = [(seat + 1 + k) % p for k in range(p - 1)]  # from the human's left
        bots = body.get("bots", list(config.bots))
        if isinstance(bots, str):
            bots = [bots]
        if (
            not isinstance(bots, list)
            or len(bots) not in (1, p - 1)
            or not all(isinstance(b, str) for b in bots)
        ):
            raise ApiError(
                400,
                f"bots must be one agent name or {p - 1} (one per other seat, from your left), got {_quote(bots)}",
            )
        names = bots * (p - 1) if len(bots) == 1 else bots
        with lock:
            seated = {x: _policy(n, rules) for x, n in zip(others, names, strict=True)}
            labels = [HUMAN] * p
            for x, n in zip(others, names, strict=True):
                labels[x] = n
            game = Game(secrets.token_urlsafe(12), rules, seat, labels, seated, seed, belief)
            game.run_bots()
            games.put(game.id, game)
            return jsonify(game.view()), 201

    @app.get("/api/games/<game_id>")
    def _get_game(game_id: str) -> Any:
        with lock:
            return jsonify(games.get(game_id).view())

    def _check_version(game: Game, body: dict[str, Any]) -> None:
        version = body["version"]
        if isinstance(version, bool) or not isinstance(version, int):
            raise ApiError(400, f"version must be an integer (the view's version), got {_quote(version)}")
        if version != game.version:
            raise ApiError(
                409,
                f"stale request: it was made at version {version}, the game is at version {game.version}; "
                "reload the view",
            )

    @app.post("/api/games/<game_id>/move")
    def _move(game_id: str) -> Any:
        with lock:
            game = games.get(game_id)
            body = _body(request, ("version", "seat", "action"), ("version", "seat", "action"))
            _check_version(game, body)
            seat = _int(body["seat"], "seat", 0, game.rules.num_players - 1)
            if seat != game.human:
                raise ApiError(403, f"you play seat {game.human} in this game; seat {seat} is a bot's")
            if game.over:
                raise ApiError(409, "the hand is over: deal the next hand or start a new game")
            action = _int(body["action"], "action", 0, actions.NUM_ACTIONS - 1)
            legal = game.legal()
            if action not in legal:
                names = ", ".join(f"{a} ({actions.describe(a)})" for a in legal)
                raise ApiError(
                    400, f"action {action} ({actions.describe(action)}) is not legal now; legal: {names}"
                )
            work = game.clone()
            work.move(action)
            games.items[game_id] = work
            return jsonify(work.view())

    @app.post("/api/games/<game_id>/next")
    def _next(game_id: str) -> Any:
        with lock:
            game = games.get(game_id)
            body = _body(request, ("version",), ("version",))
            _check_version(game, body)
            if not game.over:
                raise ApiError(409, "the hand is not over yet")
            if game.rules.episode != "hand":
                raise ApiError(409, "the game is over: start a new game")
            work = game.clone()
            work.next_hand()
            games.items[game_id] = work
            return jsonify(work.view())

    @app.get("/api/games/<game_id>/records")
    def _records(game_id: str) -> Any:
        with lock:
            game = games.get(game_id)
            records, pending = list(game.records), len(game.pending)
        fmt = request.args.get("format", "json")
        if fmt == "jsonl":
            text = "".join(r.to_json() + "\n" for r in records)
            return Response(text, mimetype="application/x-ndjson",
                            headers={"Content-Disposition": f'attachment; filename="euchre-{game_id}.jsonl"'})  # fmt: skip
        if fmt != "json":
            raise ApiError(400, f"format must be 'json' or 'jsonl', got {_quote(fmt)}")
        return jsonify(records=[r.to_dict() for r in records], pending=pending)

    @app.post("/api/replays")
    def _new_replay() -> Any:
        body = _body(request, ("record",), ("record",))
        try:
            record = HandRecord.from_dict(body["record"])
        except ValueError as err:
            raise ApiError(400, f"not a valid hand record: {err}") from None  # cut to MAX_ERROR_CHARS
        with lock:
            rep = Replay(secrets.token_urlsafe(12), record)
            replays.put(rep.id, rep)
            return jsonify(rep.view(0, None)), 201

    @app.get("/api/replays/<replay_id>")
    def _get_replay(replay_id: str) -> Any:
        with lock:
            rep = replays.get(replay_id)
            step_text = request.args.get("step", "0")
            if not step_text.isdigit() or int(step_text) > rep.steps:
                raise ApiError(400, f"step must be an integer in 0..{rep.steps}, got {_quote(step_text)}")
            seat_text = request.args.get("seat", "all")
            p = rep.rules.num_players
            if seat_text == "all":
                seat = None
            elif seat_text.isdigit() and int(seat_text) < p:
                seat = int(seat_text)
            else:
                raise ApiError(400, f"seat must be 'all' or a seat in 0..{p - 1}, got {_quote(seat_text)}")
            return jsonify(rep.view(int(step_text), seat))

    return app


# --- the command ------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre serve``."""
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument("--variant", default="four_handed", choices=sorted(PRESETS), help="rules preset")
    parser.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    parser.add_argument("--bots", nargs="+", default=["heuristic"],
                        help="agent name for every other seat, or one per other seat from your left "
                        "(heuristic, random, search, trained, model:<path>); the page offers these and "
                        "the built-in agents")  # fmt: skip
    parser.add_argument("--game", action="store_true", help="play whole games to --points-to-win")
    parser.add_argument("--points-to-win", type=int, default=None, help="game target (default: the preset's)")
    parser.add_argument(
        "--seed", type=int, default=None, help="seed of the deals and the bots (default: secret)"
    )
    parser.add_argument("--no-belief", action="store_true", help="hide the five-handed partner-belief panel")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="euchre serve", description="Play Euchre in the browser against bots, and replay hand records."
    )
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        rules = make_rules(
            args.variant, **({} if args.points_to_win is None else {"points_to_win": args.points_to_win})
        )
    except ValueError as err:
        parser.error(str(err))
    p = rules.num_players
    if not 0 <= args.seat < p:
        parser.error(f"--seat must be a seat in 0..{p - 1}, got {args.seat}")
    if len(args.bots) not in (1, p - 1):
        parser.error(f"--bots takes one agent name or {p - 1} (one per other seat), got {args.bots}")
    if args.seed is not None and not 0 <= args.seed < 2**53:
        parser.error(f"--seed must be an integer in 0..2**53-1, got {args.seed}")
    if not 0 <= args.port < 65536:
        parser.error(f"--port must be in 0..65535, got {args.port}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """CLI entry point (``euchre serve``). Serves until interrupted; returns the exit status."""
    args = _parse_args(argv)
    try:
        import flask  # noqa: F401
    except ImportError:
        print('euchre serve: needs Flask: pip install -e ".[web]"', file=sys.stderr)
        return 2
    from agents import make_agent

    config = ServeConfig(
        variant=args.variant, seat=args.seat, bots=tuple(args.bots), seed=args.seed,
        episode="game" if args.game else "hand", points_to_win=args.points_to_win,
        belief=not args.no_belief, extra_agents=tuple(args.bots),
        hosts=None if args.host in ("0.0.0.0", "::") else tuple(dict.fromkeys([*LOCAL_HOSTS, args.host])),
    )  # fmt: skip
    rules = make_rules(args.variant)
    for name in dict.fromkeys(args.bots):  # a bad name fails now, not in the browser
        try:
            make_agent(name, rules)
        except (ValueError, OSError) as err:
            print(f"euchre serve: --bots: {err}", file=sys.stderr)
            return 2
    if any(n == "trained" or n.startswith("model:") for n in args.bots):
        import torch

        torch.set_num_threads(1)
    from werkzeug.serving import make_server

    server = make_server(args.host, args.port, create_app(config), threaded=True)
    url = f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{server.port}/"
    print(f"euchre serve: {url}  (Ctrl-C to stop)")
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            "euchre serve: warning: listening beyond this machine; the server has no accounts",
            file=sys.stderr,
        )
    if not args.no_browser:
        threading.Timer(0.5, _open_browser, (url,)).start()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("\neuchre serve: stopped")
    finally:
        server.server_close()
    return 0


def _open_browser(url: str) -> None:
    with contextlib.suppress(webbrowser.Error):  # no browser here: the URL is printed
        webbrowser.open(url)


if __name__ == "__main__":
    sys.exit(main())
