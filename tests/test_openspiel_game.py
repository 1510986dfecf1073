"""Both games as OpenSpiel Python games: OpenSpiel's own API test, its bots, and the engine's rules."""

from __future__ import annotations

import re

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")  # the `bench` extra

from euchre_env import cards
from euchre_env.encoding import encode
from euchre_env.engine import current_player, init_state, legal_action_mask, step
from euchre_env.openspiel_game import GAME_NAMES  # importing registers the games
from euchre_env.rules import HAND_SIZE, RulesConfig, make_rules

GAMES = [
    "python_euchre_four_handed",
    "python_euchre_four_handed(stick_the_dealer=False,defend_alone=True)",
    "python_euchre_five_handed",
]
INFO_STATE = pyspiel.IIGObservationType(perfect_recall=True)
OBSERVATION = pyspiel.IIGObservationType(perfect_recall=False)
CARD = re.compile(r"(?<![\w])([89TJQKA][CDHS])(?![\w])")


def rules_of(game: pyspiel.Game) -> RulesConfig:
    """The engine rules of a loaded game (its variant and parameters)."""
    params = game.get_parameters()
    variant = "five_handed" if game.num_players() == 5 else "four_handed"
    return make_rules(variant, **{k: bool(v) for k, v in params.items()})


def deal_into(state: pyspiel.State, seed: int, rules: RulesConfig) -> None:
    """Play the chance nodes so that the OpenSpiel state holds the engine's deal for ``seed``."""
    s = init_state(rules, seeds=[seed])
    dealer, p = int(s.dealer[0]), rules.num_players
    state.apply_action(dealer)
    for k in range(p):
        for c in cards.cards_of(int(s.hands[0, (dealer + 1 + k) % p])):
            state.apply_action(c)
    state.apply_action(int(s.upcard[0]))
    assert not state.is_chance_node(), "the deal should be over after the upcard"


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_random_simulation_test(name: str) -> None:
    """OpenSpiel's own random-simulation test (clone, serialise, legal actions, returns within the
    utility range, game length), with both observers checked at every state."""
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=4, serialize=True, verbose=False)
    for obs_type in (INFO_STATE, OBSERVATION):
        observer = game.make_observer(obs_type, {})
        pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False, observer=observer)


@pytest.mark.parametrize("name", GAMES)
def test_same_deal_and_actions_give_the_engines_points(name: str) -> None:
    """Dealt the engine's cards, the OpenSpiel game follows the batched engine step by step (seat to act,
    legal actions, observation tensor) and its returns are the engine's points."""
    game = pyspiel.load_game(name)
    rules = rules_of(game)
    rng = np.random.default_rng(0)
    for seed in range(12):
        state = game.new_initial_state()
        deal_into(state, seed, rules)
        s = init_state(rules, seeds=[seed])
        while not state.is_terminal():
            seat = int(current_player(s)[0])
            assert state.current_player() == seat, f"seed {seed}: player {state.current_player()} != {seat}"
            legal = np.flatnonzero(legal_action_mask(s, rules)[0]).tolist()
            assert state.legal_actions() == legal, f"seed {seed}: legal {state.legal_actions()} != {legal}"
            for p in range(rules.num_players):
                want = encode(s, p, rules)[0]
                np.testing.assert_array_equal(np.asarray(state.observation_tensor(p)), want)
                np.testing.assert_array_equal(np.asarray(state.information_state_tensor(p)), want)
            a = int(rng.choice(legal))
            state.apply_action(a)
            s = step(s, np.array([a]), rules)
        assert state.returns() == [float(x) for x in s.last_points[0]], f"seed {seed}: {state.returns()}"
        assert sum(state.returns()) > 0 or not bool(s.maker[0] >= 0), f"seed {seed}: nobody scored"


def test_registered_names_and_sizes() -> None:
    """Both names load, the deal's chance outcomes are uniform and the sizes are the engine's."""
    assert set(GAME_NAMES.values()) <= set(pyspiel.registered_names())
    for name, p in (("python_euchre_four_handed", 4), ("python_euchre_five_handed", 5)):
        game = pyspiel.load_game(name)
        assert game.num_players() == p and game.num_distinct_actions() == 93
        assert game.max_chance_nodes_in_history() == 1 + HAND_SIZE * p + 1
        state = game.new_initial_state()
        assert state.chance_outcomes() == [(s, 1 / p) for s in range(p)], "the dealer is uniform"
        state.apply_action(0)
        deck = make_rules("five_handed" if p == 5 else "four_handed").deck
        assert [c for c, _ in state.chance_outcomes()] == deck, "every card of the deck can be dealt first"


def test_observations_never_show_other_seats_hidden_cards() -> None:
    """A seat's observation and information-state strings name only cards it may know: its own, the
    upcard, the called card, its own discard and cards already played."""
    for name in ("python_euchre_four_handed", "python_euchre_five_handed"):
        game = pyspiel.load_game(name)
        rng = np.random.default_rng(1)
        shown = 0
        for _ in range(6):
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = [a for a, _ in state.chance_outcomes()]
                    state.apply_action(int(rng.choice(outcomes)))
                    continue
                t = state.engine_state()
                public = {int(t.upcard[0])} | ({int(t.called[0])} if int(t.called[0]) >= 0 else set())
                for p in range(game.num_players()):
                    hidden = set(cards.cards_of(int(t.kitty[0])))
                    for q in range(game.num_players()):
                        if q != p:
                            hidden |= set(cards.cards_of(int(t.hands[0, q])))
                    if int(t.dealer[0]) != p and int(t.discard[0]) >= 0:
                        hidden.add(int(t.discard[0]))
                    hidden -= public
                    for text in (state.observation_string(p), state.information_state_string(p)):
                        named = {cards.parse(m) for m in CARD.findall(text)}
                        shown += len(named)
                        assert not named & hidden, (
                            f"{name}: player {p} sees {sorted(named & hidden)}:\n{text}"
                        )
                state.apply_action(int(rng.choice(state.legal_actions())))
        assert shown > 0, "the strings named no card at all: the check would be vacuous"


def test_information_state_is_perfect_recall_and_matches_its_tensor() -> None:
    """The information-state string lists every trick so far; equal tensors come with equal strings
    (and the other way round) over many states, including siblings that share a history."""
    game = pyspiel.load_game("python_euchre_four_handed")
    rng = np.random.default_rng(2)
    by_tensor: dict[bytes, str] = {}
    by_string: dict[str, bytes] = {}
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
                continue
            for branch in state.legal_actions()[:3]:  # a few siblings of this node
                child = state.clone()
                child.apply_action(branch)
                for p in range(4):
                    key = np.asarray(child.information_state_tensor(p), np.float32).tobytes()
                    text = child.information_state_string(p)
                    assert by_tensor.setdefault(key, text) == text, "one tensor, two information states"
                    assert by_string.setdefault(text, key) == key, "one information state, two tensors"
            state.apply_action(int(rng.choice(state.legal_actions())))
        text = state.information_state_string(0)
        assert len(re.findall(r"^trick \d: .* won by player_\d$", text, re.MULTILINE)) == 5, text
    assert len(by_tensor) > 500, f"only {len(by_tensor)} information states seen"


def test_openspiel_bots_play_the_games() -> None:
    """OpenSpiel's C++ and Python uniform random bots play whole hands (``evaluate_bots``), and its MCTS
    bot picks legal moves."""
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.bots import uniform_random

    for name in ("python_euchre_four_handed", "python_euchre_five_handed"):
        game = pyspiel.load_game(name)
        p = game.num_players()
        for seed in range(3):
            bots = [pyspiel.make_uniform_random_bot(i, seed + i) for i in range(p - 1)]
            bots.append(uniform_random.UniformRandomBot(p - 1, np.random.RandomState(seed)))
            returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, seed)
            assert len(returns) == p and all(x in (0, 1, 2, 4) for x in returns), f"{name}: {returns}"
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
        bot = mcts.MCTSBot(game, uct_c=2.0, max_simulations=8, evaluator=evaluator,
                           random_state=np.random.RandomState(0))  # fmt: skip
        state = game.new_initial_state()
        rng = np.random.default_rng(3)
        for _ in range(12):  # the deal, then a few decisions
            if state.is_chance_node():
                while state.is_chance_node():
                    state.apply_action(int(rng.choice([a for a, _ in state.chance_outcomes()])))
                continue
            action = bot.step(state)
            assert action in state.legal_actions(), f"MCTS chose {action}, legal {state.legal_actions()}"
            state.apply_action(action)


def test_bad_input_is_refused_with_a_clear_error() -> None:
    """An illegal action, an unknown parameter or a setting the five-handed game forbids say what is wrong."""
    game = pyspiel.load_game("python_euchre_four_handed")
    state = game.new_initial_state()
    with pytest.raises(Exception, match="chance outcome 7 is not a dealer seat"):
        state.apply_action(7)
    deal_into(state, 5, rules_of(game))
    legal = state.legal_actions()
    bad = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    with pytest.raises(Exception, match=rf"action {bad} is not legal for player \d in phase BID_UPCARD"):
        state.apply_action(bad)
    with pytest.raises(Exception, match="stick_the_dealer"):
        pyspiel.load_game("python_euchre_five_handed(stick_the_dealer=False)")
    with pytest.raises(Exception, match="private_info"):
        game.make_observer(pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                           private_info=pyspiel.PrivateInfoType.ALL_PLAYERS), {})  # fmt: skip
