"""``State``: the game state of ``B`` independent tables as numpy arrays.

Every field has a leading batch axis ``B``; ``P`` is the number of seats and
``T = 5`` the number of tricks. Card sets are ``uint32`` bitmasks over the card
ids of :mod:`euchre_env.cards`; ``-1`` means "none" in every int8 field.
The state of one table fits in about 120 bytes (``State.nbytes_per_table``).

Engine functions never mutate a state they are given; ``copy`` is cheap.
``to_json`` / ``from_json`` round-trip a state exactly.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

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
    def from_dict(d: dict[str, Any]) -> State:
        """Inverse of ``to_dict``.

        Raises:
            ValueError: if the dict is not a saved state (wrong format, missing or
                unknown fields, inconsistent shapes).
        """
        if not isinstance(d, dict) or d.get("format") != STATE_FORMAT:
            got = d.get("format") if isinstance(d, dict) else type(d).__name__
            raise ValueError(f"not a saved euchre_env state: format must be {STATE_FORMAT!r}, got {got!r}")
        saved = d.get("fields", {})
        names = [f.name for f in fields(State)]
        missing, extra = sorted(set(names) - set(saved)), sorted(set(saved) - set(names))
        if missing or extra:
            raise ValueError(f"saved state fields do not match: missing {missing}, unknown {extra}")
        arrays = {}
        for n in names:
            spec = saved[n]
            data = spec["data"]
            if spec["dtype"] == "uint64":
                data = np.array([int(x) for x in np.ravel(np.array(data, dtype=object))], dtype=np.uint64)
            arr = np.array(data, dtype=spec["dtype"]).reshape(spec["shape"])
            arrays[n] = arr
        batch = {a.shape[0] for a in arrays.values()}
        if len(batch) != 1:
            raise ValueError(f"saved state fields disagree on the batch size: {sorted(batch)}")
        return State(**arrays)

    @staticmethod
    def from_json(text: str) -> State:
        """Restore a state written by ``to_json``."""
        return State.from_dict(json.loads(text))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return all(
            np.array_equal(getattr(self, f.name), getattr(other, f.name))
            and getattr(self, f.name).dtype == getattr(other, f.name).dtype
            for f in fields(self)
        )
