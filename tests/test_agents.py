"""Baseline agents: legality over many hands, textbook choices in set positions, the registry."""

from __future__ import annotations

import numpy as np
import pytest

from agents import HeuristicAgent, ObsView, RandomAgent, agent_names, make_agent, register_agent
from euchre_env import actions, cards, engine, make_rules
from euchre_env.encoding import encode
from euchre_env.rules import RulesConfig
from euchre_env.state import State


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator, so every run plays the same hands."""
    return np.random.default_rng(20260511)


# Four-handed positions: seat 3 deals, seat 0 bids first and leads; hearts are turned up.
FOUR = {
    "dealer": 3,
    "hands": [
        ["KS", "JH", "AH", "KH", "9C"],
        ["9S", "QC", "KC", "AC", "TD"],
        ["AS", "TS", "QD", "KD", "AD"],
        ["JD", "QH", "TH", "JC", "JS"],
    ],
    "upcard": "9H",
    "kitty": ["9D", "QS", "TC"],
}
# Seat 1 void in spades with two low trump; seat 0 leads the king of spades.
FOUR_VOID = {
    "dealer": 3,
    "hands": [
        ["KS", "JH", "AH", "KH", "9C"],
        ["QH", "TH", "QC", "KC", "AC"],
        ["AS", "TS", "QD", "KD", "AD"],
        ["JD", "9S", "JC", "JS", "TD"],
    ],
    "upcard": "9H",
    "kitty": ["9D", "QS", "TC"],
}


def position(rules: RulesConfig, deal: dict, script: list[str]) -> State:
    """The state after dealing ``deal`` and playing the scripted actions (words as ``actions.parse``)."""
    s = engine.init_state(rules, deals=[deal])
    for words in script:
        s = engine.step(s, np.array([actions.parse(words)]), rules)
    return s


def decide(rules: RulesConfig, s: State) -> str:
    """The heuristic agent's choice at a one-table state, in words."""
    obs = encode(s, s.turn, rules)
    mask = engine.legal_action_mask(s, rules)
    a = HeuristicAgent(rules).act(obs, mask, np.random.default_rng(0))
    return actions.describe(int(a[0]))


def with_hand(deal: dict, seat: int, hand: list[str]) -> dict:
    """``deal`` with ``seat`` holding ``hand``; each card it gains swaps with one it gave up."""
    hands, kitty = [list(h) for h in deal["hands"]], list(deal["kitty"])
    lost = [c for c in hands[seat] if c not in hand]
    for c in hand:
        if c not in hands[seat]:
            giver = next(h for h in [*hands, kitty] if c in h)
            giver[giver.index(c)] = lost.pop()
    hands[seat] = list(hand)
    return {**deal, "hands": hands, "kitty": kitty}


def play_many(rules: RulesConfig, policies: list, num_tables: int, rng: np.random.Generator) -> State:
    """Play ``num_tables`` hands with ``policies[seat]``; the engine raises on an illegal action."""
    s = engine.init_state(rules, num_tables, rng=rng)
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        obs = encode(s, np.maximum(s.turn, 0), rules)
        mask = engine.legal_action_mask(s, rules)
        acts = np.full(s.batch_size, -1)
        for seat, policy in enumerate(policies):
            rows = live[s.turn[live] == seat]
            if rows.size:
                acts[rows] = policy.act(obs[rows], mask[rows], rng)
        s = engine.step(s, acts, rules)
    return s


@pytest.mark.parametrize(
    "preset", ["four_handed", "five_handed", "four_handed_no_stick", "four_handed_defend_alone"]
)
def test_agents_take_only_legal_actions(preset: str, rng: np.random.Generator) -> None:
    """Heuristic and random agents, mixed at a table, play 1500 hands without an illegal action."""
    rules = make_rules(preset)
    heur, rand = HeuristicAgent(rules), RandomAgent(rules)
    policies = [heur if seat % 2 == 0 else rand for seat in range(rules.num_players)]
    s = play_many(rules, policies, 1500, rng)
    assert engine.is_done(s).all(), "every hand should finish"
    s = play_many(rules, [heur] * rules.num_players, 1500, rng)
    assert (s.last_maker >= 0).mean() > 0.9, (
        f"heuristic tables should make trump, got {(s.last_maker >= 0).mean()}"
    )


def test_order_up_with_both_bowers_and_an_ace() -> None:
    """Orders up holding both bowers and an off ace: about three tricks (the classic order)."""
    rules = make_rules("four_handed")
    deal = with_hand(FOUR, 0, ["JH", "JD", "AS", "9C", "KS"])
    assert decide(rules, position(rules, deal, [])) == "order up"


def test_pass_with_a_weak_hand() -> None:
    """Passes with one low trump and no ace: ordering would hand the dealer the upcard for nothing."""
    rules = make_rules("four_handed")
    deal = with_hand(FOUR, 0, ["9S", "QC", "KC", "TD", "KS"])
    assert decide(rules, position(rules, deal, [])) == "pass"


def test_dealer_discards_a_singleton_to_short_suit_itself() -> None:
    """The dealer discards the singleton queen of clubs, not the lower 9S: a void lets it trump clubs."""
    rules = make_rules("four_handed")
    deal = {**FOUR, "hands": [list(h) for h in FOUR["hands"]], "upcard": "AH"}
    deal["hands"][3] = ["JH", "KH", "QC", "9S", "TS"]
    deal["hands"][0] = ["KS", "9H", "JD", "QH", "9C"]
    deal["hands"][2] = ["AS", "TH", "QD", "KD", "AD"]
    deal["hands"][1] = ["JS", "JC", "KC", "AC", "TD"]
    deal["kitty"] = ["9D", "QS", "TC"]
    s = position(rules, deal, ["order up"])
    assert decide(rules, s) == "discard QC"


def test_follow_low_when_partner_is_winning() -> None:
    """Partner's king of spades is winning: play the 10, not the ace (never overtake your partner)."""
    rules = make_rules("four_handed")
    s = position(rules, FOUR, ["order up", "discard JC", "with partner", "play KS", "play 9S"])
    assert decide(rules, s) == "play TS"


def test_trump_in_low_when_void_and_the_trick_is_lost() -> None:
    """Void in spades against an opponent's king: trump in with the lowest trump (10 of hearts)."""
    rules = make_rules("four_handed")
    s = position(rules, FOUR_VOID, ["order up", "discard JC", "with partner", "play KS"])
    assert decide(rules, s) == "play TH"


def test_do_not_trump_partners_winning_card() -> None:
    """Partner's ace of spades is winning: a void third hand throws a plain card, not a trump."""
    rules = make_rules("four_handed")
    deal = {**FOUR_VOID, "hands": [list(h) for h in FOUR_VOID["hands"]]}
    deal["hands"][0], deal["hands"][2] = ["AS", "JH", "AH", "KH", "9C"], ["KS", "TS", "QD", "KD", "AD"]
    deal["hands"][1], deal["hands"][3] = ["9S", "QC", "KC", "AC", "TD"], ["JD", "QH", "TH", "JC", "JS"]
    s = position(rules, deal, ["order up", "discard JC", "with partner", "play AS", "play 9S"])
    assert decide(rules, s) == "play TS", "third hand must follow low under partner's ace"
    deal["hands"][2], deal["hands"][3] = ["QH", "TH", "QD", "KD", "AD"], ["JD", "KS", "TS", "JC", "JS"]
    s = position(rules, deal, ["order up", "discard JC", "with partner", "play AS", "play 9S"])
    assert decide(rules, s) == "play QD", "a void third hand throws its lowest plain card under partner's ace"


def test_strong_maker_leads_the_right_bower() -> None:
    """A maker with three trump headed by the right bower leads it to draw the defenders' trump."""
    rules = make_rules("four_handed")
    s = position(rules, FOUR, ["order up", "discard JC", "with partner"])
    assert decide(rules, s) == "play JH"


def test_go_alone_with_both_bowers_and_the_ace() -> None:
    """Right, left, ace and king of trump with an off ace: go alone for 4 points (a march alone)."""
    rules = make_rules("four_handed")
    deal = with_hand(FOUR, 0, ["JH", "JD", "AH", "KH", "AS"])
    s = position(rules, deal, ["order up", f"discard {deal['hands'][3][-1]}"])
    assert decide(rules, s) == "alone"
    s = position(rules, FOUR, ["order up", "discard JC"])
    assert decide(rules, s) == "with partner", "two plain losers are too many to go alone"


def test_stuck_dealer_names_its_best_suit() -> None:
    """Stick the dealer: after seven passes the dealer names its strongest suit (spades: both black jacks, queen)."""
    rules = make_rules("four_handed")
    deal = with_hand(FOUR, 3, ["QS", "QH", "TH", "JC", "JS"])
    s = position(rules, deal, ["pass"] * 7)
    assert decide(rules, s) == "name spades"


# Five-handed positions: seat 4 deals, seat 0 bids first; 28 cards (8s in play).
FIVE = {
    "dealer": 4,
    "hands": [
        ["JD", "AH", "KH", "QH", "AS"],
        ["9S", "QC", "KC", "AC", "TD"],
        ["JH", "TS", "QD", "KD", "8S"],
        ["AD", "TH", "JC", "JS", "8C"],
        ["9C", "TC", "8D", "9D", "KS"],
    ],
    "upcard": "9H",
    "kitty": ["QS", "8H"],
}


def test_five_handed_calls_the_highest_trump_it_lacks() -> None:
    """The maker without the right bower calls it: its holder is the strongest possible partner."""
    rules = make_rules("five_handed")
    s = position(rules, FIVE, ["order up", "discard 8D"])
    assert decide(rules, s) == "call JH"
    deal = with_hand(FIVE, 0, ["JH", "QH", "AS", "9S", "8C"])  # holds the right, lacks the left
    s = position(rules, deal, ["order up", "discard 8D"])
    assert decide(rules, s) == "call JD"


def test_five_handed_never_calls_the_turned_down_upcard() -> None:
    """With the left bower turned down (out of play), the maker calls the ace of trump instead."""
    rules = make_rules("five_handed")
    deal = {**FIVE, "hands": [list(h) for h in FIVE["hands"]], "upcard": "JD"}
    deal["hands"][0] = ["JH", "KH", "9H", "AS", "8S"]
    deal["hands"][2] = ["AH", "TS", "QD", "KD", "QH"]
    s = position(rules, deal, ["pass"] * 5 + ["name hearts"])
    assert decide(rules, s) == "call AH"


def test_hidden_partner_does_not_overtake_the_maker() -> None:
    """Five-handed, holding the called ace: under the maker's winning king, follow low and stay hidden."""
    rules = make_rules("five_handed")
    deal = with_hand(with_hand(FIVE, 0, ["KS", "JH", "AH", "KH", "9C"]), 2, ["AS", "8S", "QD", "KD", "TS"])
    deal = with_hand(deal, 4, ["JD", "TC", "8D", "9D", "QH"])
    s = position(rules, deal, ["order up", "discard 8D", "call AS", "play KS", "play 9S"])
    assert decide(rules, s) == "play 8S"


def test_heuristic_batch_matches_row_by_row(rng: np.random.Generator) -> None:
    """Acting on a mixed batch gives the same actions as acting on each row alone (search rollouts rely on it)."""
    for variant in ("four_handed", "five_handed"):
        rules = make_rules(variant)
        agent = HeuristicAgent(rules)
        s = engine.init_state(rules, 64, rng=rng)
        for _ in range(int(rng.integers(0, 20))):
            s = engine.step(s, engine.sample_legal(s, rules, rng), rules)
        live = np.flatnonzero(~engine.is_done(s))
        obs = encode(s, np.maximum(s.turn, 0), rules)[live]
        mask = engine.legal_action_mask(s, rules)[live]
        batch = agent.act(obs, mask, rng)
        single = np.array([agent.act(obs[i : i + 1], mask[i : i + 1], rng)[0] for i in range(live.size)])
        assert np.array_equal(batch, single), f"{variant}: batched and single-row actions differ"


def test_view_tracks_the_trick(rng: np.random.Generator) -> None:
    """ObsView's hand, trump, trick leader and winning seat agree with the engine state."""
    for variant in ("four_handed", "five_handed"):
        rules = make_rules(variant)
        p = rules.num_players
        s = engine.init_state(rules, 400, rng=rng)
        for _ in range(int(rng.integers(8, 25))):
            s = engine.step(s, engine.sample_legal(s, rules, rng), rules)
        rows = np.flatnonzero((s.phase == actions.Phase.PLAY) & (s.n_played > 0))
        view = ObsView(encode(s, s.turn, rules)[rows], rules)
        turn = s.turn[rows].astype(np.int64)
        hands = (s.hands[rows, turn][:, None] >> np.arange(cards.NUM_CARDS, dtype=np.uint32)) & 1
        assert np.array_equal(view.hand, hands.astype(bool)), f"{variant}: hand decoded wrongly"
        assert np.array_equal(view.trump, s.trump[rows]), f"{variant}: trump decoded wrongly"
        assert np.array_equal(view.leader, (s.leader[rows] - turn) % p), f"{variant}: leader decoded wrongly"
        cards_on = s.trick_cards[rows, s.trick_no[rows]].astype(np.int64) + 1  # (n, P)
        strength = cards.STRENGTH[s.trump[rows, None], s.led[rows, None], cards_on]
        assert np.array_equal(view.winning_seat, (strength.argmax(axis=1) - turn) % p), f"{variant}: winner"


def test_view_boss_and_suit_counts_follow_their_definitions(rng: np.random.Generator) -> None:
    """A boss card: no unseen card of its effective suit ranks as high; suit counts: my cards per suit (and
    per card, in its suit).

    Checked card by card against the definitions on thousands of positions (the view computes both
    from card bitmasks)."""
    for variant in ("four_handed", "five_handed"):
        rules = make_rules(variant)
        s = engine.init_state(rules, 600, rng=rng)
        for _ in range(int(rng.integers(10, 30))):
            s = engine.step(s, engine.sample_legal(s, rules, rng), rules)
        rows = np.flatnonzero(s.phase == actions.Phase.PLAY)
        view = ObsView(encode(s, s.turn, rules)[rows], rules)
        suit = cards.EFFECTIVE_SUIT[view.trump]  # (n, C)
        order = np.where(
            cards.TRUMP_ORDER[view.trump] > 0, 100 + cards.TRUMP_ORDER[view.trump], cards.CARD_RANK
        )
        for i in range(0, rows.size, 7):
            for c in range(cards.NUM_CARDS):
                rivals = view.unseen[i] & (suit[i] == suit[i, c]) & (order[i] >= order[i, c])
                assert view.boss[i, c] == (not rivals.any()), f"{variant}: boss of card {c} wrong"
            counts = [int((view.hand[i] & (suit[i] == k)).sum()) for k in range(cards.NUM_SUITS)]
            assert view.suit_count[i].tolist() == counts, f"{variant}: suit counts wrong"
            assert view.suit_len[i].tolist() == [counts[k] for k in suit[i]], f"{variant}: suit lengths wrong"


def test_heuristic_acts_alike_on_every_observation_dtype(rng: np.random.Generator) -> None:
    """The rule-based player reads 0/1 observations of any dtype (the envs' float32, the rollouts' uint8,
    bool, int64) and chooses the same actions from each, in every phase of both games."""
    for variant in ("four_handed", "five_handed"):
        rules = make_rules(variant)
        agent = HeuristicAgent(rules)
        s = engine.init_state(rules, 300, rng=rng)
        for _ in range(40):
            live = np.flatnonzero(s.phase != actions.Phase.DONE)
            if not live.size:
                break
            sub = s.take(live)
            obs, masks = encode(sub, sub.turn, rules), engine.legal_action_mask(sub, rules)
            first = agent.act(obs.astype(np.float32), masks)
            for dtype in (np.uint8, bool, np.int64):
                assert np.array_equal(agent.act(obs.astype(dtype), masks), first), (
                    f"{variant}: {dtype} differs"
                )
            s = engine.step(s, engine.sample_legal(s, rules, rng), rules)


def test_bidding_suit_counts_follow_their_definition(rng: np.random.Generator) -> None:
    """``suit_counts(hand)[b, t, s]``: cards of hand ``b`` whose effective suit is ``s`` when ``t`` is trump
    (the bowers move to trump), checked against the definition on random hands."""
    from agents.heuristic_bidding import suit_counts

    hands = rng.random((500, cards.NUM_CARDS)) < 0.25
    counts = suit_counts(hands)
    for t in range(cards.NUM_SUITS):
        for k in range(cards.NUM_SUITS):
            expected = (hands & (cards.EFFECTIVE_SUIT[t] == k)).sum(axis=1)
            assert np.array_equal(counts[:, t, k], expected), f"trump {t}, suit {k}: counts wrong"


def test_random_agent_is_uniform_over_legal_actions(rng: np.random.Generator) -> None:
    """RandomAgent picks each of three legal actions about a third of the time, never another."""
    rules = make_rules("four_handed")
    mask = np.zeros((30_000, actions.NUM_ACTIONS), bool)
    mask[:, [3, 40, 84]] = True
    obs = encode(engine.init_state(rules, 1, rng=rng), 0, rules).repeat(30_000, axis=0)
    acts = RandomAgent(rules).act(obs, mask, rng)
    counts = np.array([(acts == a).sum() for a in (3, 40, 84)])
    assert counts.sum() == acts.size, "random agent chose an illegal action"
    assert np.all(np.abs(counts / acts.size - 1 / 3) < 0.02), f"not uniform: {counts}"


def test_registry_builds_and_rejects_agents() -> None:
    """make_agent builds the baselines, plugs in new agents, and names the known ones on a typo."""
    rules = make_rules("five_handed")
    assert isinstance(make_agent("heuristic", rules), HeuristicAgent)
    assert isinstance(make_agent("random", rules), RandomAgent)
    register_agent("always_random_test", lambda r: RandomAgent(r))
    assert "always_random_test" in agent_names()
    with pytest.raises(ValueError, match="known agents"):
        make_agent("heuristc", rules)
    with pytest.raises(ValueError, match="unknown agent prefix"):
        make_agent("nosuch:thing", rules)


def test_agents_reject_bad_input_shapes(rng: np.random.Generator) -> None:
    """Wrong observation width or mask shape gives a ValueError naming the expected shape."""
    rules = make_rules("four_handed")
    agent = HeuristicAgent(rules)
    obs = encode(engine.init_state(rules, 2, rng=rng), 0, rules)
    mask = np.ones((2, actions.NUM_ACTIONS), bool)
    with pytest.raises(ValueError, match="observations must have shape"):
        agent.act(obs[:, :-1], mask, rng)
    with pytest.raises(ValueError, match="action_masks must have shape"):
        agent.act(obs, mask[:, :-1], rng)
    with pytest.raises(ValueError, match="no legal action"):
        agent.act(obs, np.zeros_like(mask), rng)
