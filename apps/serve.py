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
import copy
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

import numpy as np

from apps.play import Narrator, card_text, phase_words
from euchre_env import actions, cards, engine
from euchre_env.actions import Phase
from euchre_env.encoding import encode
from euchre_env.records import HandRecord, HandRecorder
from euchre_env.render import TableView, agent_name, table_view
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from euchre_env.state import State
from euchre_env.types import Policy

__all__ = ["ApiError", "Game", "Replay", "ServeConfig", "create_app", "main"]

WEB_DIR = Path(__file__).with_name("web")
HUMAN = "human"  # the agent name of the person's seat (in the view and the records)
MAX_GAMES = 64  # games kept in memory; the oldest is dropped beyond this
MAX_REPLAYS = 64
MAX_LOG = 400  # lines of the hand's story kept per game
SHIPPED_MODELS = ("model:four_handed", "model:five_handed")
LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
MAX_REQUEST_BYTES = 1 << 20  # 1 MiB: the largest request body accepted (a hand record is about 5 KB)
TOO_LARGE = (  # the 413 error: it says nothing of the request
    f"the request body is too large: this server accepts at most {MAX_REQUEST_BYTES} bytes "
    f"({MAX_REQUEST_BYTES / 2**20:g} MiB)"
)
QUOTE_CHARS = 80  # an error message quotes at most this much of a value the request sent
# An error message is never longer than this: a backstop for messages of the library's checks (a hand
# record's), which quote values shortly but may list a request's keys whole. The server's own stay under.
MAX_ERROR_CHARS = 500


class ApiError(Exception):
    """A refused request: HTTP ``status`` and a message for the person (the game is unchanged)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# --- the JSON a view is made of ------------------------------------------------------------------


def card_json(card: int) -> dict[str, Any]:
    """A card for the page: ``{"id", "name": "TH", "label": "10♥", "rank", "suit", "symbol", "red"}``."""
    name = cards.name(card)
    suit = int(card) // cards.NUM_RANKS
    return {
        "id": int(card),
        "name": name,
        "label": card_text(card),
        "rank": "10" if name[0] == "T" else name[0],
        "suit": name[1],
        "symbol": cards.SUIT_SYMBOLS[suit],
        "red": suit in (cards.DIAMONDS, cards.HEARTS),
    }


def _suit_json(suit: int | None) -> dict[str, Any] | None:
    if suit is None:
        return None
    return {"id": suit, "name": cards.SUIT_NAMES[suit], "symbol": cards.SUIT_SYMBOLS[suit],
            "red": suit in (cards.DIAMONDS, cards.HEARTS)}  # fmt: skip


def action_json(action: int) -> dict[str, Any]:
    """A legal move for the page: its id, words, kind and card (for play, discard and call)."""
    a = int(action)
    if a < actions.DISCARD_BASE:
        kind = "play"
    elif a < actions.CALL_BASE:
        kind = "discard"
    elif a < actions.PASS:
        kind = "call"
    else:
        kind = "bid"
    card = card_json(a % cards.NUM_CARDS) if a < actions.PASS else None
    label = card["label"] if card else actions.describe(a)
    return {"id": a, "name": actions.describe(a), "kind": kind, "card": card, "label": label}


def _trick_json(index: int, leader: int, winner: int | None, played: Sequence[tuple[int, int]]) -> dict:
    return {
        "index": index,
        "leader": leader,
        "winner": winner,
        "cards": [{"seat": seat, "card": card_json(c)} for seat, c in played],
    }


class HandStory:
    """The public story of the hands at one table as one seat is told it, step by step.

    ``lines``: :class:`apps.play.Narrator`'s words for the seat (or for a
    spectator, ``viewer`` None); ``tricks``: the current hand's finished
    tricks with their winners; ``last_tricks``: those of the hand before (a
    game deals on as soon as a hand ends). Only public facts and what the
    viewer's seat may see go in.
    """

    def __init__(self, rules: RulesConfig, viewer: int | None) -> None:
        self.rules = rules
        self.narrator = Narrator(rules, viewer, symbols=True)
        self.lines: list[str] = []
        self.tricks: list[dict[str, Any]] = []
        self.last_tricks: list[dict[str, Any]] | None = None

    def start(self, s: State) -> None:
        """A new hand was dealt (the first of an episode)."""
        self.tricks = []
        self._say(["", *self.narrator.hand_header(s)])

    def step(self, before: State, seat: int, action: int, after: State) -> None:
        """``seat`` took ``action`` in ``before``, giving ``after``."""
        self._say(self.narrator.after_step(before, seat, action, after))
        if int(before.phase[0]) == Phase.PLAY:
            self._trick(before, seat, action, after)
        if bool(after.hand_over[0]) and int(after.phase[0]) != Phase.DONE:  # a game dealt the next hand
            self.last_tricks, self.tricks = self.tricks, []

    def _trick(self, before: State, seat: int, card: int, after: State) -> None:
        p = self.rules.num_players
        done_before = [int(x) for x in before.tricks_won[0, :p]]
        counts = [int(x) for x in (after.last_tricks[0] if bool(after.hand_over[0]) else after.tricks_won[0])]
        if sum(counts[:p]) == sum(done_before):
            return  # the trick goes on
        t, n = int(before.trick_no[0]), int(before.n_played[0])
        leader = int(before.leader[0])
        order = [(leader + k) % p for k in range(p)]
        played = [
            (x, int(before.trick_cards[0, t, x])) for x in order if int(before.trick_cards[0, t, x]) >= 0
        ]
        assert len(played) == n
        winner = next(x for x in range(p) if counts[x] > done_before[x])
        self.tricks.append(_trick_json(t, leader, winner, [*played, (seat, int(card))]))

    def _say(self, lines: Sequence[str]) -> None:
        self.lines.extend(lines)
        del self.lines[:-MAX_LOG]


def _seats_json(v: TableView, rules: RulesConfig, names: Sequence[str], human: int | None) -> list[dict]:
    out = []
    for seat in range(rules.num_players):
        out.append({
            "seat": seat,
            "label": agent_name(seat),
            "agent": names[seat],
            "you": seat == human,
            "dealer": seat == v.dealer,
            "maker": seat == v.maker,
            "to_act": seat == v.to_act,
            "cards": v.hand_counts[seat],
            "tricks": v.tricks_won[seat],
            "score": v.scores[seat],
            "sitting_out": seat in v.sitting_out,
            "defends_alone": seat == v.defender_alone,
            "partner_known": v.called_holder == seat,
        })  # fmt: skip
    return out


def view_json(
    s: State,
    rules: RulesConfig,
    viewer: int | None,
    names: Sequence[str],
    story: HandStory,
    *,
    reveal_all: bool = False,
) -> dict[str, Any]:
    """What the page shows of table 0 of ``s`` to seat ``viewer`` (None: the seat to act, for replays).

    Everything comes from ``table_view(s, rules, viewer)`` and ``story``,
    except with ``reveal_all`` (replays of a finished hand), which adds every
    seat's hand, the kitty, the discard and the hidden partner.
    """
    v = table_view(s, rules, viewer)
    trick = None
    if v.trick is not None:
        trick = _trick_json(v.trick.index, v.trick.leader, v.trick.winner, v.trick.cards)
    summary = None
    if v.summary is not None:
        h = v.summary
        summary = {
            "maker": h.maker, "trump": _suit_json(h.trump), "alone": h.alone,
            "called": card_json(h.called) if h.called is not None else None,
            "partner": h.partner, "points": list(h.points),
            "tricks": [int(x) for x in s.last_tricks[0, : rules.num_players]],
        }  # fmt: skip
    over = v.phase == Phase.DONE
    out: dict[str, Any] = {
        "variant": rules.variant,
        "num_players": rules.num_players,
        "episode": rules.episode,
        "points_to_win": rules.points_to_win,
        "viewer": v.viewer,
        "hand_no": v.hand_no,
        "phase": v.phase.name,
        "phase_words": "hand over" if over else phase_words(v),
        "dealer": v.dealer,
        "upcard": card_json(v.upcard) if v.upcard >= 0 else None,
        "upcard_fate": v.upcard_fate,
        "bids": [{"round": r, "bids": [{"seat": x, "word": w} for x, w in words]} for r, words in v.bids],
        "trump": _suit_json(v.trump),
        "maker": v.maker,
        "alone": v.alone,
        "with_partner": v.with_partner,
        "called": card_json(v.called) if v.called is not None else None,
        "called_holder": v.called_holder,
        "reveal_trick": v.reveal_trick,
        "defender_alone": v.defender_alone,
        "trick": trick,
        "tricks": list(story.tricks),
        "last_tricks": story.last_tricks,
        "seats": _seats_json(v, rules, names, viewer),
        "tricks_won": list(v.tricks_won),
        "scores": list(v.scores),
        "summary": summary,
        "to_act": v.to_act,
        "hand": [card_json(c) for c in v.hand],
        "discard": card_json(v.discard) if v.discard is not None else None,
        "log": list(story.lines),
        "game_over": over and rules.episode == "game",
        "winners": [x for x in range(rules.num_players) if int(s.winners[0]) >> x & 1],
    }
    if reveal_all:  # a replay with every card shown: the table seen from seat 0's side, no "own" hand
        p = rules.num_players
        partner = int(s.partner[0]) if int(s.partner[0]) >= 0 else None
        out.update(viewer=None, hand=[], discard=None, partner=partner)
        if v.called is not None:
            out["called_holder"] = partner
        for seat in out["seats"]:
            seat["partner_known"] = v.called is not None and seat["seat"] == partner
        out["all_hands"] = [[card_json(c) for c in cards.cards_of(int(h))] for h in s.hands[0, :p]]
        hidden_kitty = (
            int(s.kitty[0]) & ~(1 << int(s.upcard[0])) if int(s.upcard[0]) >= 0 else int(s.kitty[0])
        )
        out["kitty"] = [card_json(c) for c in cards.cards_of(hidden_kitty)]
        out["dealer_discard"] = card_json(int(s.discard[0])) if int(s.discard[0]) >= 0 else None
    return out


def belief_json(s: State, rules: RulesConfig, seat: int) -> dict[str, Any] | None:
    """Five-handed: seat's exact belief over who is the maker's hidden partner, None when there is none yet."""
    if not rules.called_card:
        return None
    from euchre_env.beliefs import ExactBelief

    result = ExactBelief()(s, rules, seat)
    if not bool(result.defined[0]):
        return None
    probs = [float(x) for x in result.probs[0]]
    return {
        "seat": seat,
        "kind": "exact",
        "seats": [{"seat": x, "p": probs[x]} for x in range(rules.num_players)],
        "no_partner": probs[rules.num_players],
    }


# --- games ------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class ServeConfig:
    """The server's defaults (the page's new-game form starts from them) and the agents it may seat.

    Attributes:
        variant: a rules preset name (``PRESETS``).
        seat: the human's seat.
        bots: one agent name for every other seat, or one per other seat from the human's left.
        seed: seed of the deals and bots (None: a fresh secret one per game).
        episode: ``"hand"`` (one hand at a time) or ``"game"`` (to ``points_to_win``).
        points_to_win: the game target (None: the preset's).
        belief: show the five-handed partner belief panel.
        extra_agents: agent names the page may choose besides the built-in ones (those given on the
            command line, e.g. ``model:runs/ppo/model.safetensors``).
        hosts: the host names a request may be addressed to (its ``Host`` header); None: any. A page
            of another site cannot then reach the server through a name of its own pointed at this
            machine (DNS rebinding).
    """

    variant: str = "four_handed"
    seat: int = 0
    bots: tuple[str, ...] = ("heuristic",)
    seed: int | None = None
    episode: str = "hand"
    points_to_win: int | None = None
    belief: bool = True
    extra_agents: tuple[str, ...] = ()
    hosts: tuple[str, ...] | None = LOCAL_HOSTS

    def allowed_agents(self) -> list[str]:
        """Agent names a request may seat (any other name is refused: loading a model reads a file)."""
        from agents import agent_names

        known = [n for n in agent_names() if not n.endswith(":...")]
        return list(dict.fromkeys([*known, *SHIPPED_MODELS, *self.bots, *self.extra_agents]))


class Game:
    """One table being played in the browser: the engine state, the bots, the story and the records.

    A refused request never reaches a ``Game`` method that changes it (the
    server checks first), and a request that is carried out works on a clone
    (:meth:`clone`) that replaces the game only when everything succeeded.
    """

    def __init__(
        self,
        game_id: str,
        rules: RulesConfig,
        human: int,
        names: Sequence[str],
        bots: dict[int, Policy],
        seed: int | None,
        belief: bool,
    ) -> None:
        self.id = game_id
        self.rules = rules
        self.human = human
        self.names = list(names)
        self.bots = bots
        self.belief = belief and rules.called_card
        self.chosen_seed = seed
        # The deals' seeds: from the chosen seed (reproducible), else secret.
        self.seed_rng = np.random.default_rng(seed if seed is not None else secrets.randbits(64))
        self.rng = np.random.default_rng(self.seed_rng.integers(0, 2**63))
        self.version = 0
        self.hands_played = 0
        self.totals = [0] * rules.num_players  # hand-by-hand play: points over the hands
        self.story = HandStory(rules, human)
        self.recorder = HandRecorder(rules, agents=self.names)
        self.records: list[HandRecord] = []
        self.pending: list[HandRecord] = []  # game play: the records of a game not yet over
        self.state = self._deal()

    def clone(self) -> Game:
        """A copy to work on (the bots and rules are shared; everything that changes is copied)."""
        new = copy.copy(self)
        for name in ("story", "recorder", "seed_rng", "rng"):
            setattr(new, name, copy.deepcopy(getattr(self, name)))
        new.totals, new.records, new.pending = list(self.totals), list(self.records), list(self.pending)
        new.state = self.state.copy()
        return new

    def _deal(self) -> State:
        s = engine.init_state(self.rules, seeds=[int(self.seed_rng.integers(0, 2**63))])
        self.story.start(s)
        return s

    @property
    def over(self) -> bool:
        """The episode (a hand, or a game) is over."""
        return bool(engine.is_done(self.state)[0])

    def legal(self) -> list[int]:
        """The legal action ids of the seat to act ([] once over)."""
        if self.over:
            return []
        return engine.expand(self.state.mask_base, self.state.mask_bits)[0].nonzero()[0].tolist()

    def _step(self, action: int) -> None:
        before = self.state
        seat = int(before.turn[0])
        self.recorder(before, np.array([action], np.int64))
        after = engine.step(before, np.array([action], np.int64), self.rules)
        self.state = after
        self.version += 1
        self.story.step(before, seat, action, after)
        if bool(after.hand_over[0]):
            self.hands_played += 1
            self.totals = [a + int(b) for a, b in zip(self.totals, after.last_points[0], strict=True)]
            done = self.recorder.finish(after)
            if self.rules.episode == "game" and not self.over:
                self.pending += done
            else:
                self.records += self.pending + done
                self.pending = []

    def run_bots(self) -> None:
        """Let the bots move until it is the human's turn or the episode is over."""
        while not self.over and int(self.state.turn[0]) != self.human:
            seat = int(self.state.turn[0])
            obs = encode(self.state, seat, self.rules, dtype=np.float32)
            mask = engine.legal_action_mask(self.state, self.rules)
            action = int(np.asarray(self.bots[seat].act(obs, mask, self.rng)).reshape(-1)[0])
            if not (0 <= action < mask.shape[1] and mask[0, action]):
                raise RuntimeError(
                    f"bot {self.names[seat]!r} at seat {seat} chose an illegal action {action}"
                )
            self._step(action)

    def move(self, action: int) -> None:
        """The human's (already checked) legal action, then the bots'."""
        self._step(action)
        self.run_bots()

    def next_hand(self) -> None:
        """Hand-by-hand play: deal the next hand (the previous one is over)."""
        self.state = self._deal()
        self.version += 1
        self.run_bots()

    def view(self) -> dict[str, Any]:
        """The page's view from the human's seat."""
        out = view_json(self.state, self.rules, self.human, self.names, self.story)
        out.update(
            game_id=self.id,
            version=self.version,
            human=self.human,
            your_turn=not self.over and int(self.state.turn[0]) == self.human,
            legal=[action_json(a) for a in self.legal()]
            if not self.over and self.state.turn[0] == self.human
            else [],
            hands_played=self.hands_played,
            totals=list(self.totals),
            can_deal=self.over and self.rules.episode == "hand",
            records=len(self.records),
            belief=belief_json(self.state, self.rules, self.human) if self.belief and not self.over else None,
        )
        return out


class Replay:
    """A checked hand record opened for stepping through (under ``episode="hand"``, so its last step is
    the finished hand even for a hand of a game)."""

    def __init__(self, replay_id: str, record: HandRecord) -> None:
        self.id = replay_id
        self.record = record
        self.rules = make_rules(record.rules, episode="hand")
        self.states = dataclasses.replace(record, rules=self.rules).states()
        self._stories: dict[int | None, list[tuple[int, list[dict], list[str]]]] = {}

    @property
    def steps(self) -> int:
        """Decisions in the hand (the views are steps 0..steps)."""
        return len(self.record.decisions)

    def _story(self, viewer: int | None) -> list[tuple[int, list[dict], list[str]]]:
        """Per step: (lines told so far, finished tricks, the lines) as ``viewer`` is told the hand."""
        if viewer not in self._stories:
            story = HandStory(self.rules, viewer)
            story.start(self.states[0])
            snaps = [(len(story.lines), list(story.tricks))]
            for d, before, after in zip(
                self.record.decisions, self.states[:-1], self.states[1:], strict=True
            ):
                story.step(before, d.seat, d.action, after)
                snaps.append((len(story.lines), list(story.tricks)))
            self._stories[viewer] = [(n, t, story.lines) for n, t in snaps]
        return self._stories[viewer]

    def view(self, step: int, seat: int | None) -> dict[str, Any]:
        """The table after ``step`` decisions, from ``seat`` (None: every hand shown)."""
        s = self.states[step]
        n, tricks, lines = self._story(seat)[step]
        story = HandStory(self.rules, seat)
        story.lines, story.tricks = lines[:n], tricks
        names = (
            list(self.record.agents)
            if self.record.agents
            else [agent_name(x) for x in range(self.rules.num_players)]
        )
        out = view_json(s, self.rules, seat, names, story, reveal_all=seat is None)
        nxt = self.record.decisions[step] if step < self.steps else None
        prev = self.record.decisions[step - 1] if step > 0 else None
        # From one seat: the seat's own decisions, and the others' once taken (a discard stays face down).
        hide = lambda d: (
            seat is not None and d.seat != seat and d.action in range(actions.DISCARD_BASE, actions.CALL_BASE)
        )
        decision = lambda d: None if d is None else {
            "seat": d.seat, "action": None if hide(d) else d.action,
            "name": "discard (face down)" if hide(d) else d.name,
        }  # fmt: skip
        out.update(
            replay_id=self.id, step=step, steps=self.steps,
            next_decision=decision(nxt) if nxt is not None and seat in (None, nxt.seat) else None,
            previous_decision=decision(prev), record_points=list(self.record.points),
            record_scores=list(self.record.scores), rules=self.record.to_dict()["rules"],
        )  # fmt: skip
        return out


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
