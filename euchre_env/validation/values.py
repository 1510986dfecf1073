"""Invariant groups over the fields' values: schema, ranges, and every card in exactly one place."""

from __future__ import annotations

import numpy as np

from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.rules import NUM_TRICKS
from euchre_env.state import SCHEMA, VARIANT_OF_SEATS, State
from euchre_env.validation.common import (
    BID_SUIT,
    BID_UPCARD,
    CALL,
    DECLARE,
    DEFEND,
    DISCARD,
    DONE,
    MAX_SCORE,
    PLAY,
    Game,
    Problem,
    card_bits,
    cards_text,
    first_problem,
    phase_name,
    rows_in,
)


def check_schema(s: State) -> Problem | None:
    """Every field is a numpy array of its dtype, with one ``B``, ``P`` a game's seat count and ``T = 5``."""
    sizes: dict[str, int] = {"T": NUM_TRICKS}
    for name, (dtype, axes) in SCHEMA.items():
        a = getattr(s, name)
        if not isinstance(a, np.ndarray):
            return Problem(None, name, f"must be a numpy array, got {type(a).__name__}")
        if a.dtype != dtype:
            return Problem(None, name, f"must have dtype {dtype.name}, got {a.dtype}")
        if a.ndim != len(axes):
            return Problem(None, name, f"must have shape ({', '.join(axes)}), got {a.shape}")
        for axis, n in zip(axes, a.shape, strict=True):
            want = sizes.setdefault(axis, n)
            if axis == "P" and n not in VARIANT_OF_SEATS:
                return Problem(None, name, f"has {n} seats (shape {a.shape}); a game has 4 or 5")
            if n != want:
                return Problem(None, name, f"has shape {a.shape}, but {axis} is {want} in the other fields")
    return None


def check_ranges(s: State, game: Game) -> Problem | None:
    """Each field's values: seats, phases of the game, suits, card ids and sets of its deck, counts."""
    r, p = game.rules, game.rules.num_players
    five = r.called_card
    no_lone_defence = five or (game.exact and not r.defend_alone)
    seat, seat_or_none = (0, p - 1), (-1, p - 1)
    none_here = (-1, -1)  # a field the other game never sets
    ranges = {  # field: (lo, hi) inclusive
        "hand_no": (0, np.iinfo(np.int16).max),
        "dealer": seat,
        "phase": (0, len(Phase) - 1),
        "turn": seat_or_none,
        "trump": (0, cards.NO_TRUMP),
        "maker": seat_or_none,
        "bid_round": (1, 2),
        "partner": seat_or_none if five else none_here,
        "revealed": (-1, NUM_TRICKS - 1) if five else none_here,
        "defender_alone": none_here if no_lone_defence else seat_or_none,
        "out": (0, 0) if five else (0, (1 << p) - 1),
        "trick_no": (0, NUM_TRICKS),
        "leader": seat_or_none,
        "led": (-1, cards.NUM_SUITS - 1),
        "n_played": (0, p - 1),
        "trick_winner": seat_or_none,
        "tricks_won": (0, NUM_TRICKS),
        "scores": (0, MAX_SCORE),
        "last_points": (0, 4),
        "last_tricks": (0, NUM_TRICKS),
        "last_maker": seat_or_none,
        "last_trump": (0, cards.NO_TRUMP),
        "last_partner": seat_or_none if five else none_here,
        "last_defender_alone": none_here if no_lone_defence else seat_or_none,
        "winners": (0, (1 << p) - 1),
    }
    card_ids = {"upcard": False, "discard": True, "called": five, "trick_cards": True, "last_called": five}
    for name in SCHEMA:  # in field order
        a = getattr(s, name)
        if name in ranges:
            unused = f"{game.name} without defend_alone" if "defender" in name and not five else game.name
            problem = _values_in(name, a, *ranges[name], unused if ranges[name] == none_here else "")
        elif name in card_ids:
            problem = _card_ids_in(name, a, game, card_ids[name])
        elif name in ("hands", "kitty", "played_by", "trick_bits"):
            problem = _card_sets_in(name, a, game)
        else:
            problem = None
        if problem is not None:
            return problem
    # phases of this game (and of its settings, when known)
    allowed_phases = {BID_UPCARD, DISCARD, BID_SUIT, PLAY, DONE}
    allowed_phases |= {CALL} if five else {DECLARE, DEFEND}
    if game.exact and not r.defend_alone:
        allowed_phases.discard(DEFEND)
    return first_problem(
        ~rows_in(s.phase, np.array(sorted(allowed_phases))),
        "phase",
        lambda row: (
            f"is {phase_name(s, row)}, not a phase of the {game.name} game"
            + ("" if five or r.defend_alone or not game.exact else " without defend_alone")
        ),
    )


def _values_in(name: str, a: np.ndarray, lo: int, hi: int, unused_by: str) -> Problem | None:
    """Field ``name``'s values ``a`` (B, ...) in ``lo..hi``; ``unused_by``: the game that never sets it."""
    flat = a.reshape(a.shape[0], -1)
    why = f" (the {unused_by} game never sets it)" if unused_by else ""
    return first_problem(
        ((flat < lo) | (flat > hi)).any(axis=1),
        name,
        lambda row: f"is {a[row].tolist()}, expected values in {lo}..{hi}{why}",
    )


def _card_ids_in(name: str, a: np.ndarray, game: Game, none_ok: bool) -> Problem | None:
    """Field ``name``'s card ids ``a`` (B, ...) are cards of the game's deck (or -1 if ``none_ok``)."""
    ids = a.reshape(a.shape[0], -1).astype(np.intp)
    known = (ids >= 0) & (ids < cards.NUM_CARDS)
    in_deck = known & (np.uint32(game.rules.deck_mask) >> np.where(known, ids, 0).astype(np.uint32) & 1 != 0)
    allowed = in_deck | ((ids == -1) & none_ok)
    what = f"card ids of the {game.name} deck" + (" or -1" if none_ok else "")
    if name in ("called", "last_called") and not game.rules.called_card:
        allowed, what = ids == -1, f"-1 (the {game.name} game has no called card)"
    return first_problem(~allowed.all(axis=1), name, lambda row: f"is {a[row].tolist()}, expected {what}")


def _card_sets_in(name: str, a: np.ndarray, game: Game) -> Problem | None:
    """Field ``name``'s card sets ``a`` (B, ...) hold only cards of the game's deck."""
    foreign = a.reshape(a.shape[0], -1) & ~np.uint32(game.rules.deck_mask)
    return first_problem(
        (foreign != 0).any(axis=1),
        name,
        lambda row: (
            f"holds {cards_text(int(np.bitwise_or.reduce(foreign[row])))}: not cards of the {game.name} deck"
        ),
    )


def check_cards(s: State, game: Game) -> Problem | None:
    """Every card of the deck is in exactly one place: a hand, the kitty, the discard or a trick."""
    b, p = s.batch_size, game.rules.num_players
    places: list[tuple[str, np.ndarray]] = [(f"hands[{i}]", s.hands[:, i]) for i in range(p)]
    places += [("kitty", s.kitty), ("discard", card_bits(s.discard))]
    trick_bits = card_bits(s.trick_cards)
    places += [(f"trick_cards[{t}, {i}]", trick_bits[:, t, i]) for t in range(NUM_TRICKS) for i in range(p)]
    seen = np.zeros(b, np.uint32)
    for name, bits in places:
        twice = seen & bits
        if twice.any():
            row = int(np.argmax(twice != 0))
            card = cards.cards_of(int(twice[row]))[0]
            first = next(n for n, x in places if int(x[row]) >> card & 1)
            field = name.partition("[")[0]
            return Problem(row, field, f"({name}) holds {cards.name(card)}, which {first} holds too")
        seen |= bits
    missing = np.uint32(game.rules.deck_mask) & ~seen
    return first_problem(
        missing != 0,
        "cards",
        lambda row: (
            f"missing: {cards_text(int(missing[row]))} is in no hand, not in the kitty, "
            "the discard or a trick"
        ),
    )
