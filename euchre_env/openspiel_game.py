"""Both games as OpenSpiel Python games, so OpenSpiel's bots and algorithms run on them.

Importing this module registers two games with OpenSpiel (it needs the
``open_spiel`` package, in the ``bench`` extra; ``euchre_env`` itself never
imports it)::

    import pyspiel
    import euchre_env.openspiel_game  # registers the games

    game = pyspiel.load_game("python_euchre_four_handed")
    game = pyspiel.load_game("python_euchre_four_handed(stick_the_dealer=False,defend_alone=True)")
    game = pyspiel.load_game("python_euchre_five_handed")

One OpenSpiel game is one hand (the engine's ``episode="hand"``), played by
this project's engine (:class:`euchre_env.engine.single.Table`), so the rules
are exactly those of the other environments (``docs/rules.md``):

* players ``0 .. P-1`` are the engine's seats (``player_k`` elsewhere);
* chance deals first: one chance node picks the dealer (uniform over seats),
  then ``5 * P`` nodes deal the hands one card at a time, five to each seat
  from the dealer's left, and one node turns the upcard; each outcome is a card
  id of :mod:`euchre_env.cards`, uniform over the cards not dealt yet, so the
  deals are uniform as in the engine. The rest of the deck is the hidden kitty;
* actions are the engine's 93 action ids (:mod:`euchre_env.actions`), the
  same in both games; legal actions are the engine's legal set, ascending;
* returns are the engine's points for the hand (``state.last_points``): the
  scoring side's seats get 1, 2 or 4 each, the others 0 (a hand thrown in
  scores 0 for all). The sum varies, so the game is general-sum, with
  utilities in ``0 .. 4``;
* observations: the tensor is the environments' observation vector
  (:func:`euchre_env.encoding.encode`, its pieces named as in
  ``encoding.obs_layout``); the string is the seat's table text
  (:func:`euchre_env.render.to_ansi`, which decides what a seat may see). The
  information state adds every trick played so far to the string (perfect
  recall); its tensor is the same vector, which already records every bid,
  every card with its trick and player, the winners and the seat's own hand
  and discard. While the cards are being dealt a seat sees the dealer and its
  own cards so far.

Game parameters: ``stick_the_dealer`` and ``defend_alone`` (four-handed only;
defaults as in ``RulesConfig``). Only single-seat observations are provided
(``private_info`` SINGLE_PLAYER with public information); other observation
types raise ``ValueError``.

Note that search bots that clone the state (e.g. OpenSpiel's ``MCTSBot``) see
the whole state, every hand included: they are not fair players of an
imperfect-information game.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]

from euchre_env import actions, cards, render
from euchre_env.encoding import obs_layout
from euchre_env.engine import init_state
from euchre_env.engine.single import Table, observe
from euchre_env.rules import HAND_SIZE, NUM_TRICKS, RulesConfig, make_rules
from euchre_env.state import State

__all__ = ["GAME_NAMES", "EuchreGame", "EuchreObserver", "EuchreState", "FiveHandedEuchreGame",
           "FourHandedEuchreGame", "game_info", "game_type"]  # fmt: skip

GAME_NAMES = {"four_handed": "python_euchre_four_handed", "five_handed": "python_euchre_five_handed"}
_PARAMETERS = {
    "four_handed": {"stick_the_dealer": True, "defend_alone": False},
    "five_handed": {},
}
_STATE_FIELDS = tuple(f.name for f in dataclasses.fields(State))
MAX_POINTS = 4  # a lone maker's march, or a euchre of a lone maker by a lone defender (rules.md)


def game_type(variant: str) -> pyspiel.GameType:
    """The OpenSpiel ``GameType`` of ``variant`` (``"four_handed"`` or ``"five_handed"``)."""
    p = make_rules(variant).num_players
    return pyspiel.GameType(
        short_name=GAME_NAMES[variant],
        long_name=f"Python Euchre ({variant.replace('_', '-')}, euchre_env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=p,
        min_num_players=p,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_PARAMETERS[variant],
    )


def game_info(rules: RulesConfig) -> pyspiel.GameInfo:
    """Sizes of the game under ``rules``.

    The longest hand: two bidding rounds (``2 P`` passes and names, no discard
    then), one declaration or call, ``5 P`` cards. A lone hand with defenders
    deciding is shorter (the partner's five cards are not played).
    """
    p = rules.num_players
    return pyspiel.GameInfo(
        num_distinct_actions=actions.NUM_ACTIONS,
        max_chance_outcomes=cards.NUM_CARDS,  # chance outcomes are card ids 0..27 (and dealer seats)
        num_players=p,
        min_utility=0.0,
        max_utility=float(MAX_POINTS),
        utility_sum=None,
        max_game_length=2 * p + 1 + NUM_TRICKS * p,
    )


def _rules(variant: str, params: dict[str, Any] | None) -> RulesConfig:
    settings = dict(_PARAMETERS[variant])
    unknown = sorted(set(params or {}) - set(settings))
    if unknown:
        raise ValueError(
            f"{GAME_NAMES[variant]}: unknown parameter(s) {unknown}; known: {sorted(settings) or 'none'}"
        )
    settings.update(params or {})
    return make_rules(variant, **{k: bool(v) for k, v in settings.items()}, episode="hand")


class EuchreGame(pyspiel.Game):
    """One hand of Euchre under ``rules`` (see the module docstring)."""

    variant = "four_handed"

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        self.rules = _rules(self.variant, params)
        game_params = {k: getattr(self.rules, k) for k in _PARAMETERS[self.variant]}
        super().__init__(game_type(self.variant), game_info(self.rules), game_params)

    def new_initial_state(self) -> EuchreState:
        """The state before the deal (a chance node picking the dealer)."""
        return EuchreState(self)

    def max_chance_nodes_in_history(self) -> int:
        """The dealer, ``5 P`` dealt cards and the upcard."""
        return 1 + HAND_SIZE * self.rules.num_players + 1

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> EuchreObserver:
        """An observer of one seat; ``perfect_recall`` gives the information state."""
        return EuchreObserver(self.rules, iig_obs_type, params)


class FourHandedEuchreGame(EuchreGame):
    """``python_euchre_four_handed``: North American four-handed Euchre (partners across)."""

    variant = "four_handed"


class FiveHandedEuchreGame(EuchreGame):
    """``python_euchre_five_handed``: five-handed called-card Euchre (hidden partner)."""

    variant = "five_handed"


class _Table(Table):
    """The engine's single table, copied cheaply when OpenSpiel clones a state."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Table:
        new = object.__new__(_Table)
        new.__dict__.update(self.__dict__)  # rules, lookup tables and caches of constants are shared
        for name in _STATE_FIELDS:  # the mutable per-table values: ints and (nested) lists
            value = getattr(self, name)
            if isinstance(value, list):
                setattr(new, name, [list(v) if isinstance(v, list) else v for v in value])
        new._static_obs = dict(self._static_obs)  # observe()'s per-viewer cache, valid for this hand
        return new


class _Core:
    """Everything an ``EuchreState`` holds, in one object OpenSpiel deep-copies on ``clone``.

    Attributes:
        rules: the game's rules (shared between copies: immutable).
        dealer: the dealer's seat, -1 before the first chance node.
        dealt: card ids dealt so far, in deal order (hands from the dealer's left, then the upcard).
        table: the engine's table once the deal is complete, else None.
    """

    __slots__ = ("dealer", "dealt", "rules", "table")

    def __init__(self, rules: RulesConfig) -> None:
        self.rules = rules
        self.dealer = -1
        self.dealt: list[int] = []
        self.table: _Table | None = None

    def __deepcopy__(self, memo: dict[int, Any]) -> _Core:
        new = _Core(self.rules)
        new.dealer, new.dealt = self.dealer, list(self.dealt)
        new.table = None if self.table is None else self.table.__deepcopy__(memo)
        return new

    def __getstate__(self) -> dict[str, Any]:  # pickle (OpenSpiel's state serialisation)
        return {"rules": self.rules, "dealer": self.dealer, "dealt": self.dealt, "table": self.table}

    def __setstate__(self, d: dict[str, Any]) -> None:
        for k, v in d.items():
            setattr(self, k, v)

    def seat_of(self, k: int) -> int:
        """The seat that receives the ``k``-th dealt card (``k < 5 P``)."""
        return (self.dealer + 1 + k // HAND_SIZE) % self.rules.num_players

    def dealt_to(self, seat: int) -> list[int]:
        """Cards dealt to ``seat`` so far (during the deal)."""
        p = self.rules.num_players
        return sorted(c for k, c in enumerate(self.dealt[: HAND_SIZE * p]) if self.seat_of(k) == seat)

    def finish_deal(self) -> None:
        """Start the engine's hand from the dealt cards."""
        p, r = self.rules.num_players, self.rules
        hands = [[cards.name(c) for c in self.dealt_to(s)] for s in range(p)]
        upcard = self.dealt[HAND_SIZE * p]
        kitty = [cards.name(c) for c in r.deck if c not in set(self.dealt)]
        deal = {"dealer": self.dealer, "hands": hands, "upcard": cards.name(upcard), "kitty": kitty}
        self.table = _Table(init_state(r, seeds=[0], deals=[deal]), r)


class EuchreState(pyspiel.State):
    """A state of one hand: the deal as chance nodes, then the engine's decisions."""

    def __init__(self, game: EuchreGame) -> None:
        super().__init__(game)
        self._core = _Core(game.rules)

    # --- the OpenSpiel State API ------------------------------------------------
    def current_player(self) -> int:
        """The seat to act, ``PlayerId.CHANCE`` during the deal, ``PlayerId.TERMINAL`` at the end."""
        t = self._core.table
        if t is None:
            return pyspiel.PlayerId.CHANCE
        return pyspiel.PlayerId.TERMINAL if t.done else t.turn

    def _legal_actions(self, player: int) -> list[int]:
        """The engine's legal action ids of the seat to act, ascending."""
        t = self._core.table
        return [] if t is None or player != t.turn else t.legal_actions()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Dealer seats, then the cards not dealt yet, each equally likely."""
        c = self._core
        if c.table is not None:
            raise ValueError("chance_outcomes: the deal is over, this is not a chance node")
        if c.dealer < 0:
            p = c.rules.num_players
            return [(s, 1.0 / p) for s in range(p)]
        dealt = set(c.dealt)
        left = [x for x in c.rules.deck if x not in dealt]
        return [(x, 1.0 / len(left)) for x in left]

    def _apply_action(self, action: int) -> None:
        """Deal (chance) or apply a seat's action; an illegal one raises ``ValueError``."""
        c, a = self._core, int(action)
        if c.table is None:
            legal = [x for x, _ in self.chance_outcomes()]
            if a not in legal:
                what = "a dealer seat" if c.dealer < 0 else "a card id not dealt yet"
                raise ValueError(f"chance outcome {a} is not {what}; legal: {legal}")
            if c.dealer < 0:
                c.dealer = a
            else:
                c.dealt.append(a)
                if len(c.dealt) == HAND_SIZE * c.rules.num_players + 1:
                    c.finish_deal()
            return
        if not c.table.is_legal(a):
            legal = ", ".join(f"{x} ({actions.describe(x)})" for x in c.table.legal_actions())
            raise ValueError(
                f"action {a} is not legal for player {c.table.turn} in phase "
                f"{actions.Phase(c.table.phase).name}; legal: {legal}"
            )
        c.table.step(a)

    def _action_to_string(self, player: int, action: int) -> str:
        """``"dealer player_2"``, ``"deal AS"``, ``"upcard 9H"``, or the action's words (``"play AS"``)."""
        c = self._core
        if player == pyspiel.PlayerId.CHANCE:
            if c.dealer < 0:
                return f"dealer {render.agent_name(action)}"
            if c.table is None and len(c.dealt) == HAND_SIZE * c.rules.num_players:
                return f"upcard {cards.name(action)}"
            return f"deal {cards.name(action)}"
        return actions.describe(action)

    def is_terminal(self) -> bool:
        """Whether the hand is over."""
        t = self._core.table
        return t is not None and t.done

    def returns(self) -> list[float]:
        """Each seat's points for the hand once it is over (the engine's ``last_points``), else zeros."""
        t = self._core.table
        if t is None or not t.done:
            return [0.0] * self._core.rules.num_players
        return [float(x) for x in t.last_points]

    def __str__(self) -> str:
        """The whole state (every hand, the kitty): for debugging, not for a player."""
        c = self._core
        if c.table is None:
            dealer = render.agent_name(c.dealer) if c.dealer >= 0 else "not chosen"
            return f"dealing: dealer {dealer}; dealt: {' '.join(cards.name(x) for x in c.dealt) or '-'}"
        t = c.table
        hands = "; ".join(
            f"{render.agent_name(s)}: {' '.join(cards.name(x) for x in cards.cards_of(h)) or '-'}"
            for s, h in enumerate(t.hands)
        )
        kitty = " ".join(cards.name(x) for x in cards.cards_of(t.kitty)) or "-"
        discard = cards.name(t.discard) if t.discard >= 0 else "-"
        public = render.to_ansi(t.state(), c.rules)
        return f"hands: {hands}\nkitty: {kitty}   discard: {discard}\n{public}"

    # --- views ------------------------------------------------------------------
    def engine_state(self) -> State | None:
        """A copy of the engine's one-table ``State`` once the deal is complete, else None."""
        t = self._core.table
        return None if t is None else t.state()


def trick_history(t: Table) -> str:
    """Every trick played so far, each card with its player, and the winners (public)."""
    p = t.rules.num_players
    lines = []
    for k in range(min(t.trick_no + 1, NUM_TRICKS)):
        played = t.trick_cards[k]
        if all(x < 0 for x in played):
            break
        lead = t.trick_winner[k - 1] if k > 0 else t.dealer + 1
        order = [(lead + i) % p for i in range(p)]
        shown = ", ".join(f"{render.agent_name(s)} {cards.name(played[s])}" for s in order if played[s] >= 0)
        winner = t.trick_winner[k]
        end = f" -> won by {render.agent_name(winner)}" if winner >= 0 else ""
        lines.append(f"trick {k + 1}: {shown}{end}")
    return "\n".join(lines)


class EuchreObserver:
    """One seat's observation (OpenSpiel's ``PyObserver`` interface: ``tensor``, ``dict``, ``set_from``,
    ``string_from``).

    ``tensor`` is the observation vector of :mod:`euchre_env.encoding` (float32),
    ``dict`` its named pieces (views of ``tensor``).
    """

    def __init__(
        self,
        rules: RulesConfig,
        iig_obs_type: pyspiel.IIGObservationType | None,
        params: dict[str, Any] | None,
    ) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
            raise ValueError(
                "only single-seat observations are provided (public_info=True, private_info=SINGLE_PLAYER); "
                f"got public_info={iig_obs_type.public_info}, private_info={iig_obs_type.private_info}"
            )
        self.rules = rules
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.layout = obs_layout(rules)
        self.tensor = np.zeros(self.layout.size, np.float32)
        self.dict = {name: self.tensor[self.layout.slice(name)] for name, _, _ in self.layout.pieces}

    def set_from(self, state: EuchreState, player: int) -> None:
        """Write ``player``'s observation of ``state`` into ``tensor``."""
        c = state._core
        if c.table is not None:
            self.tensor[:] = observe(c.table, player)
            return
        self.tensor.fill(0)  # during the deal: the dealer and my cards so far
        if c.dealer >= 0:
            self.dict["dealer"][(c.dealer - player) % self.rules.num_players] = 1
            self.dict["hand"][c.dealt_to(player)] = 1

    def string_from(self, state: EuchreState, player: int) -> str:
        """``player``'s view as text: the table (``render.to_ansi``), and with perfect recall every trick."""
        c = state._core
        if c.table is None:
            if c.dealer < 0:
                return f"dealing; {render.agent_name(player)}"
            mine = " ".join(cards.name(x) for x in c.dealt_to(player)) or "-"
            return (
                f"dealing; dealer {render.agent_name(c.dealer)}; hand of {render.agent_name(player)}: {mine}"
            )
        text = render.to_ansi(c.table.state(), self.rules, viewer=player)
        if self.perfect_recall:
            history = trick_history(c.table)
            text += "\n" + (history or "no card played yet")
        return text


for _game in (FourHandedEuchreGame, FiveHandedEuchreGame):
    pyspiel.register_game(game_type(_game.variant), _game)
