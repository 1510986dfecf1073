"""Loading a state checks it: ``State.from_json`` / ``from_dict`` and ``validation.validate_state``.

* Valid states from seeded random play (every preset, hand and game episodes,
  thousands of tables at every stage) round-trip and load.
* One tampered field of one table, at several phases of both games, is a
  ``ValueError`` naming that table and field (one test case per invariant).
* A batch with one bad table never changes another table: the engine refuses
  it before anything moves, and ``from_json`` refuses to load it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import fields

import numpy as np
import pytest

from euchre_env import actions as act
from euchre_env import cards
from euchre_env import engine as E
from euchre_env.actions import Phase
from euchre_env.engine.tables import NEXT_ACTIVE
from euchre_env.rules import PRESETS, RulesConfig, make_rules
from euchre_env.state import State
from euchre_env.validation import check_schema, find_problem, validate_state

PLAY, DONE = int(Phase.PLAY), int(Phase.DONE)
# The pools' games: four-handed with lone defence (reaches DEFEND), five-handed; games to 5.
POOL_RULES = {
    "four": make_rules("four_handed_defend_alone", episode="game", points_to_win=5),
    "five": make_rules("five_handed", episode="game", points_to_win=5),
}


def random_actions(s: State, rules: RulesConfig, rng: np.random.Generator, pass_rate: float) -> np.ndarray:
    """Uniform legal actions from the legal sets, passing with probability ``pass_rate`` when a pass is legal."""
    a = E.sample_legal(s, rules, rng)
    may_pass = E.legal_action_mask(s, rules)[:, act.PASS]
    return np.where(may_pass & (rng.random(s.batch_size) < pass_rate), act.PASS, a)


def snapshots(
    rules: RulesConfig, batch: int, steps: int, seed: int, every: int = 1, pass_rate: float = 0.6
) -> State:
    """The tables of ``batch`` seeded random games after every ``every``-th step, stacked (all stages)."""
    rng = np.random.default_rng(seed)
    s = E.init_state(rules, batch, rng=rng)
    kept = [s]
    for t in range(1, steps + 1):
        moving = rng.random(batch) < 0.8  # tables drift apart: every phase at once
        s = E.step(s, random_actions(s, rules, rng, pass_rate), rules, active=moving)
        if t % every == 0:
            kept.append(s)
    return State.concatenate(kept)


@pytest.fixture(scope="module")
def pool() -> dict[str, State]:
    """Valid states of both games at every stage (bidding, discards, calls, lone defence, play, over)."""
    return {key: snapshots(rules, 48, 150, seed=11, every=3) for key, rules in POOL_RULES.items()}


def test_the_pools_reach_every_phase_and_declaration(pool: dict[str, State]) -> None:
    """The tamper tests below have tables of every kind to tamper with."""
    for key, s in pool.items():
        phases = set(np.unique(s.phase).tolist())
        want = {0, 1, 2, 3, 6, 7} if key == "five" else {0, 1, 2, 4, 5, 6, 7}
        assert want <= phases, f"{key}: phases reached {sorted(phases)}"
        assert (s.alone & (s.phase == PLAY)).any() and (s.n_played > 0).any() and s.hand_over.any()
    assert (pool["four"].defender_alone >= 0).any(), "no lone defender in the four-handed pool"
    assert ((pool["five"].called >= 0) & (pool["five"].partner < 0)).any(), "no called card in the kitty"
    assert (pool["five"].revealed >= 0).any()


# --- valid states load --------------------------------------------------------


@pytest.mark.parametrize("episode", ["hand", "game"])
@pytest.mark.parametrize("name", sorted(PRESETS))
def test_thousands_of_valid_states_round_trip(name: str, episode: str) -> None:
    """Every state of seeded random play loads again, equal, with exact rules, the variant name or none."""
    rules = make_rules(name, episode=episode, points_to_win=4)
    states = snapshots(rules, 40, 120, seed=sorted(PRESETS).index(name) * 2 + (episode == "game"), every=4)
    assert states.batch_size >= 1000
    text = states.to_json()
    for given in (rules, rules.variant, name, None):
        restored = State.from_json(text, given)
        assert restored == states, f"from_json(to_json()) differs (rules={given!r})"
    assert State.from_dict(json.loads(text), rules) == states


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_states_from_every_engine_entry_point_are_valid(variant: str) -> None:
    """init_state with given deals and scores, reset_rows mid-game and play_out_random give valid states."""
    rules = make_rules(variant, episode="game", points_to_win=7)
    rng = np.random.default_rng(2)
    p = rules.num_players
    deck = [cards.name(c) for c in rules.deck]
    deal = {
        "dealer": 1,
        "hands": [deck[5 * i : 5 * i + 5] for i in range(p)],
        "upcard": deck[5 * p],
        "kitty": deck[5 * p + 1 :],
        "scores": [3, 2, 3, 2] if p == 4 else [1, 2, 3, 4, 5],
    }
    s = E.init_state(rules, 30, rng=rng, deals={4: deal})
    validate_state(s, rules)
    for _ in range(25):
        s = E.step(s, random_actions(s, rules, rng, 0.3), rules)
        validate_state(s, rules)
    E.reset_rows(s, np.arange(0, 30, 3), rng.integers(0, 2**63, 10).astype(np.uint64), rules)
    validate_state(s, rules)
    while not ((s.phase == PLAY) & (s.n_played == 0)).any():
        s = E.step(s, random_actions(s, rules, rng, 0.3), rules)
    rows = np.flatnonzero((s.phase == PLAY) & (s.n_played == 0))
    E.play_out_random(s, rows, rng.integers(0, 2**63, rows.size).astype(np.uint64), rules)
    validate_state(s, rules)


def test_thrown_in_hands_need_a_game_without_stick_the_dealer() -> None:
    """A hand thrown in (no maker) is valid without stick the dealer, and refused with it."""
    rules = make_rules("four_handed_no_stick")
    s = snapshots(rules, 200, 30, seed=5, every=30, pass_rate=0.9)
    thrown = np.flatnonzero((s.phase == DONE) & (s.maker < 0))
    assert thrown.size, "no hand thrown in"
    validate_state(s, rules)
    validate_state(s)  # settings unknown: accepted
    with pytest.raises(ValueError, match=rf"table {thrown[0]}: maker is -1 in a finished hand"):
        validate_state(s, make_rules("four_handed"))


# --- the hand number ------------------------------------------------------------


def _with_hand_no(rules: RulesConfig, scores: list[int], hand_no: int) -> State:
    """A freshly dealt table of a game with these running ``scores`` and ``hand_no``, as JSON would bring it."""
    s = E.init_state(rules, 1, rng=np.random.default_rng(0))
    s.scores[0], s.hand_no[0] = scores, hand_no
    return s


def test_hand_no_is_bounded_by_the_five_handed_scores() -> None:
    """Every five-handed hand scores at least 1 point for some player (a maker's 3 or 4 tricks alone: 1
    point, nobody else anything), so after ``hand_no`` hands the scores add up to at least ``hand_no``. A
    hand number the scores cannot reach, such as 32767 with scores [3, 0, 0, 1, 2] (which the engine would
    wrap to -32768 a hand later), is refused naming hand_no, the bound and the scores, with the rules known
    or not; the sum itself is reachable (six 1-point hands) and loads."""
    rules = make_rules("five_handed", episode="game")
    text = _with_hand_no(rules, [3, 0, 0, 1, 2], 32767).to_json()
    for given in (rules, "five_handed", None):
        with pytest.raises(
            ValueError,
            match=r"^invalid state: table 0: hand_no is 32767, but the scores \[3, 0, 0, 1, 2\] allow at most 6 ",
        ):
            State.from_json(text, given)
    assert State.from_json(_with_hand_no(rules, [3, 0, 0, 1, 2], 6).to_json(), rules).hand_no[0] == 6
    with pytest.raises(ValueError, match=r"hand_no is 7, but the scores \[3, 0, 0, 1, 2\] allow at most 6"):
        State.from_json(_with_hand_no(rules, [3, 0, 0, 1, 2], 7).to_json(), rules)


def test_hand_no_is_bounded_by_the_four_handed_sides_scores() -> None:
    """Four-handed, a hand gives its points to one side and both partners record them, so the hands are
    at most the two sides' scores added (seats 0 and 1), not the four seats' sum. A thrown-in hand scores
    nothing, so without stick the dealer (or with the settings unknown) the scores bound nothing."""
    rules = make_rules("four_handed", episode="game")
    assert State.from_json(_with_hand_no(rules, [3, 2, 3, 2], 5).to_json(), rules).hand_no[0] == 5
    text = _with_hand_no(rules, [3, 2, 3, 2], 6).to_json()
    with pytest.raises(
        ValueError, match=r"table 0: hand_no is 6, but the scores \[3, 2, 3, 2\] allow at most 5 "
    ):
        State.from_json(text, rules)
    for given in (make_rules("four_handed_no_stick", episode="game"), "four_handed", None):
        assert State.from_json(text, given).hand_no[0] == 6


def test_a_finished_game_counts_its_last_hand(pool: dict[str, State]) -> None:
    """A finished game's scores include its last hand, which ``hand_no`` does not count: one hand less."""
    rules, s = POOL_RULES["five"], pool["five"]
    over = np.flatnonzero(s.winners != 0)
    assert over.size
    t = s.take(over[:1])
    most = int(t.scores.astype(int).sum()) - 1
    t.hand_no[0] = most
    validate_state(t, rules)
    t.hand_no[0] = most + 1
    with pytest.raises(ValueError, match=rf"hand_no is {most + 1}, .* allow at most {most} .*last hand"):
        validate_state(t, rules)


@pytest.mark.parametrize(
    "rules", [make_rules("four_handed_no_stick", episode="game"), None], ids=["no_stick", "unknown"]
)
def test_a_hand_no_that_would_overflow_on_the_next_hand_is_refused(rules: RulesConfig | None) -> None:
    """Without a bound from the scores (thrown-in hands score nothing), hand_no still stops below int16's
    maximum: 32767 would wrap to -32768 when the next hand is dealt."""
    game = make_rules("four_handed_no_stick", episode="game")
    assert State.from_json(_with_hand_no(game, [0, 0, 0, 0], 32766).to_json(), rules).hand_no[0] == 32766
    with pytest.raises(
        ValueError,
        match=r"table 0: hand_no is 32767, more than 32766: the next hand's number would overflow int16",
    ):
        State.from_json(_with_hand_no(game, [0, 0, 0, 0], 32767).to_json(), rules)


# --- one tampered field is named ------------------------------------------------

Pick = Callable[[State], np.ndarray]  # which tables of a pool to tamper: (B,) bool
Tamper = Callable[[State, int], None]  # change table ``row`` of the state in place


def _taken(s: State) -> np.ndarray:
    return (s.maker >= 0) & (s.bid_round == 1)


def _phase(*phases: Phase) -> Pick:
    return lambda s: np.isin(s.phase, [int(p) for p in phases])


def _live(s: State) -> np.ndarray:
    return s.phase != DONE


def _any(s: State) -> np.ndarray:
    return np.ones(s.batch_size, bool)


def _card_of(mask: int, k: int = 0) -> int:
    return cards.cards_of(int(mask))[k]


def _low(mask: int) -> int:
    """The bit of the lowest card of ``mask``."""
    return 1 << _card_of(mask)


def _dealer_sheds_a_card(s: State, row: int) -> None:
    """The dealer's lowest card other than the upcard goes back to the kitty."""
    d = s.dealer[row]
    bit = _low(s.hands[row, d] & ~cards.CARD_BIT[s.upcard[row]])
    s.hands[row, d] &= ~np.uint32(bit)
    s.kitty[row] |= np.uint32(bit)


def _move_card(s: State, row: int, src: int, dst: int) -> None:
    """Move one card from seat ``src``'s hand to seat ``dst``'s."""
    c = _card_of(s.hands[row, src])
    s.hands[row, src] &= ~cards.CARD_BIT[c]
    s.hands[row, dst] |= cards.CARD_BIT[c]


def _other_active(s: State, row: int, seat: int) -> int:
    """An active seat other than ``seat`` at table ``row``."""
    p = s.num_players
    return int(NEXT_ACTIVE[p][int(s.out[row]), seat])


def _revoke(s: State, row: int) -> None:
    """In trick 0 a follower swaps the card that followed suit for an off-suit card still in its hand."""
    seat, hand_card = _revoke_candidate(s, row)
    played = int(s.trick_cards[row, 0, seat])
    s.trick_cards[row, 0, seat] = hand_card
    s.hands[row, seat] = (s.hands[row, seat] & ~cards.CARD_BIT[hand_card]) | cards.CARD_BIT[played]


def _revoke_candidate(s: State, row: int) -> tuple[int, int] | None:
    """(seat, card in hand) for ``_revoke``: a follower of trick 0 who followed and holds an off-suit card."""
    if s.phase[row] != PLAY or s.trick_no[row] < 1:
        return None
    trump, p = int(s.trump[row]), s.num_players
    leader = int(NEXT_ACTIVE[p][int(s.out[row]), int(s.dealer[row])])
    led = cards.EFFECTIVE_SUIT[trump, s.trick_cards[row, 0, leader]]
    for seat in range(p):
        c = int(s.trick_cards[row, 0, seat])
        if seat == leader or c < 0 or cards.EFFECTIVE_SUIT[trump, c] != led:
            continue
        off = [h for h in cards.cards_of(int(s.hands[row, seat])) if cards.EFFECTIVE_SUIT[trump, h] != led]
        if off:
            return seat, off[0]
    return None


def _can_revoke(s: State) -> np.ndarray:
    return np.array([_revoke_candidate(s, r) is not None for r in range(s.batch_size)])


def _set(field: str, value: int | bool) -> Tamper:
    def tamper(s: State, row: int) -> None:
        getattr(s, field)[row] = value

    return tamper


def _swap_last_tricks(s: State, row: int) -> None:
    """Move a trick between partners (seats 0 and 2): the same points, another record."""
    t = s.last_tricks[row]
    t[0], t[2] = t[2], t[0]


CASES: list[tuple[str, str, Pick, Tamper, str]] = [
    # (case id, pool, tables to pick from, tamper, field named in the message)
    # value ranges
    ("phase_out_of_range", "four", _any, _set("phase", 9), "phase"),
    ("phase_of_the_other_game", "four", _live, _set("phase", int(Phase.CALL)), "phase"),
    ("declare_in_five_handed", "five", _live, _set("phase", int(Phase.DECLARE)), "phase"),
    ("turn_not_a_seat", "four", _live, _set("turn", 4), "turn"),
    ("dealer_not_a_seat", "five", _any, _set("dealer", 5), "dealer"),
    ("trump_out_of_range", "four", _any, _set("trump", -2), "trump"),
    ("bid_round_0", "four", _any, _set("bid_round", 0), "bid_round"),
    ("an_8_as_four_handed_upcard", "four", _any, _set("upcard", 0), "upcard"),
    ("no_upcard", "five", _any, _set("upcard", -1), "upcard"),
    ("an_8_in_a_four_handed_hand", "four", _phase(Phase.BID_UPCARD), lambda s, r: s.hands[r].__ior__(1), "hands"),
    ("an_8_in_the_kitty", "four", _any, lambda s, r: s.kitty.__setitem__(r, s.kitty[r] | 1 << 7), "kitty"),
    ("card_id_28", "five", lambda s: s.n_played > 0, lambda s, r: s.trick_cards[r, 0].fill(28), "trick_cards"),
    ("sitting_out_in_five_handed", "five", _any, _set("out", 1), "out"),
    ("called_card_four_handed", "four", _any, _set("called", 5), "called"),
    ("partner_four_handed", "four", _any, _set("partner", 0), "partner"),
    ("lone_defender_five_handed", "five", _any, _set("defender_alone", 0), "defender_alone"),
    ("negative_scores", "four", _any, lambda s, r: s.scores[r].fill(-1), "scores"),
    ("winner_not_a_seat", "four", _any, _set("winners", 16), "winners"),
    ("negative_hand_no", "four", _any, _set("hand_no", -1), "hand_no"),
    ("hand_no_beyond_the_scores", "five", _any, _set("hand_no", 32767), "hand_no"),
    ("hand_no_about_to_overflow", "four", _any, _set("hand_no", 32767), "hand_no"),
    ("n_played_too_many", "five", _phase(Phase.PLAY), _set("n_played", 5), "n_played"),
    ("led_not_a_suit", "four", _any, _set("led", 4), "led"),
    ("negative_points", "five", _any, lambda s, r: s.last_points[r].fill(-1), "last_points"),
    # every card in exactly one place
    ("card_in_two_hands", "four", _phase(Phase.BID_UPCARD), lambda s, r: s.hands[r].__setitem__(1, s.hands[r, 1] | _low(s.hands[r, 0])), "hands"),
    ("kitty_holds_a_hand_card", "five", _phase(Phase.BID_SUIT), lambda s, r: s.kitty.__setitem__(r, s.kitty[r] | s.hands[r, 2]), "kitty"),
    ("discard_is_in_a_hand", "four", lambda s: (s.discard >= 0) & (s.phase == PLAY), lambda s, r: s.discard.__setitem__(r, _card_of(s.hands[r, s.dealer[r]])), "discard"),
    ("card_missing", "four", _any, lambda s, r: s.kitty.__setitem__(r, s.kitty[r] & (s.kitty[r] - 1)), "cards missing"),
    ("trick_card_still_in_hand", "five", lambda s: (s.phase == PLAY) & (s.trick_no >= 1), lambda s, r: s.trick_cards[r, 0].__setitem__(0, _card_of(s.hands[r, 1])), "trick_cards"),
    # what the phase fixes
    ("trump_while_bidding", "four", _phase(Phase.BID_UPCARD), lambda s, r: s.trump.__setitem__(r, cards.CARD_SUIT[s.upcard[r]]), "trump"),
    ("maker_while_bidding", "four", _phase(Phase.BID_SUIT), lambda s, r: s.maker.__setitem__(r, s.turn[r]), "maker"),
    ("round_2_in_round_1", "five", _phase(Phase.BID_UPCARD), _set("bid_round", 2), "bid_round"),
    ("not_the_dealer_discards", "four", _phase(Phase.DISCARD), lambda s, r: s.turn.__setitem__(r, (s.dealer[r] + 1) % 4), "turn"),
    ("not_the_maker_calls", "five", _phase(Phase.CALL), lambda s, r: s.turn.__setitem__(r, (s.maker[r] + 1) % 5), "turn"),
    ("a_finished_table_to_act", "four", _phase(Phase.DONE), _set("turn", 0), "turn"),
    ("trump_not_the_upcard_s_suit", "four", lambda s: _taken(s) & (s.phase == PLAY), lambda s, r: s.trump.__setitem__(r, (s.trump[r] + 1) % 4), "trump"),
    ("round_2_names_the_upcard_s_suit", "four", lambda s: (s.bid_round == 2) & (s.phase == PLAY), lambda s, r: s.trump.__setitem__(r, cards.CARD_SUIT[s.upcard[r]]), "trump"),
    ("upcard_is_a_hand_card", "four", _phase(Phase.BID_UPCARD), lambda s, r: s.upcard.__setitem__(r, _card_of(s.hands[r, 0])), "upcard"),
    ("discard_without_an_order_up", "four", _phase(Phase.BID_SUIT), lambda s, r: (s.discard.__setitem__(r, _card_of(s.kitty[r] & ~cards.CARD_BIT[s.upcard[r]])), s.kitty.__setitem__(r, s.kitty[r] & ~cards.CARD_BIT[s.discard[r]])), "discard"),
    ("alone_while_bidding", "four", _phase(Phase.BID_UPCARD), _set("alone", True), "alone"),
    ("called_while_bidding", "five", _phase(Phase.BID_SUIT), _set("called", 6), "called"),
    ("called_own_card", "five", lambda s: (s.phase == PLAY) & (s.called >= 0), lambda s, r: s.called.__setitem__(r, _card_of(s.hands[r, s.maker[r]] | s.played_by[r, s.maker[r]])), "called"),
    ("wrong_partner", "five", lambda s: (s.phase == PLAY) & (s.partner >= 0), lambda s, r: s.partner.__setitem__(r, -1), "partner"),
    ("partner_sits_out_without_alone", "four", lambda s: (s.phase == PLAY) & ~s.alone, lambda s, r: s.out.__setitem__(r, 1 << ((s.maker[r] + 2) % 4)), "out"),
    ("lone_defender_without_a_lone_maker", "four", lambda s: (s.phase == PLAY) & ~s.alone, lambda s, r: s.defender_alone.__setitem__(r, (s.maker[r] + 1) % 4), "defender_alone"),
    # hand sizes
    ("six_cards_in_a_hand", "four", _phase(Phase.BID_UPCARD), lambda s, r: _move_card(s, r, 0, 1), "hands"),
    ("five_cards_while_discarding", "five", _phase(Phase.DISCARD), _dealer_sheds_a_card, "hands"),
    # the tricks
    ("trick_5_in_play", "four", _phase(Phase.PLAY), _set("trick_no", 5), "trick_no"),
    ("wrong_leader", "five", lambda s: (s.phase == PLAY) & (s.n_played > 0), lambda s, r: s.leader.__setitem__(r, (s.leader[r] + 1) % 5), "leader"),
    ("n_played_off_by_one", "four", lambda s: (s.phase == PLAY) & (s.n_played == 1), _set("n_played", 2), "n_played"),
    ("wrong_led_suit", "five", lambda s: (s.phase == PLAY) & (s.n_played > 0), lambda s, r: s.led.__setitem__(r, (s.led[r] + 1) % 4), "led"),
    ("wrong_trick_winner", "four", lambda s: (s.phase == PLAY) & (s.trick_no >= 1), lambda s, r: s.trick_winner[r].__setitem__(0, _other_active(s, r, s.trick_winner[r, 0])), "trick_winner"),
    ("wrong_seat_to_play", "five", _phase(Phase.PLAY), lambda s, r: s.turn.__setitem__(r, (s.turn[r] + 1) % 5), "turn"),
    ("not_following_suit_four", "four", _can_revoke, _revoke, "trick_cards"),
    ("not_following_suit_five", "five", _can_revoke, _revoke, "trick_cards"),
    ("leader_while_bidding", "four", _phase(Phase.BID_UPCARD), _set("leader", 0), "leader"),
    # records derived from the tricks
    ("played_by", "five", lambda s: (s.phase == PLAY) & (s.trick_no >= 1), lambda s, r: s.played_by[r].__setitem__(0, 0), "played_by"),
    ("trick_bits", "four", lambda s: (s.phase == PLAY) & (s.trick_no >= 1), lambda s, r: s.trick_bits[r].__setitem__(0, 0), "trick_bits"),
    ("tricks_won", "four", lambda s: (s.phase == PLAY) & (s.trick_no >= 1), lambda s, r: (s.tricks_won[r].__setitem__(s.trick_winner[r, 0], s.tricks_won[r, s.trick_winner[r, 0]] - 1), s.tricks_won[r].__setitem__((s.trick_winner[r, 0] + 1) % 4, s.tricks_won[r, (s.trick_winner[r, 0] + 1) % 4] + 1)), "tricks_won"),
    ("revealed", "five", lambda s: s.revealed >= 0, _set("revealed", -1), "revealed"),
    # scores and the record of the last hand
    ("partners_scores_differ", "four", _any, lambda s, r: s.scores[r].__setitem__(0, s.scores[r, 0] + 1), "scores"),
    ("last_points_do_not_follow", "four", lambda s: (s.phase == DONE), lambda s, r: s.last_points[r].fill(0), "last_points"),
    ("finished_hand_record_called", "five", lambda s: (s.phase == DONE) & (s.called >= 0), lambda s, r: s.last_called.__setitem__(r, _card_of(cards.ALL_CARDS_28 & ~cards.CARD_BIT[s.called[r]])), "last_called"),
    ("finished_hand_record_tricks", "four", lambda s: (s.phase == DONE) & (s.last_tricks[:, 0] != s.last_tricks[:, 2]), _swap_last_tricks, "last_tricks"),
    ("winners_mid_game", "four", _live, _set("winners", 1), "winners"),
    ("hand_over_mid_hand", "five", _phase(Phase.PLAY), _set("hand_over", True), "hand_over"),
    # the legal sets
    ("mask_bits", "four", _phase(Phase.PLAY), lambda s, r: s.mask_bits.__setitem__(r, s.mask_bits[r] ^ np.uint64(1 << 40)), "mask_bits"),
    ("mask_base", "five", _phase(Phase.BID_SUIT), lambda s, r: s.mask_base.__setitem__(r, s.mask_base[r] + 1), "mask_base"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("pool_key", "pick", "tamper", "field"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_a_tampered_field_is_named_with_its_table(
    pool: dict[str, State], pool_key: str, pick: Pick, tamper: Tamper, field: str
) -> None:
    """Table 1 of three valid tables, tampered in one field: from_json raises naming table 1 and the field."""
    s, rules = pool[pool_key], POOL_RULES[pool_key]
    candidates = np.flatnonzero(pick(s))
    assert candidates.size, "no table in the pool to tamper with"
    row = int(candidates[len(candidates) // 2])
    batch = s.take([0 if row else 1, row, 2 if row != 2 else 3])
    validate_state(batch, rules)
    tamper(batch, 1)
    text = batch.to_json()
    for given in (rules, None):
        with pytest.raises(ValueError, match=rf"^invalid state: table 1: {field}\b"):
            State.from_json(text, given)


def test_settings_only_a_rules_config_fixes(pool: dict[str, State]) -> None:
    """A RulesConfig checks the table settings; a variant name or None does not."""
    hand = make_rules("four_handed")
    s = snapshots(hand, 8, 6, seed=1, every=6).take([8, 9])
    s.hand_no[1] = 3  # only a game deals more than one hand
    validate_state(s, "four_handed")
    validate_state(s)
    with pytest.raises(ValueError, match=r"table 1: hand_no is 3, but an episode is one hand"):
        validate_state(s, hand)
    defend_rules = make_rules("four_handed_defend_alone")
    s = snapshots(defend_rules, 200, 12, seed=3, every=12)
    validate_state(s, defend_rules)
    for phase, field in ((Phase.DEFEND, "phase is DEFEND, not a phase"), (Phase.PLAY, "defender_alone")):
        rows = np.flatnonzero((s.phase == int(phase)) & ((s.defender_alone >= 0) | (phase == Phase.DEFEND)))
        assert rows.size
        with pytest.raises(ValueError, match=rf"table 0: {field}"):
            validate_state(s.take(rows[:1]), make_rules("four_handed"))
    no_stick = make_rules("four_handed_no_stick")
    s = snapshots(no_stick, 300, 10, seed=4, every=10)
    dealer_may_pass = np.flatnonzero(
        (s.phase == int(Phase.BID_SUIT)) & (s.turn == s.dealer) & ((s.mask_bits & np.uint64(1)) == 1)
    )
    assert dealer_may_pass.size
    validate_state(s, no_stick)
    validate_state(s)
    with pytest.raises(ValueError, match=r"table 0: mask_bits"):
        validate_state(s.take(dealer_may_pass[:1]), make_rules("four_handed"))
    # a game's end: the scores reach the target exactly when the game is over
    game, s = POOL_RULES["five"], pool["five"]
    over, live = np.flatnonzero(s.winners != 0), np.flatnonzero(s.phase == PLAY)
    assert over.size and live.size
    validate_state(s, game)
    odd = s.take([over[0], live[0]])
    odd.winners[0] = 0
    odd.scores[1] = game.points_to_win
    validate_state(odd)  # without the settings: a finished hand and a live one, scores unknown
    for row in (0, 1):
        with pytest.raises(ValueError, match=r"table 0: scores"):
            validate_state(odd.take([row]), game)


def test_a_state_of_the_other_game_or_unknown_rules_are_refused() -> None:
    s = E.init_state(PRESETS["five_handed"], 2, rng=np.random.default_rng(0))
    text = s.to_json()
    for rules in (PRESETS["four_handed"], "four_handed"):
        with pytest.raises(ValueError, match="5 seats per table but four_handed has 4"):
            State.from_json(text, rules)
    for rules in ("five", 5, object()):
        with pytest.raises(ValueError, match="rules must be a RulesConfig"):
            State.from_json(text, rules)  # type: ignore[arg-type]
    assert State.from_json(text, "five_handed") == s


def test_validate_state_checks_the_arrays_of_a_state_in_memory() -> None:
    """validate_state on a State object: dtypes, shapes and P are checked before any value."""
    rules = PRESETS["four_handed"]
    s = E.init_state(rules, 3, rng=np.random.default_rng(0))
    odd = s.copy()
    odd.turn = odd.turn.astype(np.int64)
    with pytest.raises(ValueError, match=r"invalid state: turn must have dtype int8, got int64"):
        validate_state(odd, rules)
    odd = s.copy()
    odd.scores = odd.scores[:2]
    with pytest.raises(ValueError, match=r"scores has shape \(2, 4\), but B is 3"):
        validate_state(odd, rules)
    odd = s.copy()
    odd.hands = np.zeros((3, 3), np.uint32)
    assert "hands has 3 seats" in str(check_schema(odd))
    with pytest.raises(ValueError, match="expected a State"):
        validate_state(s.to_dict(), rules)  # type: ignore[arg-type]
    assert find_problem(s, rules) is None


# --- the saved format -----------------------------------------------------------


def _saved() -> dict:
    s = snapshots(PRESETS["four_handed"], 2, 9, seed=8, every=9).take([2, 3])
    return s.to_dict()


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("format"), "format must be 'euchre_env.state/1', got None"),
        (lambda d: d.__setitem__("extra", 1), r"unknown key\(s\) \['extra'\]"),
        (lambda d: d["fields"].pop("turn"), r"missing \['turn'\]"),
        (lambda d: d["fields"].__setitem__("colour", {}), r"unknown \['colour'\]"),
        (lambda d: d["fields"]["turn"].__setitem__("dtype", "int64"), "field 'turn': dtype must be 'int8'"),
        (lambda d: d["fields"]["turn"].pop("data"), "field 'turn' must be a dict with keys"),
        (lambda d: d["fields"]["turn"].__setitem__("shape", [3]), "field 'turn': shape .* disagrees on the batch size"),
        (lambda d: d["fields"]["hands"].__setitem__("shape", [2, 3]), "field 'hands': shape .* has 3 seats"),
        (lambda d: d["fields"]["trick_cards"]["data"][1].pop(), "field 'trick_cards': data must be nested lists"),
        (lambda d: d["fields"]["turn"]["data"].__setitem__(0, 1.0), r"field 'turn': data must hold integers, got 1.0"),
        (lambda d: d["fields"]["turn"]["data"].__setitem__(0, True), "field 'turn': data must hold integers"),
        (lambda d: d["fields"]["turn"]["data"].__setitem__(0, "1"), "field 'turn': data must hold integers"),
        (lambda d: d["fields"]["turn"]["data"].__setitem__(0, 300), "field 'turn': 300 is out of range for int8"),
        (lambda d: d["fields"]["alone"]["data"].__setitem__(0, 0), "field 'alone': data must hold true/false"),
        (lambda d: d["fields"]["seed"]["data"].__setitem__(0, "-5"), "field 'seed': data must hold integers in 0..2\\*\\*64-1"),
        (lambda d: d["fields"]["seed"]["data"].__setitem__(0, str(2**64)), "field 'seed': data must hold integers"),
        (lambda d: d["fields"]["hands"]["data"][0].__setitem__(1, float("nan")), "field 'hands': data must hold integers, got nan"),
    ],
)  # fmt: skip
def test_the_format_is_checked_field_by_field(mutate: Callable[[dict], object], message: str) -> None:
    d = _saved()
    assert State.from_dict(json.loads(json.dumps(d))) is not None
    mutate(d)
    with pytest.raises(ValueError, match=message):
        State.from_dict(d)


def test_from_json_needs_json_text() -> None:
    d = _saved()
    assert State.from_json(json.dumps(d).encode()) == State.from_dict(d)
    for bad, message in (
        (None, "needs the JSON text"),
        ("{", "not valid JSON"),
        ("[" * 100_000, "not valid JSON|nested"),
    ):
        with pytest.raises(ValueError, match=message):
            State.from_json(bad)  # type: ignore[arg-type]
    uint64_as_int = json.loads(json.dumps(d))
    uint64_as_int["fields"]["seed"]["data"] = [int(x) for x in uint64_as_int["fields"]["seed"]["data"]]
    assert State.from_dict(uint64_as_int) == State.from_dict(d)


# --- one bad table never changes another -----------------------------------------------


def _mid_play_batch(rules: RulesConfig, n: int, seed: int = 0) -> State:
    """``n`` tables, every one in card play (some with cards on the table)."""
    rng = np.random.default_rng(seed)
    s = E.init_state(rules, n, rng=rng)
    while not (s.phase == PLAY).all():
        s = E.step(s, random_actions(s, rules, rng, 0.0), rules, active=s.phase != PLAY)
    return s


def _bidding_batch(rules: RulesConfig, n: int, seed: int = 0) -> State:
    return E.init_state(rules, n, rng=np.random.default_rng(seed))


BAD_TABLES: list[tuple[str, Callable[[RulesConfig, int], State], str, Callable[[int], int]]] = [
    # (id, the batch, field set at table 1, value from P); each would index a neighbour's cards
    ("trick_no_5", _mid_play_batch, "trick_no", lambda p: 5),
    ("trick_no_minus_1", _mid_play_batch, "trick_no", lambda p: -1),
    ("turn_minus_1", _mid_play_batch, "turn", lambda p: -1),
    ("turn_P", _mid_play_batch, "turn", lambda p: p),
    ("dealer_P_orders_up", _bidding_batch, "dealer", lambda p: p),
    ("dealer_minus_1_orders_up", _bidding_batch, "dealer", lambda p: -1),
    ("phase_minus_1", _mid_play_batch, "phase", lambda p: -1),
]


@pytest.mark.parametrize("batch", [3, 40], ids=["small_batch", "large_batch"])
@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
@pytest.mark.parametrize(
    ("make", "field", "value"), [c[1:] for c in BAD_TABLES], ids=[c[0] for c in BAD_TABLES]
)
def test_a_bad_table_never_changes_another(
    variant: str,
    batch: int,
    make: Callable[[RulesConfig, int], State],
    field: str,
    value: Callable[[int], int],
) -> None:
    """Table 1 tampered so that the engine's flat indices (row * P + seat, row * T + trick) would reach a
    neighbour: step, step(inplace) and step_rows either leave every other table exactly as stepping it
    alone does, or refuse and change nothing; from_json refuses the state, naming table 1."""
    rules = PRESETS[variant]
    s = make(rules, batch)
    s.mask_base[1] = act.PLAY_BASE if field != "dealer" else act.PASS  # its legal set: any card / order up
    s.mask_bits[1] = np.uint64(rules.deck_mask) if field != "dealer" else np.uint64(0b10)
    getattr(s, field)[1] = value(rules.num_players)
    a = E.sample_legal(s, rules, np.random.default_rng(1))
    a[1] = act.ORDER_UP if field == "dealer" else _card_of(s.hands[1, 0] | s.hands[1, 1])
    others = np.array([i for i in range(batch) if i != 1])
    alone = E.step(s.take(others), a[others], rules)
    before = s.copy()
    for how in ("step", "inplace", "step_rows"):
        s = before.copy()
        try:
            if how == "step_rows":
                E.step_rows(s, np.arange(batch), a, rules)
                out = s
            else:
                out = E.step(s, a, rules, inplace=how == "inplace")
        except ValueError as err:
            assert "table 1 is corrupt" in str(err)
            assert s == before, f"{how}: a refused step changed the state"
        else:
            assert out.take(others) == alone, f"{how}: the bad table changed another table"
    with pytest.raises(ValueError, match=r"invalid state: table 1: "):
        State.from_json(before.to_json(), rules)


def test_the_engine_check_of_indices_sees_only_the_tables_that_move() -> None:
    """A finished (or inactive) table's indices are not used, so they do not stop a step."""
    rules = PRESETS["four_handed"]
    for n in (3, 40):
        s = _bidding_batch(rules, n, 2)
        s.dealer[1] = 9
        a = E.sample_legal(s, rules, np.random.default_rng(0))
        active = np.ones(n, bool)
        active[1] = False
        moved = E.step(s, a, rules, active=active)
        assert moved.take([1]) == s.take([1])
        with pytest.raises(ValueError, match=r"table 1 is corrupt: .* dealer 9"):
            E.step(s, a, rules)


def test_fields_cover_the_schema() -> None:
    """Every State field appears in the saved format and in the validator's schema."""
    d = _saved()
    assert list(d["fields"]) == [f.name for f in fields(State)]
