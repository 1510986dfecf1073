"""``State``: the game state of ``B`` independent tables as numpy arrays.

Every field has a leading batch axis ``B``; ``P`` is the number of seats and
``T = 5`` the number of tricks. Card sets are ``uint32`` bitmasks over the card
ids of :mod:`euchre_env.cards`; ``-1`` means "none" in every int8 field.
``SCHEMA`` lists each field's dtype and axes. The state of one table fits in
about 120 bytes (``State.nbytes_per_table``).

Engine functions never mutate a state they are given; ``copy`` is cheap.
``to_json`` / ``from_json`` round-trip a state exactly.

``from_json`` / ``from_dict`` load only states the rules can reach, so a saved
or handed-in state cannot corrupt the engine. They check, and raise
``ValueError`` naming the table and field at the first fault:

* the format: the format tag, every field present and no other, each with
  its dtype, a shape of ``(B,)``, ``(B, P)``, ``(B, T)`` or ``(B, T, P)``
  with one ``B``, ``P`` 4 or 5 and ``T = 5``, and nested lists of exactly
  that shape holding integers (``true``/``false`` in bool fields, decimal
  strings or integers in ``uint64`` fields) within the dtype's range;
* then the game (:func:`euchre_env.validation.validate_state`): value
  ranges (seats, phases, cards of the game's deck), every card of the deck
  in exactly one place (a hand, the kitty, the discard or a trick), the
  fields each phase fixes (trump is made iff there is a maker, the seat to
  act, the upcard's and the discard's whereabouts, declarations and who sits
  out), hand sizes, the tricks (who led and played in turn, following suit,
  their winners), the derived records (``played_by``, ``trick_bits``,
  ``tricks_won``, ``revealed``, the hidden ``partner``), scores and the
  record of the last hand, the hand number (no more hands than the scores
  allow, every hand played scoring at least 1 point, and at most 32766 so
  the next hand's number fits ``int16``), and the legal sets ``mask_base``/``mask_bits``
  against a recomputation from the rules.

``rules`` (a ``RulesConfig``, a variant or preset name, or None for the
variant of ``P`` seats) says which game the state must belong to; only a
``RulesConfig`` also fixes the table settings (stick the dealer, defend
alone, episode, points to win) that some checks depend on.
"""

from __future__ import annotations

import json
import reprlib
import sys
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from euchre_env.rules import NUM_TRICKS, VARIANTS, RulesConfig

STATE_FORMAT = "euchre_env.state/1"


@dataclass
class State:
    """Batched game state. Shapes use ``B`` tables, ``P`` seats, ``T = 5`` tricks."""

    # --- the deal ---------------------------------------------------------
    seed: np.ndarray  # (B,) uint64: table seed; every deal of the table derives from it
    hand_no: np.ndarray  # (B,) int16: hands dealt so far in this game, minus one
    dealer: np.ndarray  # (B,) int8: dealer seat
    hands: np.ndarray  # (B, P) uint32: cards in each seat's hand
    kitty: np.ndarray  # (B,) uint32: undealt cards (the upcard until taken, hidden cards)
    upcard: np.ndarray  # (B,) int8: the turned-up card (public, even once turned down)
    discard: np.ndarray  # (B,) int8: the dealer's face-down discard, -1 before/none
    # --- bidding and declarations ----------------------------------------
    phase: np.ndarray  # (B,) int8: actions.Phase
    turn: np.ndarray  # (B,) int8: seat to act, -1 when done
    trump: np.ndarray  # (B,) int8: trump suit, cards.NO_TRUMP (4) before it is made
    maker: np.ndarray  # (B,) int8: seat that made trump, -1 before
    bid_round: np.ndarray  # (B,) int8: 1 or 2 while/after bidding in that round
    alone: np.ndarray  # (B,) bool: the maker declared alone
    called: np.ndarray  # (B,) int8: five-handed called card, -1 if none/alone
    partner: np.ndarray  # (B,) int8: seat holding the called card (hidden), -1 if none
    revealed: np.ndarray  # (B,) int8: trick in which the called card was played, -1 if not yet
    defender_alone: np.ndarray  # (B,) int8: four-handed lone defender seat, -1 if none
    out: np.ndarray  # (B,) uint8: bitmask of seats sitting out this hand
    # --- trick play -------------------------------------------------------
    trick_no: np.ndarray  # (B,) int8: current trick 0..4 (5 once all are played)
    leader: np.ndarray  # (B,) int8: seat that led the current trick
    led: np.ndarray  # (B,) int8: effective suit led in the current trick, -1 before the lead
    n_played: np.ndarray  # (B,) int8: cards played to the current trick
    trick_cards: np.ndarray  # (B, T, P) int8: card each seat played to each trick, -1 none
    trick_winner: np.ndarray  # (B, T) int8: winner seat of each finished trick, -1 before
    played_by: np.ndarray  # (B, P) uint32: cards each seat has played this hand (from trick_cards)
    trick_bits: np.ndarray  # (B, T) uint32: cards played to each trick (from trick_cards)
    tricks_won: np.ndarray  # (B, P) int8: tricks taken by each seat this hand
    # --- scores and the record of the last finished hand -------------------
    scores: np.ndarray  # (B, P) int16: running scores (include the last finished hand)
    hand_over: np.ndarray  # (B,) bool: a hand finished on the last step (reward due)
    last_points: np.ndarray  # (B, P) int8: points of the last finished hand
    last_tricks: np.ndarray  # (B, P) int8: tricks per seat of the last finished hand
    last_maker: np.ndarray  # (B,) int8: maker of the last finished hand, -1 thrown in
    last_trump: np.ndarray  # (B,) int8: its trump, cards.NO_TRUMP if thrown in
    last_called: np.ndarray  # (B,) int8: its called card, -1 none
    last_partner: np.ndarray  # (B,) int8: its partner seat, -1 none
    last_alone: np.ndarray  # (B,) bool: its maker went alone
    last_defender_alone: np.ndarray  # (B,) int8: its lone defender, -1 none
    winners: np.ndarray  # (B,) uint8: game mode: bitmask of seats sharing the victory
    # --- legal actions of the seat to act, kept current by the engine --------
    mask_base: np.ndarray  # (B,) int8: action id of bit 0 of mask_bits
    mask_bits: np.ndarray  # (B,) uint64: bit k set iff action mask_base + k is legal

    @property
    def batch_size(self) -> int:
        """Number of tables ``B``."""
        return int(self.phase.shape[0])

    @property
    def num_players(self) -> int:
        """Number of seats ``P``."""
        return int(self.hands.shape[1])

    @property
    def nbytes_per_table(self) -> int:
        """Bytes of state per table."""
        return sum(getattr(self, f.name).nbytes for f in fields(self)) // max(self.batch_size, 1)

    def copy(self) -> State:
        """A deep copy (every array copied)."""
        return State(**{f.name: getattr(self, f.name).copy() for f in fields(self)})

    def take(self, rows: np.ndarray | list[int] | slice) -> State:
        """A new state holding the tables ``rows`` (numpy indexing on the batch axis)."""
        if isinstance(rows, slice):
            return State(**{f.name: getattr(self, f.name)[rows].copy() for f in fields(self)})
        idx = np.asarray(rows, dtype=np.int64).reshape(-1)
        return State(**{f.name: getattr(self, f.name)[idx] for f in fields(self)})

    def put(self, rows: np.ndarray | list[int], other: State) -> None:
        """Write ``other``'s tables into ``rows`` of this state, in place."""
        idx = np.asarray(rows, dtype=np.int64).reshape(-1)
        for f in fields(self):
            getattr(self, f.name)[idx] = getattr(other, f.name)

    @staticmethod
    def concatenate(states: list[State]) -> State:
        """Stack several states along the batch axis."""
        return State(**{f.name: np.concatenate([getattr(s, f.name) for s in states]) for f in fields(State)})

    def to_dict(self) -> dict[str, Any]:
        """Plain-JSON-able dict: ``{"format", "fields": {name: {"dtype", "shape", "data"}}}``."""
        out: dict[str, Any] = {}
        for f in fields(self):
            arr = getattr(self, f.name)
            data = [str(x) for x in arr.tolist()] if arr.dtype == np.uint64 else arr.tolist()
            out[f.name] = {"dtype": arr.dtype.name, "shape": list(arr.shape), "data": data}
        return {"format": STATE_FORMAT, "fields": out}

    def to_json(self) -> str:
        """The state as a JSON string; ``State.from_json`` restores it exactly."""
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @staticmethod
    def from_dict(d: dict[str, Any], rules: RulesConfig | str | None = None) -> State:
        """Inverse of ``to_dict``, checked (see the module docstring).

        Args:
            d: a dict as ``to_dict`` writes it.
            rules: the game the state must belong to: a ``RulesConfig`` (all
                checks exact), a variant or preset name (the game's seats and
                deck, settings not checked), or None (the variant of ``P`` seats).

        Raises:
            ValueError: naming the first fault: not a saved state (format,
                missing or unknown fields), a field's dtype, shape or data,
                or a state the rules cannot reach (table and field named).
        """
        from euchre_env.validation import validate_state  # it imports the engine, which imports this module

        state = State(**_parse_fields(d))
        validate_state(state, rules)
        return state

    @staticmethod
    def from_json(text: str | bytes, rules: RulesConfig | str | None = None) -> State:
        """Restore a state written by ``to_json``, checked as ``from_dict``.

        Raises:
            ValueError: ``text`` is not a string or not JSON, or as ``from_dict``.
        """
        if not isinstance(text, (str, bytes, bytearray)):
            raise ValueError(f"State.from_json needs the JSON text (a str), got {type(text).__name__}")
        try:
            d = json.loads(text)
        except RecursionError:
            raise ValueError("not a saved euchre_env state: the JSON is nested too deeply") from None
        except ValueError as err:  # json.JSONDecodeError, UnicodeDecodeError, over-long integers
            raise ValueError(f"not a saved euchre_env state: not valid JSON ({err})") from None
        return State.from_dict(d, rules)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return all(
            np.array_equal(getattr(self, f.name), getattr(other, f.name))
            and getattr(self, f.name).dtype == getattr(other, f.name).dtype
            for f in fields(self)
        )


# Each field's dtype and axes: the field comments above as data (``to_dict``'s format, and what
# ``validation.check_schema`` requires). ``T`` is ``rules.NUM_TRICKS``.
_B, _BP, _BT, _BTP = ("B",), ("B", "P"), ("B", "T"), ("B", "T", "P")
_I8, _U32 = np.dtype(np.int8), np.dtype(np.uint32)
SCHEMA: dict[str, tuple[np.dtype, tuple[str, ...]]] = {
    "seed": (np.dtype(np.uint64), _B), "hand_no": (np.dtype(np.int16), _B), "dealer": (_I8, _B),
    "hands": (_U32, _BP), "kitty": (_U32, _B), "upcard": (_I8, _B), "discard": (_I8, _B),
    "phase": (_I8, _B), "turn": (_I8, _B), "trump": (_I8, _B), "maker": (_I8, _B), "bid_round": (_I8, _B),
    "alone": (np.dtype(bool), _B), "called": (_I8, _B), "partner": (_I8, _B), "revealed": (_I8, _B),
    "defender_alone": (_I8, _B), "out": (np.dtype(np.uint8), _B), "trick_no": (_I8, _B),
    "leader": (_I8, _B), "led": (_I8, _B), "n_played": (_I8, _B), "trick_cards": (_I8, _BTP),
    "trick_winner": (_I8, _BT), "played_by": (_U32, _BP), "trick_bits": (_U32, _BT),
    "tricks_won": (_I8, _BP), "scores": (np.dtype(np.int16), _BP), "hand_over": (np.dtype(bool), _B),
    "last_points": (_I8, _BP), "last_tricks": (_I8, _BP), "last_maker": (_I8, _B),
    "last_trump": (_I8, _B), "last_called": (_I8, _B), "last_partner": (_I8, _B),
    "last_alone": (np.dtype(bool), _B), "last_defender_alone": (_I8, _B),
    "winners": (np.dtype(np.uint8), _B), "mask_base": (_I8, _B), "mask_bits": (np.dtype(np.uint64), _B),
}  # fmt: skip
assert list(SCHEMA) == [f.name for f in fields(State)], "SCHEMA must list State's fields in order"
# The variant of each seat count P (4: four_handed, 5: five_handed).
VARIANT_OF_SEATS: dict[int, str] = {RulesConfig(variant=v).num_players: v for v in VARIANTS}  # type: ignore[arg-type]


def _parse_fields(d: Any) -> dict[str, np.ndarray]:
    """The arrays of a ``to_dict`` dict, its format checked strictly (ValueError naming the fault)."""
    if not isinstance(d, dict):
        raise ValueError(
            f"not a saved euchre_env state: expected a dict with 'format' and 'fields', got {type(d).__name__}"
        )
    if not _is_text(d.get("format"), STATE_FORMAT):
        raise ValueError(
            f"not a saved euchre_env state: format must be {STATE_FORMAT!r}, got {short_repr(d.get('format'))}"
        )
    extra_keys = sorted(map(str, set(d) - {"format", "fields"}))
    if extra_keys:
        raise ValueError(f"saved state: unknown key(s) {extra_keys}; expected 'format' and 'fields'")
    saved = d.get("fields")
    if not isinstance(saved, dict):
        raise ValueError(f"saved state: 'fields' must be a dict of fields, got {type(saved).__name__}")
    missing = [n for n in SCHEMA if n not in saved]
    extra = sorted(map(str, set(saved) - set(SCHEMA)))
    if missing or extra:
        raise ValueError(f"saved state fields do not match: missing {missing}, unknown {extra}")
    sizes: dict[str, tuple[int, str]] = {"T": (NUM_TRICKS, "the number of tricks")}
    return {name: _parse_field(name, saved[name], sizes) for name in SCHEMA}


def _parse_field(name: str, spec: Any, sizes: dict[str, tuple[int, str]]) -> np.ndarray:
    """One field's array from ``{"dtype", "shape", "data"}``; ``sizes`` holds the axis sizes seen so far."""
    where = f"saved state field {name!r}"
    if not isinstance(spec, dict) or set(spec) != {"dtype", "shape", "data"}:
        got = sorted(map(str, spec)) if isinstance(spec, dict) else type(spec).__name__
        raise ValueError(f"{where} must be a dict with keys 'dtype', 'shape', 'data', got {got}")
    dtype, axes = SCHEMA[name]
    if not _is_text(spec["dtype"], dtype.name):
        raise ValueError(f"{where}: dtype must be {dtype.name!r}, got {short_repr(spec['dtype'])}")
    shape = spec["shape"]
    if (
        not isinstance(shape, list)
        or len(shape) != len(axes)
        or not all(type(n) is int and 0 <= n < 2**31 for n in shape)
    ):
        raise ValueError(
            f"{where}: shape must be a list of {len(axes)} sizes {list(axes)}, got {short_repr(shape)}"
        )
    for axis, n in zip(axes, shape, strict=True):
        if axis not in sizes:
            if axis == "P" and n not in VARIANT_OF_SEATS:
                raise ValueError(f"{where}: shape {shape} has {n} seats; games: {_games()}")
            sizes[axis] = (n, f"field {name!r}")
        elif sizes[axis][0] != n:
            want, source = sizes[axis]
            what = "the batch size" if axis == "B" else f"axis {axis}"
            raise ValueError(f"{where}: shape {shape} disagrees on {what}: {want} in {source}")
    flat = _flatten(spec["data"], shape, where)
    return _to_array(flat, dtype, where).reshape(shape)


def _flatten(data: Any, shape: list[int], where: str) -> list[Any]:
    """The leaves of nested lists of exactly ``shape``, in order (ValueError at the first mismatch)."""
    level = [data]
    for depth, n in enumerate(shape):
        if not all(type(x) is list and len(x) == n for x in level):
            bad = next(x for x in level if type(x) is not list or len(x) != n)
            got = f"a list of {len(bad)}" if type(bad) is list else short_repr(bad)
            raise ValueError(
                f"{where}: data must be nested lists of shape {shape}; at depth {depth} expected a list of "
                f"{n}, got {got}"
            )
        level = [y for x in level for y in x]
    return level


def _to_array(flat: list[Any], dtype: np.dtype, where: str) -> np.ndarray:
    """``flat`` (Python values from JSON) as a 1-D array of ``dtype``, every value checked."""
    if dtype == np.bool_:
        if not all(type(v) is bool for v in flat):
            bad = next(v for v in flat if type(v) is not bool)
            raise ValueError(f"{where}: data must hold true/false, got {short_repr(bad)}")
        return np.array(flat, dtype=bool)
    if dtype == np.uint64:  # written as decimal strings (JSON readers lose integers above 2**53)
        values = []
        for v in flat:
            if type(v) is str and 0 < len(v) <= 20 and v.isascii() and v.isdigit():
                v = int(v)
            if type(v) is not int or not 0 <= v < 2**64:
                raise ValueError(
                    f"{where}: data must hold integers in 0..2**64-1 (as decimal strings), got {short_repr(v)}"
                )
            values.append(v)
        return np.array(values, dtype=np.uint64)
    if not all(type(v) is int for v in flat):
        bad = next(v for v in flat if type(v) is not int)
        raise ValueError(f"{where}: data must hold integers, got {short_repr(bad)} ({type(bad).__name__})")
    info = np.iinfo(dtype)
    if flat and (min(flat) < info.min or max(flat) > info.max):
        bad = next(v for v in flat if not info.min <= v <= info.max)
        raise ValueError(f"{where}: {short_repr(bad)} is out of range for {dtype.name} ({info.min}..{info.max})")
    return np.array(flat, dtype=dtype)


def _is_text(value: Any, text: str) -> bool:
    """``value == text`` for a str ``value`` (False for anything else, arrays included)."""
    return isinstance(value, str) and value == text


def _games() -> str:
    """``"4 seats (four_handed) or 5 seats (five_handed)"``."""
    return " or ".join(f"{p} seats ({v})" for p, v in sorted(VARIANT_OF_SEATS.items()))


def short_repr(value: Any) -> str:
    """A short ``repr`` of ``value`` (of any size or depth) for an error message."""
    try:
        return _REPR.repr(value)
    except ValueError:  # it holds an int of more digits than Python prints
        return f"a {type(value).__name__} holding an integer of more than {sys.get_int_max_str_digits()} digits"


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxdict = 2, 4, 4
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 40
