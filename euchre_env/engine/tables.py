"""Seat lookup tables of the engine, built once at import.

Indexed by ``P`` (4 or 5 seats) and by the sit-out bitmask ``out`` (a seat
sitting out a lone hand takes no turns).
"""

from __future__ import annotations

import numpy as np

from euchre_env.actions import (
    CALL_BASE,
    DISCARD_BASE,
    NUM_PHASES,
    PASS,
    PLAY_BASE,
    Phase,
)


def _make_next_active(num_players: int) -> np.ndarray:
    """NEXT_ACTIVE[P][out, seat]: next seat clockwise that does not sit out.

    Shape (2**P, P), int8.
    """
    table = np.zeros((1 << num_players, num_players), dtype=np.int8)
    for out in range(1 << num_players):
        for seat in range(num_players):
            nxt = (seat + 1) % num_players
            for _ in range(num_players):
                if not out >> nxt & 1:
                    break
                nxt = (nxt + 1) % num_players
            table[out, seat] = nxt
    return table


def _make_num_active(num_players: int) -> np.ndarray:
    """NUM_ACTIVE[P][out]: seats that play, i.e. cards in a full trick. Shape (2**P,)."""
    return np.array([num_players - out.bit_count() for out in range(1 << num_players)], dtype=np.int8)


def _make_followers(num_players: int, next_active: np.ndarray) -> np.ndarray:
    """FOLLOWERS[P][out * P + leader]: the seats that play after ``leader``, in turn order.

    A trick with seats sitting out is padded with the lowest of them (a filler
    slot: no card). Shape (2**P * P, P - 1), int8.
    """
    table = np.zeros(((1 << num_players) * num_players, num_players - 1), dtype=np.int8)
    for out in range(1 << num_players):
        filler = (out & -out).bit_length() - 1 if out else 0
        for leader in range(num_players):
            seats, seat = [], int(next_active[out, leader])
            while seat != leader and len(seats) < num_players - 1:
                seats.append(seat)
                seat = int(next_active[out, seat])
            table[out * num_players + leader] = seats + [filler] * (num_players - 1 - len(seats))
    return table


NEXT_ACTIVE = {p: _make_next_active(p) for p in (4, 5)}
FOLLOWERS = {p: _make_followers(p, NEXT_ACTIVE[p]) for p in (4, 5)}
NUM_ACTIVE = {p: _make_num_active(p) for p in (4, 5)}
SEAT_BIT = (1 << np.arange(8)).astype(np.uint8)  # (8,) seat -> bit in ``out``/``winners``

# Action id of bit 0 of the compact legal set, per phase (see masks.legal_bits).
PHASE_BASE = np.zeros(NUM_PHASES, dtype=np.int64)
PHASE_BASE[Phase.BID_UPCARD] = PASS
PHASE_BASE[Phase.DISCARD] = DISCARD_BASE
PHASE_BASE[Phase.BID_SUIT] = PASS
PHASE_BASE[Phase.CALL] = CALL_BASE
PHASE_BASE[Phase.DECLARE] = PASS
PHASE_BASE[Phase.DEFEND] = PASS
PHASE_BASE[Phase.PLAY] = PLAY_BASE
PHASE_BASE[Phase.DONE] = 0
