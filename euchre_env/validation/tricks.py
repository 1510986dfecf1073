"""Invariant groups of card play: the tricks replayed, and the records derived from them."""

from __future__ import annotations

import numpy as np

from euchre_env import cards
from euchre_env.engine.tables import NEXT_ACTIVE, NUM_ACTIVE
from euchre_env.rules import NUM_TRICKS
from euchre_env.state import State
from euchre_env.validation.common import (
    DONE,
    Game,
    Problem,
    card_bits,
    card_name,
    cards_text,
    first_problem,
    play_begun,
    suit_of,
)


def check_tricks(s: State, game: Game) -> Problem | None:
    """The tricks: who led and played (in turn, never a seat sitting out), following suit, the winners,
    and the current trick's leader, seat to act and led suit."""
    p, b = game.rules.num_players, s.batch_size
    rows = np.arange(b)
    in_play = play_begun(s)
    done = s.phase == DONE
    t_no = s.trick_no.astype(np.intp)
    out = s.out.astype(np.intp)
    active = (out[:, None] >> np.arange(p)) & 1 == 0  # (B, P)
    filled = s.trick_cards >= 0  # (B, T, P)
    before = [
        (~in_play & (s.trick_no != 0), "trick_no", lambda row: f"is {s.trick_no[row]} before card play"),
        (~in_play & (s.leader != -1), "leader", lambda row: f"is {s.leader[row]} before card play"),
        (in_play & done & (s.trick_no != NUM_TRICKS), "trick_no", lambda row: f"is {s.trick_no[row]} in a "
         "finished hand that was played: all five tricks are played"),
        (in_play & ~done & (s.trick_no >= NUM_TRICKS), "trick_no", lambda row: f"is {s.trick_no[row]} in card "
         "play"),
        ((done | ~in_play) & (s.n_played != 0), "n_played", lambda row: f"is {s.n_played[row]} with no trick "
         "under way"),
        (in_play & (s.n_played >= NUM_ACTIVE[p][out]), "n_played", lambda row: f"is {s.n_played[row]}, but "
         f"only {NUM_ACTIVE[p][out[row]]} seats play a trick"),
        ((done | ~in_play) & (s.led != -1), "led", lambda row: f"is {s.led[row]} with no trick under way"),
    ]  # fmt: skip
    for bad, field, detail in before:
        problem = first_problem(bad, field, detail)
        if problem is not None:
            return problem
    # Tricks before the current one are complete (every active seat, no other); later ones are empty.
    t_axis = np.arange(NUM_TRICKS)
    complete = t_axis[None, :] < t_no[:, None]  # (B, T)
    later = t_axis[None, :] > t_no[:, None]
    later |= ~in_play[:, None]  # before card play every trick is empty
    wrong = (complete[:, :, None] & (filled != active[:, None, :])) | (later[:, :, None] & filled)
    problem = first_problem(
        wrong.any(axis=(1, 2)),
        "trick_cards",
        lambda row: (
            f"trick {int(np.argmax(wrong[row].any(axis=1)))} holds cards of seats "
            f"{np.flatnonzero(filled[row, np.argmax(wrong[row].any(axis=1))]).tolist()}, but with trick_no "
            f"{t_no[row]} and out {s.out[row]:0{p}b} it must hold "
            + (
                "none"
                if later[row, np.argmax(wrong[row].any(axis=1))]
                else "one card of each seat that plays"
            )
        ),
    )
    if problem is not None:
        return problem
    # Replay the tricks: each leader (the first from the dealer's left, then each winner), the led
    # suit, following suit, the winner.
    nxt = NEXT_ACTIVE[p]
    lead = np.where(in_play, nxt[out, s.dealer.astype(np.intp)], 0).astype(np.intp)
    suit = suit_of(s, s.trick_cards.astype(np.intp))  # (B, T, P) effective suits, -1 none
    from_t = np.bitwise_or.accumulate(card_bits(s.trick_cards)[:, ::-1], axis=1)[:, ::-1]  # (B, T, P)
    for t in range(NUM_TRICKS):
        problem, lead = _replay_trick(s, t, lead, in_play, suit, from_t)
        if problem is not None:
            return problem
    # After the replay: the next leader; in a finished hand, the last winner.
    problem = first_problem(
        in_play & done & (s.leader != lead),
        "leader",
        lambda row: f"is seat {s.leader[row]}, but seat {lead[row]} won the last trick",
    )
    if problem is not None:
        return problem
    # The trick under way: the first n_played active seats from the leader have played; the next acts.
    playing = in_play & ~done
    order = np.empty((b, p), np.intp)
    order[:, 0] = np.where(playing, s.leader, 0)
    for k in range(1, p):
        order[:, k] = nxt[out, order[:, k - 1]]
    k_played = s.n_played.astype(np.intp)
    t_cur = np.minimum(t_no, NUM_TRICKS - 1)
    in_trick = np.zeros((b, p), bool)
    for k in range(p):
        np.logical_or.at(in_trick, (rows, order[:, k]), k < k_played)
    cur_filled = filled[rows, t_cur]
    problem = first_problem(
        playing & (cur_filled != in_trick).any(axis=1),
        "n_played",
        lambda row: (
            f"is {k_played[row]} from leader {s.leader[row]}, but trick {t_no[row]} holds cards of "
            f"seats {np.flatnonzero(cur_filled[row]).tolist()}"
        ),
    )
    if problem is not None:
        return problem
    to_act = order[rows, np.minimum(k_played, p - 1)]
    problem = first_problem(
        playing & (s.turn != to_act),
        "turn",
        lambda row: f"is seat {s.turn[row]}, but seat {to_act[row]} plays next to trick {t_no[row]}",
    )
    if problem is not None:
        return problem
    led_now = np.where(playing & (k_played > 0), suit[rows, t_cur, np.where(playing, s.leader, 0)], -1)
    return first_problem(
        s.led != led_now,
        "led",
        lambda row: f"is {s.led[row]}, but the card led to trick {t_no[row]} makes it {led_now[row]}",
    )


def _replay_trick(
    s: State, t: int, lead: np.ndarray, in_play: np.ndarray, suit: np.ndarray, from_t: np.ndarray
) -> tuple[Problem | None, np.ndarray]:
    """Trick ``t`` at every table (``check_tricks``): the leader of a trick under way, following suit, the winner.

    Args:
        lead: (B,) the seat that leads trick ``t`` at tables in card play.
        in_play: (B,) card play has begun; suit: (B, T, P) effective suits of ``trick_cards`` (-1 none);
        from_t: (B, T, P) each seat's cards played from trick ``t`` on.

    Returns:
        The first problem or None, and the leaders of trick ``t + 1``.
    """
    rows = np.arange(s.batch_size)
    t_no = s.trick_no.astype(np.intp)
    reached = in_play & (t <= t_no)
    problem = first_problem(
        reached & (t == t_no) & (s.leader != lead),
        "leader",
        lambda row: (
            f"is seat {s.leader[row]}, but seat {lead[row]} leads trick {t} (after "
            + ("the deal" if t == 0 else f"winning trick {t - 1}")
            + ")"
        ),
    )
    if problem is not None:
        return problem, lead
    cards_t = s.trick_cards[:, t].astype(np.intp)  # (B, P)
    led = np.where(reached & (cards_t[rows, lead] >= 0), suit[rows, t, lead], -1)  # (B,)
    hand_t = s.hands | from_t[:, t]  # (B, P): each seat's hand as trick t began
    follow = cards.SUIT_BITS[s.trump.astype(np.intp), np.maximum(led, 0)][:, None]  # (B, 1)
    revoked = (led >= 0)[:, None] & (cards_t >= 0) & (suit[:, t] != led[:, None]) & ((hand_t & follow) != 0)
    seat = np.argmax(revoked, axis=1)
    problem = first_problem(
        revoked.any(axis=1),
        "trick_cards",
        lambda row: (
            f"trick {t}: seat {seat[row]} played {card_name(cards_t[row, seat[row]])} without following "
            f"{cards.SUIT_NAMES[led[row]]}, holding {cards_text(int(hand_t[row, seat[row]] & follow[row, 0]))}"
        ),
    )
    if problem is not None:
        return problem, lead
    finished = reached & (t < t_no)
    strength = cards.STRENGTH[s.trump.astype(np.intp)[:, None], np.maximum(led, 0)[:, None], cards_t + 1]
    winner = np.argmax(strength, axis=1)
    want = np.where(finished, winner, -1)
    problem = first_problem(
        s.trick_winner[:, t] != want,
        "trick_winner",
        lambda row: (
            f"of trick {t} is {s.trick_winner[row, t]}, but "
            + (f"seat {want[row]} won it" if finished[row] else "the trick is not finished")
        ),
    )
    return problem, np.where(finished, winner, lead)


def check_records(s: State, game: Game) -> Problem | None:
    """``played_by``, ``trick_bits``, ``tricks_won`` and ``revealed`` agree with the tricks."""
    p = game.rules.num_players
    bits = card_bits(s.trick_cards)  # (B, T, P)
    played_by = np.bitwise_or.reduce(bits, axis=1)
    trick_bits = np.bitwise_or.reduce(bits, axis=2)
    won = (s.trick_winner[:, :, None] == np.arange(p)).sum(axis=1)
    checks = [
        (
            (s.played_by != played_by).any(axis=1),
            "played_by",
            lambda row: (
                f"is {[cards_text(int(x)) for x in s.played_by[row]]}, but trick_cards say "
                f"{[cards_text(int(x)) for x in played_by[row]]}"
            ),
        ),
        (
            (s.trick_bits != trick_bits).any(axis=1),
            "trick_bits",
            lambda row: (
                f"is {[cards_text(int(x)) for x in s.trick_bits[row]]}, but trick_cards say "
                f"{[cards_text(int(x)) for x in trick_bits[row]]}"
            ),
        ),
        (
            (s.tricks_won != won).any(axis=1),
            "tricks_won",
            lambda row: f"is {s.tricks_won[row].tolist()}, but trick_winner says {won[row].tolist()}",
        ),
    ]
    if game.rules.called_card:
        hit = (s.trick_cards == s.called[:, None, None]).any(axis=2) & (s.called >= 0)[:, None]  # (B, T)
        revealed = np.where(hit.any(axis=1), np.argmax(hit, axis=1), -1)
        checks.append(
            (
                s.revealed != revealed,
                "revealed",
                lambda row: (
                    f"is {s.revealed[row]}, but the called card {card_name(s.called[row])} was "
                    + (f"played in trick {revealed[row]}" if revealed[row] >= 0 else "not played")
                ),
            )
        )
    for bad, field, detail in checks:
        problem = first_problem(bad, field, detail)
        if problem is not None:
            return problem
    return None
