"""The vectorised engine against the slow reference oracle (tests/reference_engine.py).

Random batched playouts: at every step the seat to act and the set of legal
actions must match the oracle's, and at the end of each hand the points and
tricks per seat (and the trick winners) must match too.
"""

from __future__ import annotations

import numpy as np
import pytest
from reference_engine import (
    ReferenceHand,
    describe_hand,
    effective_suit,
    is_trump,
    plain_power,
    suit_of,
    trump_power,
)

from euchre_env import actions as act
from euchre_env import cards
from euchre_env.actions import NUM_ACTIONS
from euchre_env.engine import current_player, init_state, is_done, legal_action_mask, step
from euchre_env.rules import RulesConfig, make_rules
from euchre_env.state import State

HANDS_PER_PRESET = 2000
BIDDING_PHASES = ("round1", "round2")


def oracle_from_state(state: State, row: int, rules: RulesConfig) -> ReferenceHand:
    """A reference hand holding the cards the engine dealt at ``row``."""
    p = rules.num_players
    upcard = int(state.upcard[row])
    hands = [cards.cards_of(int(state.hands[row, s])) for s in range(p)]
    kitty = [c for c in cards.cards_of(int(state.kitty[row])) if c != upcard]
    return ReferenceHand(
        rules.variant,
        dealer=int(state.dealer[row]),
        hands=hands,
        upcard=upcard,
        kitty=kitty,
        stick_the_dealer=rules.stick_the_dealer,
        defend_alone=rules.defend_alone,
    )


def card_power(hand: ReferenceHand, card: int) -> int:
    """How strong a card is in the current trick (for the greedy players)."""
    if is_trump(card, hand.trump):
        return 100 + trump_power(card, hand.trump)
    if hand.trick and effective_suit(card, hand.trump) != effective_suit(hand.trick[0][1], hand.trump):
        return 0
    return plain_power(card)


def count_trumps(held: set[int], trump: int) -> int:
    """Cards of ``held`` that would be trumps (for the greedy bidders)."""
    return sum(is_trump(c, trump) for c in held)


def choose(hand: ReferenceHand, pass_bias: float, rng: np.random.Generator, greedy: bool = False) -> int:
    """A random legal action, biased so that rare paths (thrown in, solos, marches) occur often.

    With ``greedy`` the makers' side plays its strongest card and the defenders their weakest.
    """
    legal = sorted(hand.legal_actions())
    if greedy and hand.phase == "play":
        strong = hand.turn in hand.makers_side()
        return max(legal, key=lambda a: card_power(hand, a - act.PLAY_BASE) * (1 if strong else -1))
    if greedy and hand.phase in BIDDING_PHASES:
        held = set(hand.hands[hand.turn])
        if hand.phase == "round1":
            if hand.turn == hand.dealer:
                held.add(hand.upcard)
            return act.ORDER_UP if count_trumps(held, suit_of(hand.upcard)) >= 3 else act.PASS
        names = [a for a in legal if a != act.PASS]
        best = max(names, key=lambda a: count_trumps(held, a - act.NAME_SUIT_BASE))
        if count_trumps(held, best - act.NAME_SUIT_BASE) >= 3 or act.PASS not in legal:
            return best
        return act.PASS
    if hand.phase in BIDDING_PHASES and act.PASS in legal and rng.random() < pass_bias:
        return act.PASS
    if hand.phase == "call":
        u = rng.random()
        if u < 0.25:
            return act.ALONE
        if u < 0.5:
            held = set().union(*hand.hands)
            out_of_play = [a for a in legal if a != act.ALONE and a - act.CALL_BASE not in held]
            if out_of_play:  # the kitty, the turned-down upcard or the dealer's discard
                return int(out_of_play[rng.integers(len(out_of_play))])
    return int(legal[rng.integers(len(legal))])


def compare_step(state: State, hands: list[ReferenceHand], rules: RulesConfig, t: int) -> None:
    """Turn and legal actions of every table equal the oracle's."""
    mask = legal_action_mask(state, rules)
    turn = current_player(state)
    want_mask = np.zeros((len(hands), NUM_ACTIONS), dtype=bool)
    want_turn = np.array([h.to_act() for h in hands])
    for i, h in enumerate(hands):
        want_mask[i, sorted(h.legal_actions())] = True
    bad_turn = np.flatnonzero(turn != want_turn)
    assert bad_turn.size == 0, (
        f"[step {t}] table {bad_turn[0]}: engine says seat {turn[bad_turn[0]]} acts, "
        f"rules say {want_turn[bad_turn[0]]}; {describe_hand(hands[bad_turn[0]])}"
    )
    bad = np.flatnonzero((mask != want_mask).any(axis=1))
    if bad.size:
        i = int(bad[0])
        got = [act.describe(a) for a in np.flatnonzero(mask[i])]
        want = [act.describe(a) for a in np.flatnonzero(want_mask[i])]
        raise AssertionError(
            f"[step {t}] table {i}: legal actions differ ({bad.size} tables)\n"
            f"engine: {got}\nrules:  {want}\n{describe_hand(hands[i])}"
        )
    done = is_done(state)
    want_done = np.array([h.done for h in hands])
    assert np.array_equal(done, want_done), (
        f"[step {t}] is_done differs at tables {np.flatnonzero(done != want_done)}"
    )


def compare_result(state: State, hands: list[ReferenceHand], rows: np.ndarray, t: int) -> None:
    """Points, tricks and trick winners of the hands that just ended equal the oracle's."""
    for i in rows:
        h = hands[i]
        where = f"[step {t}] table {i} ({describe_hand(h)}, maker {h.maker}, partner {h.partner}, alone {h.alone})"
        assert state.hand_over[i], f"{where}: the hand is over by the rules but hand_over is False"
        assert state.last_points[i].tolist() == h.points, (
            f"{where}: points {state.last_points[i].tolist()}, rules say {h.points}"
        )
        assert state.last_tricks[i].tolist() == h.tricks_won, (
            f"{where}: tricks {state.last_tricks[i].tolist()}, rules say {h.tricks_won}"
        )
        if not is_done(state)[i]:
            continue  # a game deals on at once: the finished hand's tricks are gone
        winners = h.trick_winners + [-1] * (5 - len(h.trick_winners))
        assert state.trick_winner[i].tolist() == winners, (
            f"{where}: trick winners {state.trick_winner[i].tolist()}, rules say {winners}"
        )


def coverage(hands: list[ReferenceHand]) -> dict[str, int]:
    """How often the rare paths occurred (the test asserts they did)."""
    return {
        "thrown_in": sum(h.thrown_in for h in hands),
        "alone": sum(h.alone for h in hands),
        "round2": sum(h.maker is not None and not h.upcard_taken for h in hands),
        "called_out_of_play": sum(h.called is not None and h.partner is None for h in hands),
        "called_discard": sum(h.called is not None and h.called == h.discarded for h in hands),
        "lone_defender": sum(h.lone_defender is not None for h in hands),
        "euchred": sum(
            h.maker is not None and sum(h.tricks_won[s] for s in h.makers_side()) < 3 for h in hands
        ),
        "march": sum(
            h.maker is not None and sum(h.tricks_won[s] for s in h.makers_side()) == 5 for h in hands
        ),
        "lone_march": sum(h.alone and h.tricks_won[h.maker] == 5 for h in hands),
        "out_of_play_march": sum(
            h.called is not None and h.partner is None and h.tricks_won[h.maker] == 5 for h in hands
        ),
        "lone_euchred_by_lone_defender": sum(
            h.lone_defender is not None and h.maker is not None and h.tricks_won[h.maker] < 3 for h in hands
        ),
    }


def expected_paths(rules: RulesConfig) -> list[str]:
    """The rare paths a preset must reach in the random playouts."""
    paths = ["alone", "round2", "euchred", "march", "lone_march"]
    if rules.called_card:
        paths += ["called_out_of_play", "called_discard", "out_of_play_march"]
    if not rules.stick_the_dealer:
        paths.append("thrown_in")
    if rules.defend_alone:
        paths += ["lone_defender", "lone_euchred_by_lone_defender"]
    return paths


def test_engine_matches_reference_hands(rules: RulesConfig, rng: np.random.Generator) -> None:
    """Over 2,000 random hands per preset the engine follows the rules step by step."""
    state = init_state(rules, HANDS_PER_PRESET, rng=rng)
    hands = [oracle_from_state(state, i, rules) for i in range(state.batch_size)]
    bias = np.where(np.arange(state.batch_size) % 2 == 0, 0.0, 0.85)
    greedy = np.arange(state.batch_size) % 3 == 0
    t = 0
    while True:
        compare_step(state, hands, rules, t)
        if all(h.done for h in hands):
            break
        a = np.full(state.batch_size, -1, dtype=np.int64)
        for i, h in enumerate(hands):
            if not h.done:
                a[i] = choose(h, bias[i], rng, greedy[i])
                h.apply(int(a[i]))
        state = step(state, a, rules)
        t += 1
        compare_result(
            state, hands, np.flatnonzero([h.done and state.hand_over[i] for i, h in enumerate(hands)]), t
        )
        ended = np.flatnonzero(state.hand_over)
        finished = np.flatnonzero([h.done for h in hands])
        assert set(ended.tolist()) <= set(finished.tolist()), (
            f"[step {t}] engine ended hands {sorted(set(ended.tolist()) - set(finished.tolist()))} the rules have not"
        )
    assert (state.scores == state.last_points).all(), "one-hand episodes: the scores are the hand's points"
    seen = coverage(hands)
    missing = [p for p in expected_paths(rules) if seen[p] == 0]
    assert not missing, f"random playouts never reached {missing}: {seen}"


@pytest.mark.parametrize("preset", ["five_handed", "four_handed_no_stick", "four_handed_defend_alone"])
def test_engine_matches_reference_games(preset: str, rng: np.random.Generator) -> None:
    """Whole games: each hand follows the rules, scores add up, the deal moves left (rules.md#c1, #c14, #c16, #c19)."""
    rules = make_rules(preset, episode="game", points_to_win=10)
    state = init_state(rules, 200, rng=rng)
    p = rules.num_players
    hands = [oracle_from_state(state, i, rules) for i in range(state.batch_size)]
    scores = np.zeros((state.batch_size, p), dtype=np.int64)
    bias = np.where(np.arange(state.batch_size) % 2 == 0, 0.0, 0.8)
    hands_played = 0
    for t in range(20_000):
        compare_step_game(state, hands, rules, t)
        if is_done(state).all():
            break
        a = np.full(state.batch_size, -1, dtype=np.int64)
        finishing = []
        for i, h in enumerate(hands):
            if not h.done:
                a[i] = choose(h, bias[i], rng)
                h.apply(int(a[i]))
                if h.done:
                    finishing.append(i)
        before = state
        state = step(state, a, rules)
        ended = np.flatnonzero(state.hand_over)
        finished = np.array(finishing, dtype=np.int64)
        assert np.array_equal(ended, finished), f"[step {t}] hands ended: engine {ended}, rules {finished}"
        compare_result(state, hands, ended, t)
        for i in ended:
            h = hands[i]
            scores[i] += h.points
            hands_played += 1
            assert state.scores[i].tolist() == scores[i].tolist(), (
                f"[step {t}] table {i}: running scores {state.scores[i].tolist()}, expected {scores[i].tolist()}"
            )
            top = scores[i].max()
            if top >= rules.points_to_win:
                want = sum(1 << s for s in range(p) if scores[i, s] == top)
                assert is_done(state)[i], (
                    f"[step {t}] table {i}: {scores[i].tolist()} reaches the target, game goes on"
                )
                assert int(state.winners[i]) == want, (
                    f"[step {t}] table {i}: winners {state.winners[i]:b}, the top total {top} is held by {want:b}"
                )
            else:
                assert not is_done(state)[i], f"[step {t}] table {i}: game ended at {scores[i].tolist()}"
                assert state.dealer[i] == (before.dealer[i] + 1) % p, (
                    f"[step {t}] table {i}: deal must move left"
                )
                hands[i] = oracle_from_state(state, i, rules)
    else:
        raise AssertionError("games did not finish in 20,000 steps")
    assert hands_played > 3 * state.batch_size, f"only {hands_played} hands were played"


def compare_step_game(state: State, hands: list[ReferenceHand], rules: RulesConfig, t: int) -> None:
    """As ``compare_step``, where a table whose game is over counts as done."""
    over = is_done(state)
    for i in np.flatnonzero(over):
        assert hands[i].done, f"[step {t}] table {i}: engine says the game is over mid-hand"
    compare_step(state, hands, rules, t)
