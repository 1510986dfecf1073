"""Hand records: one hand as JSON (the deal, every decision, the points), saved, loaded and replayed.

A record tells one hand completely: replaying its decisions from its deal
through the engine (:func:`replay`) passes through the same states the table
did, so a hand played in the browser (``euchre serve``), in the terminal
(``euchre play --record FILE``) or in a tournament (``euchre eval --records
DIR``) can be stepped through again, decision by decision.

**Format** (``format`` ``"euchre-env/hand-record"``, ``version`` 1), a JSON object::

    {"format": "euchre-env/hand-record", "version": 1,
     "rules": {"variant": "four_handed", "stick_the_dealer": true, "defend_alone": false,
               "points_to_win": 10, "episode": "hand"},
     "seed": "8306239245961318459",     # the table seed (a decimal string: JSON numbers lose digits)
     "hand_no": 0,                      # the hand's number in its game, 0-based
     "deal": {"dealer": 3,              # the engine's given-deal format (engine.deal.deal_order)
              "hands": [["9C", "JC", "TD", "QD", "KH"], ...],   # one hand of 5 per seat, seat 0 first
              "upcard": "9H",
              "kitty": ["TC", "8D", "AS"],                      # the hidden kitty (the upcard apart)
              "scores": [0, 0, 0, 0]},                          # the scores when the hand was dealt
     "decisions": [{"seat": 0, "action": 84, "name": "pass"},  # every decision, in order:
                   {"seat": 1, "action": 85, "name": "order up"}, ...],  # the seat, the action id
     "points": [2, 0, 2, 0],            # each seat's points for the hand  (and its words)
     "scores": [2, 0, 2, 0],            # the scores after the hand
     "agents": ["human", "heuristic", "heuristic", "heuristic"]}  # optional: who sat where

* ``rules``: the table's :class:`~euchre_env.rules.RulesConfig` settings;
  ``variant`` is required, the others default as ``RulesConfig`` does.
* ``deal``: ``dealer`` a seat; ``hands`` the five cards each seat was dealt
  (``"AS"``, ``"TH"``: rank ``8 9 T J Q K A``, suit ``C D H S``); ``upcard``;
  ``kitty`` the hidden kitty cards (2 five-handed, 3 four-handed);
  ``scores`` optional, the running scores at the deal (zeros when left out).
  Every card of the game's deck appears exactly once. It is passed as is to
  ``engine.init_state(rules, seeds=[seed], deals=[deal])``.
* ``decisions``: each ``{"seat", "action", "name"}``: the acting seat, the
  action id (:mod:`euchre_env.actions`; 0..92) and its words
  (``actions.describe``), bids, the dealer's discard, the call or
  declaration and every card played, until the hand ends.
* ``points``, ``scores``: what the engine scored (``state.last_points``) and
  the running scores after the hand (``state.scores``); one integer per seat.
* ``agents``: optional, one name per seat (or ``null``).

**Checks.** :meth:`HandRecord.from_dict` / :func:`load_records` accept only a
record the engine can replay: the format and version, no unknown or missing
key, every value's type and range, a valid deal, every decision by the seat to
act and legal at its step (an illegal one is refused with its index), the hand
ending exactly at the last decision, and the points and scores the replay
gives. Anything else raises ``ValueError`` naming the field
(``"record decisions[7].action: ..."``).

**Replay.** :func:`replay` returns the ``len(decisions) + 1`` states (batch
size 1) from the deal to the state after the last decision. For a record of a
hand-episode table, or of the first hand of a game, they are the states the
table passed through, field for field. For a later hand of a game they differ
only in the record of the previous hand (``last_*``, ``hand_over``), which the
engine overwrites when this hand ends; from then on they agree again (in a game
the engine has by then dealt the next hand from the seed, or ended the game).

**Recording.** :class:`HandRecorder` is an observer for
``arena.evaluate.play_tables`` (called before every step with the state and
the actions; any batch size, hands or whole games); ``finish(final_state)``
returns the hands completed. :func:`save_records` writes records one JSON
object per line (JSON Lines: a file of one record is also a JSON file);
:func:`load_records` reads a record, a list of records, or JSON Lines.

Only the engine is used here (no agents), so the library can read records
without the training extras.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from euchre_env import actions, cards, engine
from euchre_env.actions import NUM_ACTIONS, Phase
from euchre_env.engine import deal as deal_mod
from euchre_env.rules import HAND_SIZE, VARIANTS, RulesConfig
from euchre_env.state import State, short_repr

__all__ = [
    "FORMAT",
    "VERSION",
    "Decision",
    "HandRecord",
    "HandRecorder",
    "deal_of",
    "load_records",
    "replay",
    "save_records",
]

FORMAT = "euchre-env/hand-record"
VERSION = 1
MAX_DECISIONS = 100  # a hand takes at most about 40; more is not a hand
MAX_NAME = 200  # characters in an agent name
_KEYS = ("format", "version", "rules", "seed", "hand_no", "deal", "decisions", "points", "scores", "agents")
_REQUIRED = frozenset(_KEYS) - {"agents"}
_RULE_KEYS = ("variant", "stick_the_dealer", "defend_alone", "points_to_win", "episode")
_DECISION_KEYS = ("seat", "action", "name")


@dataclass(frozen=True)
class Decision:
    """One decision of a hand: ``seat`` took action id ``action`` (``name``: its words)."""

    seat: int
    action: int
    name: str


@dataclass(frozen=True)
class HandRecord:
    """One hand, complete (see the module docstring for the JSON format).

    Build one with :class:`HandRecorder` or :meth:`from_dict` (checked);
    ``to_dict`` / ``to_json`` write the format, :meth:`states` replays it.

    Attributes:
        rules: the table's rules.
        seed: the table seed (an integer in ``0 .. 2**64 - 1``).
        hand_no: the hand's number in its game, 0-based.
        deal: the deal in the engine's given-deal format, card names canonical
            (``"TH"``, not ``"10h"``), with ``scores``.
        decisions: every decision of the hand, in order.
        points: each seat's points for the hand.
        scores: the running scores after the hand.
        agents: one name per seat, or None.
    """

    rules: RulesConfig
    seed: int
    hand_no: int
    deal: dict[str, Any]
    decisions: tuple[Decision, ...]
    points: tuple[int, ...]
    scores: tuple[int, ...]
    agents: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON-able data (the format of the module docstring)."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "rules": {k: getattr(self.rules, k) for k in _RULE_KEYS},
            "seed": str(self.seed),
            "hand_no": self.hand_no,
            "deal": {
                "dealer": self.deal["dealer"],
                "hands": [list(h) for h in self.deal["hands"]],
                "upcard": self.deal["upcard"],
                "kitty": list(self.deal["kitty"]),
                "scores": list(self.deal["scores"]),
            },
            "decisions": [{"seat": d.seat, "action": d.action, "name": d.name} for d in self.decisions],
            "points": list(self.points),
            "scores": list(self.scores),
            "agents": None if self.agents is None else list(self.agents),
        }

    def to_json(self, indent: int | None = None) -> str:
        """The record as JSON text (one line unless ``indent``)."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    @staticmethod
    def from_dict(d: Any) -> HandRecord:
        """A record from data as ``to_dict`` writes it, checked and replayed.

        Raises:
            ValueError: naming the first fault (``"record <field>: ..."``): not a
                record, a missing, unknown or ill-typed field, a bad deal, a
                decision that is not the seat to act's or not legal (with its
                index), a hand that does not end exactly at the last decision,
                or points or scores other than the replay's.
        """
        rec = _parse(d)
        _replay_checked(rec)
        return rec

    @staticmethod
    def from_json(text: str | bytes) -> HandRecord:
        """A record from JSON text, checked as :meth:`from_dict`."""
        if not isinstance(text, (str, bytes, bytearray)):
            raise ValueError(f"record: HandRecord.from_json needs JSON text, got {type(text).__name__}")
        return HandRecord.from_dict(_loads(text, "record"))

    def states(self) -> list[State]:
        """The states of the hand, from the deal to after the last decision (:func:`replay`)."""
        return replay(self)


# --- reading and checking ----------------------------------------------------------------------


def _fail(field: str, message: str) -> ValueError:
    return ValueError(f"record {field}: {message}")


def _is_int(v: Any) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _int_field(value: Any, field: str, low: int, high: int) -> int:
    if not _is_int(value) or not low <= value <= high:
        raise _fail(field, f"expected an integer in {low}..{high}, got {short_repr(value)}")
    return int(value)


def _int_list(value: Any, field: str, n: int, low: int, high: int) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != n:
        raise _fail(field, f"expected a list of {n} integers (one per seat), got {short_repr(value)}")
    return tuple(_int_field(v, f"{field}[{i}]", low, high) for i, v in enumerate(value))


def _parse_rules(value: Any) -> RulesConfig:
    if not isinstance(value, Mapping):
        raise _fail("rules", f"expected an object with keys {list(_RULE_KEYS)}, got {short_repr(value)}")
    unknown = sorted(str(k) for k in set(value) - set(_RULE_KEYS))
    if unknown or "variant" not in value:
        raise _fail(
            "rules", f"unknown keys {unknown}, variant {'given' if 'variant' in value else 'missing'}; "
            f"expected {list(_RULE_KEYS)} (variant required)",
        )  # fmt: skip
    if value["variant"] not in VARIANTS:
        raise _fail("rules.variant", f"expected one of {list(VARIANTS)}, got {short_repr(value['variant'])}")
    try:
        return RulesConfig(**{k: value[k] for k in _RULE_KEYS if k in value})
    except (TypeError, ValueError) as err:
        raise _fail("rules", str(err)) from None


def _parse_seed(value: Any) -> int:
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 20:
        value = int(value)
    if not _is_int(value) or not 0 <= value < 2**64:
        raise _fail("seed", f"expected a decimal string (or integer) in 0..2**64-1, got {short_repr(value)}")
    return int(value)


def _parse_deal(value: Any, rules: RulesConfig) -> dict[str, Any]:
    try:
        dealer, _, scores = deal_mod.deal_order(value, rules)
    except ValueError as err:
        raise _fail("deal", str(err)) from None
    canon = lambda names: [cards.name(cards.parse(c)) for c in names]
    return {
        "dealer": dealer,
        "hands": [canon(h) for h in value["hands"]],
        "upcard": cards.name(cards.parse(value["upcard"])),
        "kitty": canon(value["kitty"]),
        "scores": [0] * rules.num_players if scores is None else [int(x) for x in scores],
    }


def _parse_decisions(value: Any, rules: RulesConfig) -> tuple[Decision, ...]:
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise _fail("decisions", f"expected a list of decisions, got {short_repr(value)}")
    if not 1 <= len(value) <= MAX_DECISIONS:
        raise _fail("decisions", f"expected 1..{MAX_DECISIONS} decisions, got {len(value)}")
    out = []
    for i, d in enumerate(value):
        where = f"decisions[{i}]"
        if not isinstance(d, Mapping) or set(d) != set(_DECISION_KEYS):
            keys = sorted(str(k) for k in d) if isinstance(d, Mapping) else type(d).__name__
            raise _fail(where, f"expected an object with keys {list(_DECISION_KEYS)}, got {short_repr(keys)}")
        seat = _int_field(d["seat"], f"{where}.seat", 0, rules.num_players - 1)
        action = _int_field(d["action"], f"{where}.action", 0, NUM_ACTIONS - 1)
        words = actions.describe(action)
        if d["name"] != words:
            raise _fail(f"{where}.name", f"{short_repr(d['name'])} does not match action {action} ({words!r})")
        out.append(Decision(seat, action, words))
    return tuple(out)


def _parse_agents(value: Any, p: int) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence) or len(value) != p:
        raise _fail("agents", f"expected null or a list of {p} names (one per seat), got {short_repr(value)}")
    for i, name in enumerate(value):
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
            raise _fail(f"agents[{i}]", f"expected a name of 1..{MAX_NAME} characters, got {short_repr(name)}")
    return tuple(value)


def _parse(d: Any) -> HandRecord:
    """The record's fields, each checked on its own (the replay checks the decisions' legality)."""
    if not isinstance(d, Mapping):
        raise ValueError(f"record: expected a JSON object (a hand record), got {type(d).__name__}")
    unknown = sorted(str(k) for k in set(d) - set(_KEYS))
    missing = sorted(_REQUIRED - set(d))
    if unknown or missing:
        raise ValueError(f"record: unknown keys {unknown}, missing keys {missing}; expected {list(_KEYS)}")
    if d["format"] != FORMAT:
        raise _fail("format", f"expected {FORMAT!r}, got {short_repr(d['format'])}")
    if not _is_int(d["version"]) or d["version"] != VERSION:
        raise _fail(
            "version", f"expected {VERSION} (the only version this library reads), got {short_repr(d['version'])}"
        )
    rules = _parse_rules(d["rules"])
    p = rules.num_players
    return HandRecord(
        rules=rules,
        seed=_parse_seed(d["seed"]),
        hand_no=_int_field(d["hand_no"], "hand_no", 0, np.iinfo(np.int16).max - 1),
        deal=_parse_deal(d["deal"], rules),
        decisions=_parse_decisions(d["decisions"], rules),
        points=_int_list(d["points"], "points", p, -128, 127),
        scores=_int_list(d["scores"], "scores", p, -(2**15), 2**15 - 1),
        agents=_parse_agents(d.get("agents"), p),
    )


def _start(rec: HandRecord) -> State:
    s = engine.init_state(rec.rules, seeds=[rec.seed], deals=[rec.deal])
    s.hand_no[0] = rec.hand_no  # a later hand of a game: the engine deals the next one from (seed, hand_no)
    return s


def _replay_checked(rec: HandRecord) -> list[State]:
    """The replay's states; ValueError naming the decision (or field) where the record and the engine part."""
    s = _start(rec)
    states = [s]
    n = len(rec.decisions)
    for i, d in enumerate(rec.decisions):
        where = f"decisions[{i}]"
        if i and bool(s.hand_over[0]):
            raise _fail(where, f"the hand ended after decision {i - 1}, but the record has {n} decisions")
        turn = int(s.turn[0])
        if d.seat != turn:
            raise _fail(f"{where}.seat", f"the record says seat {d.seat}, but seat {turn} is to act")
        if not engine.is_legal(np.array([d.action]), s.mask_base, s.mask_bits)[0]:
            legal = engine.expand(s.mask_base, s.mask_bits)[0].nonzero()[0]
            raise _fail(
                f"{where}.action",
                f"{d.action} ({d.name}) is not legal: phase {Phase(int(s.phase[0])).name}, seat {turn} to act; "
                f"legal: {', '.join(f'{a} ({actions.describe(a)})' for a in legal)}",
            )
        s = engine.step(s, np.array([d.action], np.int64), rec.rules)
        states.append(s)
    if not bool(s.hand_over[0]):
        raise _fail(
            "decisions",
            f"the hand is not over after the record's {n} decisions "
            f"(phase {Phase(int(s.phase[0])).name}, seat {int(s.turn[0])} to act)",
        )
    points = tuple(int(x) for x in s.last_points[0])
    if points != rec.points:
        raise _fail("points", f"the record says {list(rec.points)}, the replay scores {list(points)}")
    scores = tuple(int(x) for x in s.scores[0])
    if scores != rec.scores:
        raise _fail(
            "scores", f"the record says {list(rec.scores)} after the hand, the replay gives {list(scores)}"
        )
    return states


def replay(record: HandRecord | Mapping[str, Any]) -> list[State]:
    """The states of a recorded hand: the deal, then the state after each decision.

    Args:
        record: a :class:`HandRecord`, or its dict (checked as ``HandRecord.from_dict``).

    Returns:
        ``len(record.decisions) + 1`` States of batch size 1 (see the module
        docstring for how they compare with the states played).

    Raises:
        ValueError: as :meth:`HandRecord.from_dict`.
    """
    if isinstance(record, HandRecord):
        return _replay_checked(record)
    if isinstance(record, Mapping):
        return _replay_checked(_parse(record))
    raise ValueError(f"replay needs a HandRecord or its dict, got {type(record).__name__}")


# --- recording ---------------------------------------------------------------------------------


def deal_of(s: State, rules: RulesConfig, row: int = 0) -> dict[str, Any]:
    """Table ``row``'s deal in the engine's given-deal format (with the scores), read at the start of a hand.

    Raises:
        ValueError: the table is not at the start of a hand (before any decision).
    """
    p = rules.num_players
    dealer = int(s.dealer[row])
    if not (
        int(s.phase[row]) == Phase.BID_UPCARD
        and int(s.bid_round[row]) == 1
        and int(s.turn[row]) == (dealer + 1) % p
        and all(int(h).bit_count() == HAND_SIZE for h in s.hands[row, :p])
    ):
        raise ValueError(f"deal_of: table {row} is not at the start of a hand (a decision has been taken)")
    names = lambda mask: [cards.name(c) for c in cards.cards_of(int(mask))]
    return {
        "dealer": dealer,
        "hands": [names(h) for h in s.hands[row, :p]],
        "upcard": cards.name(int(s.upcard[row])),
        "kitty": names(int(s.kitty[row]) & ~(1 << int(s.upcard[row]))),  # the state's kitty holds the upcard
        "scores": [int(x) for x in s.scores[row, :p]],
    }


class HandRecorder:
    """Records every hand played at a batch of tables; an observer for ``arena.evaluate.play_tables``.

    Call it before every step with the state and the actions about to be
    taken (``observer(state, actions)``; ``actions`` int (B,), ignored at
    finished tables), then ``finish(final_state)`` for the hands completed.
    A table's hand opens at its first decision and closes when the engine
    ends it (the table is done, or in a game the next hand has been dealt);
    hands not finished by ``finish`` are dropped. ``records`` keeps every
    hand completed, in the order they ended.

    Args:
        rules: the tables' rules.
        agents: None, one name per seat (every table), or one list of ``P``
            names per table (``(B, P)``).
    """

    def __init__(
        self, rules: RulesConfig, agents: Sequence[str] | Sequence[Sequence[str]] | None = None
    ) -> None:
        if not isinstance(rules, RulesConfig):
            raise ValueError(f"rules must be a RulesConfig, got {type(rules).__name__}")
        self.rules = rules
        self._agents = agents
        self._open: dict[int, tuple[dict[str, Any], int, int, list[Decision]]] = {}
        self._done: list[HandRecord] = []
        self.records: list[HandRecord] = []

    def _agents_of(self, row: int) -> tuple[str, ...] | None:
        a = self._agents
        if a is None:
            return None
        names = a if a and isinstance(a[0], str) else a[row]
        return _parse_agents([str(x) for x in names], self.rules.num_players)

    def __call__(self, s: State, acts: np.ndarray | Sequence[int]) -> None:
        acts = np.asarray(acts, dtype=np.int64).reshape(-1)
        if acts.shape != (s.batch_size,):
            raise ValueError(f"HandRecorder: actions must have shape ({s.batch_size},), got {acts.shape}")
        done = s.phase == Phase.DONE
        for row in [r for r in self._open if done[r] or s.hand_over[r]]:
            self._close(row, s)
        for row, seat, a in zip(
            np.flatnonzero(~done).tolist(), s.turn[~done].tolist(), acts[~done].tolist(), strict=True
        ):
            if row not in self._open:
                self._open[row] = (deal_of(s, self.rules, row), int(s.seed[row]), int(s.hand_no[row]), [])
            self._open[row][3].append(Decision(int(seat), int(a), actions.describe(a)))

    def _close(self, row: int, s: State) -> None:
        deal, seed, hand_no, decisions = self._open.pop(row)
        p = self.rules.num_players
        self._done.append(
            record := HandRecord(
                rules=self.rules, seed=seed, hand_no=hand_no, deal=deal, decisions=tuple(decisions),
                points=tuple(int(x) for x in s.last_points[row, :p]),
                scores=tuple(int(x) for x in s.scores[row, :p]), agents=self._agents_of(row),
            )
        )  # fmt: skip
        self.records.append(record)

    def finish(self, s: State) -> list[HandRecord]:
        """Close the hands the final state ``s`` has ended; returns every hand completed since the last call."""
        for row in [r for r in self._open if s.phase[r] == Phase.DONE or s.hand_over[r]]:
            self._close(row, s)
        self._open.clear()
        out, self._done = self._done, []
        return out


# --- files -------------------------------------------------------------------------------------


def save_records(path: str | Path, records: Sequence[HandRecord], append: bool = False) -> Path:
    """Write ``records`` to ``path``, one JSON object per line (JSON Lines; gzip-compressed when the name ends
    in ``.gz``). Returns the path."""
    path = Path(path)
    for i, r in enumerate(records):
        if not isinstance(r, HandRecord):
            raise ValueError(f"save_records: records[{i}] is a {type(r).__name__}, not a HandRecord")
    text = "".join(r.to_json() + "\n" for r in records)
    if path.suffix == ".gz":  # one gzip member per call (appending adds one); no time stamp: same records, same bytes
        with path.open("ab" if append else "wb") as f:
            f.write(gzip.compress(text.encode("utf-8"), mtime=0))
    else:
        with path.open("a" if append else "w", encoding="utf-8") as f:
            f.write(text)
    return path


def _loads(text: str | bytes, where: str) -> Any:
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError(f"{where}: not a hand record: the JSON is nested too deeply") from None
    except ValueError as err:  # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"{where}: not valid JSON ({err})") from None


def load_records(path: str | Path) -> list[HandRecord]:
    """Read hand records from ``path``: one record, a JSON list of records, or JSON Lines; gzip-compressed
    when the name ends in ``.gz``.

    Every record is checked (``HandRecord.from_dict``); a fault names the
    record (its line or index) and the field.

    Raises:
        ValueError: the file holds no record, or a record is malformed.
        OSError: the file cannot be read.
    """
    path = Path(path)
    if path.suffix == ".gz":
        data = path.read_bytes()
        try:
            text = gzip.decompress(data).decode("utf-8")
        except (OSError, EOFError, UnicodeDecodeError) as err:  # gzip.BadGzipFile is an OSError
            raise ValueError(f"{path}: not a gzip file of hand records ({err})") from None
    else:
        text = path.read_text(encoding="utf-8")
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None  # JSON Lines (or not JSON: said per line below)
    except RecursionError:
        raise ValueError(f"{path}: not a hand record: the JSON is nested too deeply") from None
    if isinstance(whole, list):
        items = [(f"{path}: records[{i}]", r) for i, r in enumerate(whole)]
    elif whole is not None:
        items = [(str(path), whole)]
    else:
        lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
        items = [(f"{path}: line {n}", _loads(line, f"{path}: line {n}")) for n, line in lines]
    if not items:
        raise ValueError(f"{path}: holds no hand record")
    out = []
    for where, d in items:
        try:
            out.append(HandRecord.from_dict(d))
        except ValueError as err:
            raise ValueError(f"{where}: {err}") from None
    return out
