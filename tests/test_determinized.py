"""The determinised-search agent: legal actions, obvious endgame choices, settings, the exact solver."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from agents.determinized import DeterminizedAgent, solve_endgame
from agents.heuristic import HeuristicAgent
from euchre_env import actions, cards, engine, make_rules
from euchre_env.actions import Phase
from euchre_env.encoding import encode
from euchre_env.rules import PRESETS, RulesConfig
from euchre_env.state import State

# Four-handed, dealer seat 3, hearts named in round 2 by seat 0 (with partner). Seat 0 takes the
# first three tricks with the ace of trump and two side aces and leads to trick 4 holding the right
# bower and the ace of spades. Seat 1 still holds the left bower and no spade: leading the ace
# lets it trump (4 tricks, 1 point); drawing it with the right bower first marches (2 points).
FOUR_DEAL = {
    "dealer": 3,
    "hands": [
        ["JH", "AH", "AS", "AC", "AD"],
        ["JD", "KH", "QC", "TC", "9D"],
        ["KC", "JC", "TD", "QS", "KS"],
        ["9C", "QD", "KD", "TS", "JS"],
    ],
    "upcard": "9S",
    "kitty": ["QH", "TH", "9H"],
}
FOUR_HISTORY = ["pass"] * 4 + ["name hearts", "with partner"] + [
    *["play AH", "play KH", "play QS", "play TS"],
    *["play AC", "play TC", "play JC", "play 9C"],
    *["play AD", "play 9D", "play TD", "play QD"],
]  # fmt: skip
# The same idea five-handed: seat 0 goes alone; leading the right bower first wins all five (4 points).
FIVE_DEAL = {
    "dealer": 4,
    "hands": [
        ["JH", "AH", "AS", "AC", "AD"],
        ["JD", "KH", "QC", "TC", "9D"],
        ["9H", "8C", "8D", "8S", "TS"],
        ["8H", "9C", "TD", "JS", "QS"],
        ["JC", "KC", "QD", "KD", "KS"],
    ],
    "upcard": "9S",
    "kitty": ["QH", "TH"],
}
FIVE_HISTORY = ["pass"] * 5 + ["name hearts", "alone"] + [
    *["play AH", "play KH", "play 9H", "play 8H", "play JC"],
    *["play AC", "play TC", "play 8C", "play 9C", "play KC"],
    *["play AD", "play 9D", "play 8D", "play TD", "play QD"],
]  # fmt: skip
ENDGAMES = {"four_handed": (FOUR_DEAL, FOUR_HISTORY), "five_handed": (FIVE_DEAL, FIVE_HISTORY)}


def position(variant: str) -> tuple[RulesConfig, State]:
    """The hand-written endgame of ``variant``, seat 0 to lead trick 4."""
    rules = PRESETS[variant]
    deal, history = ENDGAMES[variant]
    s = engine.init_state(rules, deals=[deal])
    for words in history:
        s = engine.step(s, [actions.parse(words)], rules)
    return rules, s


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_leads_the_right_bower_to_draw_the_last_trump(variant: str, rng: np.random.Generator) -> None:
    """With three tricks in, the agent leads the right bower before its ace, with or without a default."""
    rules, s = position(variant)
    assert int(s.turn[0]) == 0 and int(s.trick_no[0]) == 3, "the position is seat 0 leading trick 4"
    obs, mask = encode(s, 0, rules), engine.legal_action_mask(s, rules)
    assert mask[0].sum() == 2, "two cards to choose from"
    for kw in ({}, {"deviation_z": 0.0, "surprise": None}):
        agent = DeterminizedAgent(rules, **kw)
        chosen = agent.act(obs, mask, rng)
        assert chosen[0] == actions.play("JH"), (
            f"{kw}: chose {actions.describe(chosen[0])}, not the right bower"
        )


@pytest.mark.parametrize("variant", ["four_handed", "five_handed"])
def test_exact_solver_values_the_endgame(variant: str) -> None:
    """The open-card solve gives the march after the bower lead and one trick less after the ace."""
    rules, s = position(variant)
    both = s.take([0, 0])
    after = engine.step(both, [actions.play("JH"), actions.play("AS")], rules)
    values = solve_endgame(after, rules, zero_sum=False)
    march = 2 if variant == "four_handed" else 4  # a lone march in the five-handed deal
    assert np.array_equal(values, [march, 1]), f"seat 0's points after JH / AS: {values}"


def test_search_values_prefer_the_bower(rng: np.random.Generator) -> None:
    """``action_values`` returns a value for each legal action and NaN elsewhere; the bower is best."""
    rules, s = position("four_handed")
    agent = DeterminizedAgent(rules, num_worlds=32)
    values = agent.action_values(encode(s, 0, rules), engine.legal_action_mask(s, rules), rng)[0]
    legal = np.flatnonzero(~np.isnan(values))
    assert set(legal) == {actions.play("JH"), actions.play("AS")}, "values for exactly the legal actions"
    assert values[actions.play("JH")] > values[actions.play("AS")], f"values {values[legal]}"


def play_with(agent: DeterminizedAgent, rules: RulesConfig, tables: int, rng: np.random.Generator) -> int:
    """Play ``tables`` hands with ``agent`` in every seat, checking each action; returns decisions made."""
    s = engine.init_state(rules, tables, rng=rng)
    decisions = 0
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        sub = s.take(live)
        mask = engine.legal_action_mask(sub, rules)
        chosen = agent.act(encode(sub, sub.turn, rules), mask, rng)
        assert mask[np.arange(live.size), chosen].all(), "the agent chose an illegal action"
        a = np.full(tables, -1)
        a[live] = chosen
        s = engine.step(s, a, rules)
        decisions += live.size
    return decisions


def test_only_legal_actions(rules: RulesConfig, rng: np.random.Generator) -> None:
    """A few hundred decisions in every preset, all legal (rollout and random-rollout variants)."""
    decisions = play_with(DeterminizedAgent(rules, num_worlds=4, oversample=2), rules, 8, rng)
    decisions += play_with(DeterminizedAgent(rules, num_worlds=4, rollout_policy="random"), rules, 4, rng)
    assert decisions >= 250, f"only {decisions} decisions were checked"


def test_game_mode_and_time_budget(rng: np.random.Generator) -> None:
    """Game mode works (the search stops at the end of the hand); a time budget runs extra rounds of worlds."""
    rules = make_rules("five_handed", episode="game")
    s = engine.init_state(rules, 3, rng=rng)
    obs, mask = encode(s, s.turn, rules), engine.legal_action_mask(s, rules)
    rounds = []
    for budget in (None, 0.5):
        agent = DeterminizedAgent(rules, num_worlds=2, time_budget=budget)
        agent._one_round = _counting(agent._one_round, rounds, budget)  # type: ignore[method-assign]
        chosen = agent.act(obs, mask, rng)
        assert mask[np.arange(3), chosen].all(), "legal actions in game mode"
    assert rounds.count(None) == 1, "without a budget one round of worlds"
    assert rounds.count(0.5) >= 2, "a generous budget buys more rounds"


def test_unsearched_phases_follow_the_rollout_policy(rng: np.random.Generator) -> None:
    """With ``search_phases=[PLAY]`` every bid is the heuristic's own."""
    rules = PRESETS["five_handed"]
    s = engine.init_state(rules, 40, rng=rng)
    obs, mask = encode(s, s.turn, rules), engine.legal_action_mask(s, rules)
    agent = DeterminizedAgent(rules, num_worlds=2, deviation_z=0.0, search_phases=[Phase.PLAY])
    heuristic = HeuristicAgent(rules).act(obs, mask, rng)
    assert np.array_equal(agent.act(obs, mask, rng), heuristic), "bids are the rollout policy's"


def test_defaults_by_game() -> None:
    """Four-handed searches every phase; five-handed only the bidding, with more worlds than card play."""
    four = DeterminizedAgent(PRESETS["four_handed"])
    assert Phase.PLAY in four.search_phases and four.bid_worlds == four.num_worlds == 32
    five = DeterminizedAgent(PRESETS["five_handed"])
    assert Phase.PLAY not in five.search_phases and Phase.CALL in five.search_phases
    assert (five.num_worlds, five.bid_worlds) == (32, 64)
    assert DeterminizedAgent(PRESETS["five_handed"], num_worlds=4).bid_worlds == 4, "one setting for both"
    random_rollouts = DeterminizedAgent(PRESETS["five_handed"], rollout_policy="random")
    assert Phase.PLAY in random_rollouts.search_phases, "random rollouts cannot decide the card play"


def choices_in(phase: Phase, rules: RulesConfig, tables: int, rng: np.random.Generator) -> tuple:
    """Observations and masks (``(N, D)``, ``(N, A)``) of ``phase`` choices met in heuristic self-play."""
    policy = HeuristicAgent(rules)
    s = engine.init_state(rules, tables, rng=rng)
    obs, masks = [], []
    while not engine.is_done(s).all():
        live = np.flatnonzero(~engine.is_done(s))
        sub = s.take(live)
        o, m = encode(sub, sub.turn, rules), engine.legal_action_mask(sub, rules)
        here = (sub.phase == phase) & (m.sum(axis=1) > 1)
        obs.append(o[here])
        masks.append(m[here])
        a = np.full(tables, -1)
        a[live] = policy.act(o, m, rng)
        s = engine.step(s, a, rules)
    return np.concatenate(obs), np.concatenate(masks)


def test_bidding_and_card_play_get_their_own_worlds(rng: np.random.Generator) -> None:
    """A bid is searched over ``bid_worlds`` worlds, a card play over ``num_worlds``."""
    rules = PRESETS["four_handed"]
    agent = DeterminizedAgent(rules, num_worlds=3, bid_worlds=5)
    seen: list[int] = []
    inner = agent._one_round

    def logged(*args: object) -> np.ndarray:
        seen.append(int(args[-1]))  # type: ignore[call-overload]
        return inner(*args)

    agent._one_round = logged  # type: ignore[method-assign]
    for phase in (Phase.BID_UPCARD, Phase.PLAY):
        obs, masks = choices_in(phase, rules, 6, rng)
        chosen = agent.act(obs, masks, rng)
        assert masks[np.arange(len(obs)), chosen].all(), f"{phase.name}: illegal action"
    assert seen == [5, 3], f"worlds per round: {seen}"


def test_calls_are_pruned_to_useful_cards(rng: np.random.Generator) -> None:
    """Five-handed, the searched calls are trump cards, off-suit aces, alone or the heuristic's call."""
    rules = PRESETS["five_handed"]
    obs, masks = choices_in(Phase.CALL, rules, 60, rng)
    assert len(obs) >= 10, "enough call decisions"
    agent = DeterminizedAgent(rules, bid_worlds=8, deviation_z=0.0)
    pruned = agent._prune_calls(obs, masks, np.arange(len(obs)), rng)
    assert not (pruned & ~masks).any(), "pruning only removes actions"
    own = HeuristicAgent(rules).act(obs, masks, rng)
    assert pruned[np.arange(len(obs)), own].all(), "the heuristic's own call stays"
    assert pruned[:, actions.ALONE].all() and (pruned.sum(axis=1) < masks.sum(axis=1)).all()
    trump = obs[:, agent._trump_columns].argmax(axis=1)
    called = agent.act(obs, masks, rng) - actions.CALL_BASE
    alone = called == actions.ALONE - actions.CALL_BASE
    card = np.clip(called, 0, cards.NUM_CARDS - 1)
    useful = cards.TRUMP_ORDER[trump, card] > 0
    useful |= cards.CARD_RANK[card] == cards.ACE
    useful |= card == own - actions.CALL_BASE
    assert (alone | useful).all(), "a call outside the candidates"
    full = DeterminizedAgent(rules, bid_worlds=2, prune_calls=False)
    assert np.array_equal(full._prune_calls(obs, masks, np.arange(len(obs)), rng), masks)


def _counting(fn: Callable[..., np.ndarray], log: list, tag: object) -> Callable[..., np.ndarray]:
    """``fn`` that also appends ``tag`` to ``log`` at each call."""

    def wrapped(*args: object) -> np.ndarray:
        log.append(tag)
        return fn(*args)

    return wrapped


def test_same_seed_same_choices() -> None:
    """With the same rng seed the agent repeats its choices."""
    rules = PRESETS["five_handed"]
    s = engine.init_state(rules, 6, rng=np.random.default_rng(3))
    obs, mask = encode(s, s.turn, rules), engine.legal_action_mask(s, rules)
    agent = DeterminizedAgent(rules, num_worlds=4)
    first = agent.act(obs, mask, np.random.default_rng(11))
    assert np.array_equal(first, agent.act(obs, mask, np.random.default_rng(11))), "same seed, same actions"


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("num_worlds", 0),
        ("bid_worlds", 0),
        ("rollouts", 1.5),
        ("exact_tricks", 6),
        ("time_budget", -1.0),
        ("rollout_policy", "greedy"),
        ("surprise", 0.0),
        ("deviation_z", -1.0),
        ("search_phases", [7]),
    ],
)
def test_bad_settings_are_rejected(setting: str, value: object) -> None:
    """Each bad setting raises ValueError naming it."""
    with pytest.raises(ValueError, match=setting):
        DeterminizedAgent(PRESETS["four_handed"], **{setting: value})


class FirstLegal:
    """A rollout policy that always takes the lowest legal action, counting its calls."""

    def __init__(self, rules: RulesConfig) -> None:
        self.calls = 0

    def act(self, observations: np.ndarray, action_masks: np.ndarray, rng: object = None) -> np.ndarray:
        self.calls += 1
        return np.argmax(action_masks, axis=1)


def test_search_prefix_rolls_out_with_the_named_agent(
    monkeypatch: pytest.MonkeyPatch, rng: np.random.Generator
) -> None:
    """``search:<agent>`` searches with that agent in the rollouts and, where it does not search, plays its choice."""
    import agents

    monkeypatch.setitem(agents._AGENTS, "first", FirstLegal)
    rules = PRESETS["five_handed"]
    agent = agents.make_agent("search:first", rules, num_worlds=2, bid_worlds=2)
    assert isinstance(agent, DeterminizedAgent) and agent.name == "search:first"
    assert isinstance(agent.rollout_policy, FirstLegal)
    assert play_with(agent, rules, 6, rng) > 0 and agent.rollout_policy.calls > 0, "rollouts used the agent"
    # Five-handed the card play is not searched: there the choice is the rollout agent's own.
    s = engine.init_state(rules, 8, rng=rng)
    while not (s.phase == Phase.PLAY).all():
        s = engine.step(s, FirstLegal(rules).act(None, engine.legal_action_mask(s, rules)), rules)
    obs, mask = encode(s, s.turn, rules), engine.legal_action_mask(s, rules)
    assert np.array_equal(agent.act(obs, mask, rng), np.argmax(mask, axis=1)), "card play is the agent's"


def test_search_prefix_with_the_shipped_model(rng: np.random.Generator) -> None:
    """``search:model:four_handed`` (the shipped model in the rollouts) plays legal actions."""
    from agents import make_agent
    from agents.neural import NeuralAgent

    rules = PRESETS["four_handed"]
    agent = make_agent("search:model:four_handed", rules, num_worlds=2)
    assert isinstance(agent.rollout_policy, NeuralAgent)
    assert play_with(agent, rules, 3, rng) > 0


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("search:", "needs the name of the rollout agent"),
        ("search:search", "cannot itself be a search"),
        ("search:search-uniform", "cannot itself be a search"),
        ("search:search:heuristic", "cannot itself be a search"),
        ("search:nosuch", "rollout agent of 'search:nosuch': unknown agent 'nosuch'"),
        ("search:model:nosuch", "no model file 'nosuch'"),
    ],
)
def test_search_prefix_rejects_bad_rollout_agents(name: str, message: str) -> None:
    from agents import make_agent

    with pytest.raises(ValueError, match=message):
        make_agent(name, PRESETS["four_handed"])
