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
  from its tricks), a finished table's record, winners, the game's settings,
  and the hand number: at most the hands the scores allow (every hand played
  scores at least 1 point; ``scores.max_hand_no``) and below int16's maximum,
  so the next hand's number cannot wrap.
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

from euchre_env.rules import RulesConfig
from euchre_env.state import State
from euchre_env.validation.common import MAX_SCORE, Game, Problem, game_of
from euchre_env.validation.phase import check_hands, check_phase
from euchre_env.validation.scores import check_masks, check_scores
from euchre_env.validation.tricks import check_records, check_tricks
from euchre_env.validation.values import check_cards, check_ranges, check_schema

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
