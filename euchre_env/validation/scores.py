"""Invariant groups of the score and the legal sets: scores, the last hand's record, winners, masks."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from euchre_env import cards
from euchre_env.engine import masks, play
from euchre_env.engine.tables import SEAT_BIT
from euchre_env.rules import NUM_TRICKS, make_rules
from euchre_env.state import SCHEMA, State
from euchre_env.validation.common import (
    BID_UPCARD,
    DONE,
    Game,
    Problem,
    card_name,
    first_problem,
    phase_name,
)


def check_scores(s: State, game: Game) -> Problem | None:
    """Scores, the record of the last hand, a finished table's record, winners and the game's settings."""
    r, p = game.rules, game.rules.num_players
    done = s.phase == DONE
    scores = s.scores.astype(np.int64)
    none = s.last_maker < 0
    last_sum = s.last_tricks.astype(np.int64).sum(axis=1)
    top = scores.max(axis=1)
    top_bits = ((scores == top[:, None]) * SEAT_BIT[:p]).sum(axis=1)
    checks: list[tuple[np.ndarray, str, Callable[[int], str]]] = []
    if not r.called_card:
        checks.append(
            (
                (scores[:, 0] != scores[:, 2]) | (scores[:, 1] != scores[:, 3]),
                "scores",
                lambda row: (
                    f"are {s.scores[row].tolist()}: partners (seats 0 and 2, 1 and 3) share one score"
                ),
            )
        )
    lone_defence = s.last_defender_alone >= 0
    checks += [
        (
            (s.scores < s.last_points).any(axis=1),
            "scores",
            lambda row: (
                f"are {s.scores[row].tolist()}, less than the last hand's points {s.last_points[row].tolist()}"
            ),
        ),
        (
            none & (s.last_trump != cards.NO_TRUMP),
            "last_trump",
            lambda row: f"is {s.last_trump[row]} but the last hand had no maker",
        ),
        (
            ~none & (s.last_trump == cards.NO_TRUMP),
            "last_trump",
            lambda row: f"is no trump but the last hand's maker is seat {s.last_maker[row]}",
        ),
        (
            none & ((s.last_called >= 0) | (s.last_partner >= 0) | s.last_alone | lone_defence),
            "last_maker",
            lambda row: "is -1 (no hand played), but the record names a called card, partner or lone player",
        ),
        (
            last_sum != np.where(none, 0, NUM_TRICKS),
            "last_tricks",
            lambda row: f"are {s.last_tricks[row].tolist()}: five tricks in a played hand, none otherwise",
        ),
        (
            (s.last_partner >= 0) & ((s.last_partner == s.last_maker) | (s.last_called < 0)),
            "last_partner",
            lambda row: (
                f"is seat {s.last_partner[row]} (maker {s.last_maker[row]}, called "
                f"{card_name(s.last_called[row])})"
            ),
        ),
        (
            lone_defence & ~(s.last_alone & ((s.last_defender_alone - s.last_maker) % 2 == 1)),
            "last_defender_alone",
            lambda row: f"is seat {s.last_defender_alone[row]}, not a defender against a lone maker",
        ),
    ]
    if r.called_card:
        checks.append(
            (
                ~none & (s.last_alone == (s.last_called >= 0)),
                "last_called",
                lambda row: (
                    f"is {card_name(s.last_called[row])} with last_alone {s.last_alone[row]}: the maker "
                    "calls a card or goes alone"
                ),
            )
        )
    for bad, field, detail in checks:
        problem = first_problem(bad, field, detail)
        if problem is not None:
            return problem
    # the last hand's points follow from its tricks (the engine's scoring on the record)
    want = np.zeros_like(s.last_points)
    played = np.flatnonzero(~none)
    if played.size:
        record = replace(
            s,
            maker=s.last_maker,
            partner=s.last_partner,
            tricks_won=s.last_tricks,
            alone=s.last_alone,
            defender_alone=s.last_defender_alone,
        )
        want[played] = play.hand_points(record, played, r)
    problem = first_problem(
        (s.last_points != want).any(axis=1),
        "last_points",
        lambda row: (
            f"are {s.last_points[row].tolist()}, but the last hand's tricks "
            f"{s.last_tricks[row].tolist()} score {want[row].tolist()}"
        ),
    )
    if problem is not None:
        return problem
    # a finished table's record is the hand on the table
    for f in ("maker", "trump", "called", "partner", "alone", "defender_alone"):
        mine, last = getattr(s, f), getattr(s, "last_" + f)
        problem = first_problem(
            done & (mine != last),
            "last_" + f,
            lambda row, mine=mine, last=last, f=f: (
                f"is {last[row]}, but the finished hand's {f} is {mine[row]}"
            ),
        )
        if problem is not None:
            return problem
    checks = [
        (
            done & (s.last_tricks != s.tricks_won).any(axis=1),
            "last_tricks",
            lambda row: (
                f"are {s.last_tricks[row].tolist()}, but the finished hand's tricks are "
                f"{s.tricks_won[row].tolist()}"
            ),
        ),
        (
            (s.winners != 0) & (~done | (s.winners != top_bits)),
            "winners",
            lambda row: (
                f"is {s.winners[row]:0{p}b} (seat bits) in phase {phase_name(s, row)} with scores "
                f"{s.scores[row].tolist()}: the winners are the seats with the top score of a finished game"
            ),
        ),
        (
            s.hand_over
            & ~done
            & ((s.phase != BID_UPCARD) | (s.turn != (s.dealer + 1) % p) | (s.hand_no == 0)),
            "hand_over",
            lambda row: "is True on a live table: a hand just ended, so the next is freshly dealt",
        ),
    ]
    if game.exact and r.episode == "hand":
        checks += [
            (s.hand_no != 0, "hand_no", lambda row: f"is {s.hand_no[row]}, but an episode is one hand"),
            (s.winners != 0, "winners", lambda row: "are set, but an episode is one hand (no game to win)"),
            (s.hand_over & ~done, "hand_over", lambda row: "is True, but the episode (one hand) goes on"),
        ]
    elif game.exact:  # a game to points_to_win
        target = r.points_to_win
        checks += [
            (
                ~done & (top >= target),
                "scores",
                lambda row: f"are {s.scores[row].tolist()}: the game to {target} would be over",
            ),
            (
                done & ((top < target) | (top > target + 3) | (s.winners == 0)),
                "scores",
                lambda row: (
                    f"are {s.scores[row].tolist()} (winners {s.winners[row]:0{p}b}) in a game to "
                    f"{target} that is over"
                ),
            ),
        ]
    for bad, field, detail in checks:
        problem = first_problem(bad, field, detail)
        if problem is not None:
            return problem
    return _check_hand_no(s, game)


# The largest hand number a state may hold: the engine deals the next hand as ``hand_no + 1`` in the
# field's dtype (int16), so 32767 would wrap to -32768 a hand later.
MAX_HAND_NO = int(np.iinfo(SCHEMA["hand_no"][0]).max) - 1


def max_hand_no(s: State, game: Game) -> np.ndarray:
    """(B,) int64: the largest ``hand_no`` each table may hold, given its scores and ``MAX_HAND_NO``.

    ``hand_no`` counts the hands finished before the one on the table (rules.md#c1). Every hand
    that is played scores at least 1 point (rules.md §3.5, §4.5): five-handed at least 1 for some
    player (a maker's 3 or 4 tricks alone), so the hands played are at most the sum of the five
    scores; four-handed at least 1 for one side, and both partners record it, so at most the two
    sides' scores added (seat 0's and seat 1's). Both bounds are reached by a game of 1-point hands,
    and scores a deal starts from (``engine.deal``) only raise them. A finished game's last hand
    (phase DONE with a maker) is in the scores but not in ``hand_no``, so it counts one less.
    A thrown-in hand scores nothing, so without stick the dealer (four-handed, or settings unknown)
    the scores bound nothing, and only the dtype does (``MAX_HAND_NO``).
    """
    r = game.rules
    scores = s.scores.astype(np.int64)
    total = scores.sum(axis=1) if r.called_card else scores[:, 0] + scores[:, 1]
    total -= (s.phase == DONE) & (s.last_maker >= 0)
    bounded = r.called_card or (game.exact and r.stick_the_dealer)
    return np.minimum(total, MAX_HAND_NO) if bounded else np.full(s.batch_size, MAX_HAND_NO, np.int64)


def _check_hand_no(s: State, game: Game) -> Problem | None:
    """``hand_no`` is at most what the scores allow (``max_hand_no``), and the next hand's number fits int16."""
    bound = max_hand_no(s, game)

    def detail(row: int) -> str:
        h, b, sc = int(s.hand_no[row]), int(bound[row]), s.scores[row].tolist()
        if b == MAX_HAND_NO:
            return (
                f"is {h}, more than {MAX_HAND_NO}: the next hand's number would overflow int16 (scores {sc})"
            )
        if game.rules.called_card:
            why = (
                "every hand played scores at least 1 point for some player, so at most the sum of the scores"
            )
        else:
            why = (
                "every hand played scores at least 1 point for one side, so at most the two sides' "
                f"points {sc[0]} + {sc[1]}"
            )
        if s.phase[row] == DONE and s.last_maker[row] >= 0:
            why += ", less the finished game's last hand"
        return f"is {h}, but the scores {sc} allow at most {b} hands before this one ({why})"

    return first_problem(s.hand_no.astype(np.int64) > bound, "hand_no", detail)


def check_masks(s: State, game: Game) -> Problem | None:
    """``mask_base``/``mask_bits`` are the legal sets the rules give (either stick setting when unknown)."""
    r = game.rules
    base, bits = masks.compute_legal_bits(s, r)
    ok = (s.mask_base == base) & (s.mask_bits == bits)
    if not game.exact and not r.called_card:  # stick the dealer unknown: the dealer may or may not pass
        other = make_rules(r.variant, stick_the_dealer=not r.stick_the_dealer)
        base2, bits2 = masks.compute_legal_bits(s, other)
        ok |= (s.mask_base == base2) & (s.mask_bits == bits2)
    problem = first_problem(
        ~ok,
        "mask_bits",
        lambda row: (
            f"is {int(s.mask_bits[row]):#x} with mask_base {s.mask_base[row]}, but the legal set of "
            f"seat {s.turn[row]} in phase {phase_name(s, row)} is {int(bits[row]):#x} from {base[row]}"
        ),
    )
    if problem is not None and s.mask_base[problem.row] != base[problem.row]:
        problem = replace(problem, field="mask_base")
    return problem
