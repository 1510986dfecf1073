"""Exact open-card endgame values for the determinised-search agent.

Once the cards are open both games are two-sided (the makers' side against the
rest, the hidden partner known to all), so the last tricks of a sampled world
can be solved exactly by minimax. The tree is expanded breadth-first as engine
batches: use it only near the end of a hand.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from euchre_env import engine
from euchre_env.actions import Phase
from euchre_env.rules import NUM_TRICKS, RulesConfig
from euchre_env.state import State

_DONE = int(Phase.DONE)


def endgame_rows(s: State, exact_tricks: int) -> np.ndarray:
    """Tables in trick play with at most ``exact_tricks`` tricks to go. Bool (B,)."""
    return (s.phase == Phase.PLAY) & (s.trick_no >= NUM_TRICKS - exact_tricks)


def hand_value(s: State, rules: RulesConfig, zero_sum: bool) -> np.ndarray:
    """Seat 0's reward for the finished hand of each table (``engine.rewards``). Float64 (B,)."""
    over = dataclasses.replace(s, hand_over=np.ones(s.batch_size, bool))
    return engine.rewards(over, rules, zero_sum=zero_sum)[:, 0].astype(np.float64)


def _on_side_of_seat0(s: State, seat: np.ndarray, rules: RulesConfig) -> np.ndarray:
    """Whether ``seat`` (B,) plays for the same side as seat 0 in each open-card world. Bool (B,)."""
    if not rules.called_card:
        return seat % 2 == 0
    makers = lambda x: (x == s.maker) | ((x == s.partner) & (s.partner >= 0))
    return makers(seat) == makers(np.zeros_like(seat))


def _expand(s: State, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every legal action of tables ``rows``: ``(parent, action)`` arrays, parents ascending."""
    bits = s.mask_bits[rows].astype("<u8").view(np.uint8).reshape(rows.size, 8)
    parent, k = np.nonzero(np.unpackbits(bits, axis=1, bitorder="little"))
    return rows[parent], s.mask_base[rows[parent]].astype(np.int64) + k


def solve_endgame(s: State, rules: RulesConfig, zero_sum: bool = True) -> np.ndarray:
    """Exact open-card minimax value for seat 0 of each table, to the end of the hand.

    Seats on seat 0's side maximise seat 0's value, the others minimise it
    (both games are two-sided once the cards are open). The whole game tree
    is expanded breadth-first as engine batches, so use it only near the end
    of the hand (the tree grows by every seat's hand size per trick).

    Args:
        s: ``B`` tables with ``rules.episode == "hand"``.

    Returns:
        Float64 array of shape (B,).
    """
    levels: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # (live rows, parents, maximise)
    frontier, values_at = s, []
    while True:
        live = np.flatnonzero(frontier.phase != _DONE)
        done_value = np.zeros(frontier.batch_size)
        finished = np.flatnonzero(frontier.phase == _DONE)
        if finished.size:
            done_value[finished] = hand_value(frontier.take(finished), rules, zero_sum)
        values_at.append(done_value)
        if not live.size:
            break
        parent, action = _expand(frontier, live)
        maximise = _on_side_of_seat0(frontier, frontier.turn.astype(np.int64), rules)
        levels.append((live, parent, maximise))
        frontier = engine.step(frontier.take(parent), action, rules)
    child_values = values_at[-1]
    for depth in range(len(levels) - 1, -1, -1):
        live, parent, maximise = levels[depth]
        starts = np.flatnonzero(np.r_[True, parent[1:] != parent[:-1]])
        best = np.maximum.reduceat(child_values, starts)
        worst = np.minimum.reduceat(child_values, starts)
        node = values_at[depth].copy()
        node[live] = np.where(maximise[live], best, worst)
        child_values = node
    return child_values


__all__ = ["endgame_rows", "hand_value", "solve_endgame"]
