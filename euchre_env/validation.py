"""Is a ``State`` one the rules can reach? Schema, value ranges and the game's invariants.

``validate_state(state, rules)`` raises ``ValueError`` naming the first fault
as ``invalid state: table <row>: <field> ...``. ``State.from_json`` and
``State.from_dict`` call it, so a saved or handed-in state cannot make the
engine read or write out of place (a seat, dealer or trick number out of range
would index another table's cards: the engine computes flat indices such as
``row * P + seat``). The engine itself trusts the states it makes and checks
only what is cheap (``engine.step``: the seat count, and the indices it uses).

Each invariant group is a small pure function over the batched state that
returns the first ``Problem`` (table row, field, what is wrong) or None, run
in this order (a later group may rely on what an earlier one checked):

* ``check_schema``: every field a numpy array of its dtype and shape (``state.SCHEMA``).
* ``check_ranges``: each field's values: seats, phases of the game, suits,
  card ids and card sets of the game's deck (no 8s four-handed), counts.
* ``check_cards``: every card of the deck in exactly one place: a hand, the
  kitty, the dealer's discard or a trick.
* ``check_phase``: what the phase fixes: bidding round, maker, trump (made
  iff there is a maker; the upcard's suit iff ordered up), the seat to act,
  the upcard's and the discard's whereabouts, declarations (alone, the
  called card and its holder, lone defender, who sits out).
* ``check_hands``: five cards per seat, counting those played (six for the
  dealer about to discard).
* ``check_tricks``: the tricks: who led, who has played (in turn, seats
  sitting out never), following suit, winners, the seat to act, the led suit.
* ``check_records``: fields derived from the tricks: ``played_by``,
  ``trick_bits``, ``tricks_won``, ``revealed``.
* ``check_scores``: scores, the record of the last hand (its points follow
  from its tricks), a finished table's record, winners, the game's settings.
* ``check_masks``: ``mask_base``/``mask_bits`` equal the legal sets recomputed
  from the rules.

``rules`` may be a ``RulesConfig`` (every check exact), a variant or preset
name, or None (the variant with the state's number of seats). Without a
``RulesConfig`` the table settings are unknown, so the checks that depend on
them accept every setting: stick the dealer (a thrown-in hand, the dealer's
pass), defend alone, ``episode`` (hand number, winners) and ``points_to_win``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.engine import masks, play
from euchre_env.engine.tables import NEXT_ACTIVE, NUM_ACTIVE, SEAT_BIT
from euchre_env.rules import HAND_SIZE, NUM_TRICKS, PRESETS, RulesConfig, make_rules
from euchre_env.state import SCHEMA, VARIANT_OF_SEATS, State

__all__ = [
    "MAX_SCORE",
    "Game",
    "Problem",
    "check_cards",
    "check_hands",
    "check_masks",
    "check_phase",
    "check_ranges",
    "check_records",
    "check_schema",
    "check_scores",
    "check_tricks",
    "find_problem",
    "game_of",
    "validate_state",
]

MAX_SCORE = 10_003  # a given deal's scores are below 10,000 (engine.deal), plus at most 4 points a hand
_BID_UPCARD, _DISCARD, _BID_SUIT, _CALL, _DECLARE, _DEFEND, _PLAY, _DONE = (int(p) for p in Phase)


@dataclass(frozen=True)
class Problem:
    """The first fault found: table ``row`` (None for the whole state), ``field`` and what is wrong."""

    row: int | None
    field: str
    detail: str

    def __str__(self) -> str:
        where = "" if self.row is None else f"table {self.row}: "
        return f"invalid state: {where}{self.field} {self.detail}"


@dataclass(frozen=True)
class Game:
    """The game a state must belong to: ``rules`` of its variant; ``exact``: their settings are known."""

    rules: RulesConfig
    exact: bool

    @property
    def name(self) -> str:
        return self.rules.variant


def game_of(rules: RulesConfig | str | None, num_players: int) -> Game:
    """The ``Game`` for a ``rules`` argument and a state of ``num_players`` seats.

    Raises:
        ValueError: ``rules`` is not a RulesConfig, a variant/preset name or None,
            or its game has another number of seats.
    """
    if rules is None:
        if num_players not in VARIANT_OF_SEATS:
            raise ValueError(f"invalid state: hands has {num_players} seats; no game has that many")
        game = Game(PRESETS[VARIANT_OF_SEATS[num_players]], exact=False)
    elif isinstance(rules, RulesConfig):
        game = Game(rules, exact=True)
    elif isinstance(rules, str) and rules in PRESETS:
        game = Game(make_rules(PRESETS[rules].variant), exact=False)
    else:
        raise ValueError(f"rules must be a RulesConfig, one of {sorted(PRESETS)} or None, got {rules!r}")
    if game.rules.num_players != num_players:
        raise ValueError(
            f"invalid state: the state has {num_players} seats per table but {game.name} has "
            f"{game.rules.num_players}: a state of another game"
        )
    return game


def validate_state(state: State, rules: RulesConfig | str | None = None) -> None:
    """Raise ``ValueError`` naming the table and field of the first fault, if ``state`` has one.

    Args:
        state: a ``State`` of any batch size.
        rules: see the module docstring.
    """
    problem = find_problem(state, rules)
    if problem is not None:
        raise ValueError(str(problem))


def find_problem(state: State, rules: RulesConfig | str | None = None) -> Problem | None:
    """The first fault of ``state`` (every group in order), or None for a valid state.

    Raises:
        ValueError: ``state`` is not a State, or ``rules`` does not fit (see ``game_of``).
    """
    if not isinstance(state, State):
        raise ValueError(f"expected a State, got {type(state).__name__}")
    problem = check_schema(state)
    if problem is not None:
        return problem
    game = game_of(rules, state.num_players)
    for check in _GROUPS:
        problem = check(state, game)
        if problem is not None:
            return problem
    return None


# --- helpers -----------------------------------------------------------------


def _first(bad: np.ndarray, field: str, detail: Callable[[int], str]) -> Problem | None:
    """A Problem at the first row where ``bad`` ((B,) bool) holds; ``detail(row)`` says what is wrong."""
    if not bad.any():
        return None
    row = int(np.argmax(bad))
    return Problem(row, field, detail(row))


def _in(a: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Elementwise ``a in values`` for ``(B,)`` ``a`` and ``(B, k)`` or ``(k,)`` ``values``."""
    return (np.asarray(values) == a[:, None]).any(axis=1)


def _bits(card_ids: np.ndarray) -> np.ndarray:
    """uint32 card bits of card ids (any shape), 0 for -1 (no card)."""
    ids = card_ids.astype(np.intp)
    return np.where(ids >= 0, cards.CARD_BIT[np.maximum(ids, 0)], np.uint32(0))


def _count(bits: np.ndarray) -> np.ndarray:
    """Cards in each uint32 card set, int64."""
    return np.bitwise_count(bits).astype(np.int64)


def _card(c: int) -> str:
    return cards.name(c) if 0 <= c < cards.NUM_CARDS else str(c)


def _cards_text(bits: int) -> str:
    return " ".join(cards.name(c) for c in cards.cards_of(bits)) or "none"


def _phase(s: State, row: int) -> str:
    return Phase(int(s.phase[row])).name


def _played(s: State) -> np.ndarray:
    """(B, P) uint32: the cards each seat has played this hand, from ``trick_cards``."""
    return np.bitwise_or.reduce(_bits(s.trick_cards), axis=1)


def _made(s: State) -> np.ndarray:
    return s.maker >= 0


def _taken(s: State) -> np.ndarray:
    """(B,) bool: the upcard was ordered up in round 1 (the dealer took it)."""
    return (s.maker >= 0) & (s.bid_round == 1)


def _in_play(s: State) -> np.ndarray:
    """(B,) bool: card play has begun: phase PLAY, or a finished hand that was played."""
    return (s.phase == _PLAY) | ((s.phase == _DONE) & (s.maker >= 0))


def _suit_of(s: State, ids: np.ndarray) -> np.ndarray:
    """Effective suit of card ids ((B, ...) with -1 for none) under each row's trump; -1 for none."""
    trump = s.trump.astype(np.intp).reshape(-1, *([1] * (ids.ndim - 1)))
    suit = cards.EFFECTIVE_SUIT[trump, np.maximum(ids, 0).astype(np.intp)]
    return np.where(ids >= 0, suit, -1)


# --- the groups --------------------------------------------------------------


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
    allowed_phases = {_BID_UPCARD, _DISCARD, _BID_SUIT, _PLAY, _DONE}
    allowed_phases |= {_CALL} if five else {_DECLARE, _DEFEND}
    if game.exact and not r.defend_alone:
        allowed_phases.discard(_DEFEND)
    return _first(
        ~_in(s.phase, np.array(sorted(allowed_phases))),
        "phase",
        lambda row: (
            f"is {_phase(s, row)}, not a phase of the {game.name} game"
            + ("" if five or r.defend_alone or not game.exact else " without defend_alone")
        ),
    )


def _values_in(name: str, a: np.ndarray, lo: int, hi: int, unused_by: str) -> Problem | None:
    """Field ``name``'s values ``a`` (B, ...) in ``lo..hi``; ``unused_by``: the game that never sets it."""
    flat = a.reshape(a.shape[0], -1)
    why = f" (the {unused_by} game never sets it)" if unused_by else ""
    return _first(
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
    return _first(~allowed.all(axis=1), name, lambda row: f"is {a[row].tolist()}, expected {what}")


def _card_sets_in(name: str, a: np.ndarray, game: Game) -> Problem | None:
    """Field ``name``'s card sets ``a`` (B, ...) hold only cards of the game's deck."""
    foreign = a.reshape(a.shape[0], -1) & ~np.uint32(game.rules.deck_mask)
    return _first(
        (foreign != 0).any(axis=1),
        name,
        lambda row: (
            f"holds {_cards_text(int(np.bitwise_or.reduce(foreign[row])))}: not cards of the {game.name} deck"
        ),
    )


def check_cards(s: State, game: Game) -> Problem | None:
    """Every card of the deck is in exactly one place: a hand, the kitty, the discard or a trick."""
    b, p = s.batch_size, game.rules.num_players
    places: list[tuple[str, np.ndarray]] = [(f"hands[{i}]", s.hands[:, i]) for i in range(p)]
    places += [("kitty", s.kitty), ("discard", _bits(s.discard))]
    trick_bits = _bits(s.trick_cards)
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
    return _first(
        missing != 0,
        "cards",
        lambda row: (
            f"missing: {_cards_text(int(missing[row]))} is in no hand, not in the kitty, "
            "the discard or a trick"
        ),
    )


def check_phase(s: State, game: Game) -> Problem | None:
    """The fields each phase fixes: bidding round, maker, trump, seat to act, upcard, discard, declarations."""
    r, p = game.rules, game.rules.num_players
    ph, made, taken = s.phase, _made(s), _taken(s)
    bidding = (ph == _BID_UPCARD) | (ph == _BID_SUIT)
    declared = (ph == _PLAY) | (ph == _DONE) | (ph == _DEFEND)  # the maker has declared (if there is one)
    up_suit = cards.CARD_SUIT[s.upcard.astype(np.intp)]
    up_bit = cards.CARD_BIT[s.upcard.astype(np.intp)]
    dealer = s.dealer.astype(np.intp)
    rows = np.arange(s.batch_size)
    held = s.hands | _played(s)  # (B, P): each seat's cards this hand (the dealer's after any discard)
    thrown_in_ok = not (game.exact and r.stick_the_dealer) and not r.called_card
    partner_seat = (s.maker.astype(np.intp) + 2) % p
    lone_maker = made & s.alone & declared
    out_want = np.where(lone_maker & ~r.called_card, SEAT_BIT[partner_seat], 0)
    da = s.defender_alone.astype(np.intp)
    out_want |= np.where(da >= 0, SEAT_BIT[(da + 2) % p], 0)
    holder = np.where((held & cards.CARD_BIT[np.maximum(s.called, 0)][:, None]) != 0, np.arange(p), p).min(1)
    checks = [
        (
            ((ph == _BID_UPCARD) | (ph == _DISCARD)) & (s.bid_round != 1)
            | (ph == _BID_SUIT) & (s.bid_round != 2),
            "bid_round",
            lambda row: f"is {s.bid_round[row]} in phase {_phase(s, row)}",
        ),
        (bidding & made, "maker", lambda row: f"is seat {s.maker[row]} while trump is still bid for"),
        (
            ~bidding & (ph != _DONE) & ~made,
            "maker",
            lambda row: f"is -1 (nobody) in phase {_phase(s, row)}, after trump was made",
        ),
        (
            (s.trump != cards.NO_TRUMP) != made,
            "trump",
            lambda row: f"is {s.trump[row]} but maker is {s.maker[row]}: trump is made iff there is a maker",
        ),
        (
            taken & (s.trump != up_suit),
            "trump",
            lambda row: f"is {s.trump[row]}, but the upcard {_card(s.upcard[row])} was ordered up in round 1",
        ),
        (
            made & (s.bid_round == 2) & (s.trump == up_suit),
            "trump",
            lambda row: f"is the suit of the upcard {_card(s.upcard[row])}, which cannot be named in round 2",
        ),
        (
            (ph == _DONE) & ~made & ((s.bid_round != 2) | (not thrown_in_ok)),
            "maker",
            lambda row: (
                "is -1 in a finished hand: a hand is thrown in only after two passed rounds, "
                "without stick the dealer"
            ),
        ),
        ((ph == _DONE) != (s.turn == -1), "turn", lambda row: f"is {s.turn[row]} in phase {_phase(s, row)}"),
        (
            (ph == _DISCARD) & (s.turn != s.dealer),
            "turn",
            lambda row: f"is seat {s.turn[row]}, but the dealer (seat {s.dealer[row]}) discards",
        ),
        (
            ((ph == _CALL) | (ph == _DECLARE)) & (s.turn != s.maker),
            "turn",
            lambda row: f"is seat {s.turn[row]}, but the maker (seat {s.maker[row]}) declares",
        ),
        (
            (ph == _DEFEND) & ((s.turn.astype(np.int64) - s.maker) % 2 == 0),
            "turn",
            lambda row: f"is seat {s.turn[row]}, not a defender against maker {s.maker[row]}",
        ),
        (
            (s.kitty & up_bit != 0) == taken,
            "upcard",
            lambda row: (
                f"{_card(s.upcard[row])} "
                + ("is in the kitty, but the dealer took it" if taken[row] else "is not in the kitty")
                + f" (maker {s.maker[row]}, bid_round {s.bid_round[row]})"
            ),
        ),
        (
            taken & ((held[rows, dealer] & up_bit) == 0) & (s.discard != s.upcard),
            "upcard",
            lambda row: (
                f"{_card(s.upcard[row])} was taken by the dealer (seat {s.dealer[row]}), who has "
                "neither held, played nor discarded it"
            ),
        ),
        (
            (s.discard >= 0) != (taken & (ph != _DISCARD)),
            "discard",
            lambda row: (
                f"is {_card(s.discard[row])}: the dealer discards once, after ordering up in round 1 "
                f"(phase {_phase(s, row)}, maker {s.maker[row]}, bid_round {s.bid_round[row]})"
            ),
        ),
        (
            s.alone & ~(made & declared),
            "alone",
            lambda row: f"is True but no maker has declared (phase {_phase(s, row)})",
        ),
        (
            (ph == _DEFEND) & ~s.alone,
            "alone",
            lambda row: "is False, but defenders are asked to defend alone only against a lone maker",
        ),
    ]
    if r.called_card:
        called = s.called >= 0
        checks += [
            (
                called & ~(made & declared) | (made & declared & (called == s.alone)),
                "called",
                lambda row: (
                    f"is {_card(s.called[row])} with alone {s.alone[row]} in phase {_phase(s, row)}: "
                    "the maker calls a card or goes alone, once"
                ),
            ),
            (
                called & (holder == s.maker),
                "called",
                lambda row: f"{_card(s.called[row])} is the maker's own card",
            ),
            (
                s.partner != np.where(called & (holder < p), holder, -1),
                "partner",
                lambda row: (
                    f"is {s.partner[row]}, but the called card {_card(s.called[row])} is held by "
                    + (f"seat {holder[row]}" if s.called[row] >= 0 and holder[row] < p else "nobody")
                ),
            ),
        ]
    else:
        checks += [
            (
                (da >= 0) & ~(s.alone & declared & (ph != _DEFEND) & ((da - s.maker) % 2 == 1)),
                "defender_alone",
                lambda row: (
                    f"is seat {da[row]}: only a defender against a lone maker, once asked, "
                    f"defends alone (maker {s.maker[row]}, alone {s.alone[row]}, phase {_phase(s, row)})"
                ),
            ),
            (
                (ph == _DEFEND) & (da >= 0),
                "defender_alone",
                lambda row: "is set while the defenders are still asked",
            ),
            (
                s.out != out_want,
                "out",
                lambda row: (
                    f"is {s.out[row]:0{p}b} (seats bits), expected {out_want[row]:0{p}b}: the lone "
                    "maker's partner and a lone defender's partner sit out"
                ),
            ),
        ]
    for bad, field, detail in checks:
        problem = _first(np.asarray(bad), field, detail)
        if problem is not None:
            return problem
    return None


def check_hands(s: State, game: Game) -> Problem | None:
    """Five cards per seat counting those played; six for the dealer while discarding."""
    p = game.rules.num_players
    have = _count(s.hands) + _count(_played(s))  # (B, P)
    want = np.full(have.shape, HAND_SIZE)
    want[np.arange(s.batch_size), s.dealer.astype(np.intp)] += s.phase == _DISCARD
    bad = have != want
    return _first(
        bad.any(axis=1),
        "hands",
        lambda row: "; ".join(
            f"seat {i} holds {_count(s.hands[row, i])} and has played {have[row, i] - _count(s.hands[row, i])}"
            f" cards, expected {want[row, i]} in all"
            for i in range(p)
            if bad[row, i]
        ),
    )


def check_tricks(s: State, game: Game) -> Problem | None:
    """The tricks: who led and played (in turn, never a seat sitting out), following suit, the winners,
    and the current trick's leader, seat to act and led suit."""
    p, b = game.rules.num_players, s.batch_size
    rows = np.arange(b)
    in_play = _in_play(s)
    done = s.phase == _DONE
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
        problem = _first(bad, field, detail)
        if problem is not None:
            return problem
    # Tricks before the current one are complete (every active seat, no other); later ones are empty.
    t_axis = np.arange(NUM_TRICKS)
    complete = t_axis[None, :] < t_no[:, None]  # (B, T)
    later = t_axis[None, :] > t_no[:, None]
    later |= ~in_play[:, None]  # before card play every trick is empty
    wrong = (complete[:, :, None] & (filled != active[:, None, :])) | (later[:, :, None] & filled)
    problem = _first(
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
    suit = _suit_of(s, s.trick_cards.astype(np.intp))  # (B, T, P) effective suits, -1 none
    from_t = np.bitwise_or.accumulate(_bits(s.trick_cards)[:, ::-1], axis=1)[:, ::-1]  # (B, T, P)
    for t in range(NUM_TRICKS):
        problem, lead = _replay_trick(s, t, lead, in_play, suit, from_t)
        if problem is not None:
            return problem
    # After the replay: the next leader; in a finished hand, the last winner.
    problem = _first(
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
    problem = _first(
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
    problem = _first(
        playing & (s.turn != to_act),
        "turn",
        lambda row: f"is seat {s.turn[row]}, but seat {to_act[row]} plays next to trick {t_no[row]}",
    )
    if problem is not None:
        return problem
    led_now = np.where(playing & (k_played > 0), suit[rows, t_cur, np.where(playing, s.leader, 0)], -1)
    return _first(
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
    problem = _first(
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
    problem = _first(
        revoked.any(axis=1),
        "trick_cards",
        lambda row: (
            f"trick {t}: seat {seat[row]} played {_card(cards_t[row, seat[row]])} without following "
            f"{cards.SUIT_NAMES[led[row]]}, holding {_cards_text(int(hand_t[row, seat[row]] & follow[row, 0]))}"
        ),
    )
    if problem is not None:
        return problem, lead
    finished = reached & (t < t_no)
    strength = cards.STRENGTH[s.trump.astype(np.intp)[:, None], np.maximum(led, 0)[:, None], cards_t + 1]
    winner = np.argmax(strength, axis=1)
    want = np.where(finished, winner, -1)
    problem = _first(
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
    card_bits = _bits(s.trick_cards)  # (B, T, P)
    played_by = np.bitwise_or.reduce(card_bits, axis=1)
    trick_bits = np.bitwise_or.reduce(card_bits, axis=2)
    won = (s.trick_winner[:, :, None] == np.arange(p)).sum(axis=1)
    checks = [
        (
            (s.played_by != played_by).any(axis=1),
            "played_by",
            lambda row: (
                f"is {[_cards_text(int(x)) for x in s.played_by[row]]}, but trick_cards say "
                f"{[_cards_text(int(x)) for x in played_by[row]]}"
            ),
        ),
        (
            (s.trick_bits != trick_bits).any(axis=1),
            "trick_bits",
            lambda row: (
                f"is {[_cards_text(int(x)) for x in s.trick_bits[row]]}, but trick_cards say "
                f"{[_cards_text(int(x)) for x in trick_bits[row]]}"
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
                    f"is {s.revealed[row]}, but the called card {_card(s.called[row])} was "
                    + (f"played in trick {revealed[row]}" if revealed[row] >= 0 else "not played")
                ),
            )
        )
    for bad, field, detail in checks:
        problem = _first(bad, field, detail)
        if problem is not None:
            return problem
    return None


def check_scores(s: State, game: Game) -> Problem | None:
    """Scores, the record of the last hand, a finished table's record, winners and the game's settings."""
    r, p = game.rules, game.rules.num_players
    done = s.phase == _DONE
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
                f"{_card(s.last_called[row])})"
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
                    f"is {_card(s.last_called[row])} with last_alone {s.last_alone[row]}: the maker "
                    "calls a card or goes alone"
                ),
            )
        )
    for bad, field, detail in checks:
        problem = _first(bad, field, detail)
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
    problem = _first(
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
        problem = _first(
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
                f"is {s.winners[row]:0{p}b} (seat bits) in phase {_phase(s, row)} with scores "
                f"{s.scores[row].tolist()}: the winners are the seats with the top score of a finished game"
            ),
        ),
        (
            s.hand_over
            & ~done
            & ((s.phase != _BID_UPCARD) | (s.turn != (s.dealer + 1) % p) | (s.hand_no == 0)),
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
        problem = _first(bad, field, detail)
        if problem is not None:
            return problem
    return None


def check_masks(s: State, game: Game) -> Problem | None:
    """``mask_base``/``mask_bits`` are the legal sets the rules give (either stick setting when unknown)."""
    r = game.rules
    base, bits = masks.compute_legal_bits(s, r)
    ok = (s.mask_base == base) & (s.mask_bits == bits)
    if not game.exact and not r.called_card:  # stick the dealer unknown: the dealer may or may not pass
        other = make_rules(r.variant, stick_the_dealer=not r.stick_the_dealer)
        base2, bits2 = masks.compute_legal_bits(s, other)
        ok |= (s.mask_base == base2) & (s.mask_bits == bits2)
    problem = _first(
        ~ok,
        "mask_bits",
        lambda row: (
            f"is {int(s.mask_bits[row]):#x} with mask_base {s.mask_base[row]}, but the legal set of "
            f"seat {s.turn[row]} in phase {_phase(s, row)} is {int(bits[row]):#x} from {base[row]}"
        ),
    )
    if problem is not None and s.mask_base[problem.row] != base[problem.row]:
        problem = replace(problem, field="mask_base")
    return problem


_GROUPS: tuple[Callable[[State, Game], Problem | None], ...] = (
    check_ranges,
    check_cards,
    check_phase,
    check_hands,
    check_tricks,
    check_records,
    check_scores,
    check_masks,
)
