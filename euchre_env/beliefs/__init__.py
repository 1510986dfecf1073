"""Who is the maker's hidden partner? Rules-only beliefs from a seat's view or the public view.

In five-handed called-card Euchre the maker names a card it does not hold (or
goes alone); the card's holder is the maker's partner, known only to that
holder until the card is played. This module gives the belief over "who is
the partner" from any view of a table, at any decision, batched over tables.

**Views.** ``viewer`` is an absolute seat ``0 .. P-1`` (what that player
sees: its observation, :func:`euchre_env.encoding.encode`) or ``PUBLIC``
(-1: a spectator who sees every bid, declaration and played card and the
upcard, but no hand and not the dealer's discard). A belief is computed from
the view's observation vector alone (the public observation is a seat's with
its private pieces ``hand``, ``my_discard`` and ``i_hold_called`` zeroed), so
nothing the view cannot see can move it. An int or a (B,) array of viewers,
``PUBLIC`` allowed per table.

**Layout.** A belief is a float64 array of shape ``(B, P + 1)``: column
``s < P`` is the probability that absolute seat ``s`` is the maker's partner;
column ``P`` ("no partner") that the maker has none, because it declared
alone or called a card that is out of play (in the kitty or the dealer's
discard). The maker's own column is 0 and rows sum to 1. A row is NaN where
there is nothing to believe yet: before the maker has declared (bidding, the
dealer's discard, the call decision itself). ``BeliefResult.defined`` marks
the other rows. Beliefs are for the five-handed game only: four-handed
partners sit opposite each other, so asking raises ``ValueError``.

**Kinds, one interface.** ``PartnerBelief`` subclasses implement
``from_observations(observations, rules, public)`` (relative frame); calling
one on a state and viewers gives absolute seats. ``ExactBelief`` (here),
``UniformBelief`` (a naive baseline, here) and ``agents.beliefs.PolicyBelief``
(worlds weighted by a model of the players); a learned classifier would
implement ``from_observations`` the same way.

**Exact rules-only counting.** A *consistent deal* places each card the view
cannot see (the hidden kitty cards, the unseen hands, the dealer's discard
when it is hidden) so that every place holds its number of cards and the
rules of the hand so far hold: no seat holds a card of an effective suit it
failed to follow (bowers included), the maker did not hold the called card
when calling (after any discard), and a taken upcard is in the dealer's hand
or discard. All consistent deals are equally likely (a uniform deal, the
dealer discarding any of its six cards alike, bids and plays counting as no
evidence beyond those rules: the measure ``infoset.sample_worlds`` samples
for a seat), and the belief is the fraction of them in which each seat holds
the called card (no partner: the kitty or the discard holds it). It is counted,
not sampled: cards allowed in every place with room ("free" cards) are
exchangeable, so once the others are placed they fill the remaining room in
``m! / prod(room!)`` ways; a small dynamic programme over the other
("constrained") cards, the called card first, tracks how many went to each
place, leaving the roomiest place implicit (:mod:`euchre_env.beliefs.counting`).
``sample_view_worlds`` draws worlds uniformly from the same tables
(sequential placement, no rejection).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.beliefs import counting
from euchre_env.encoding import encode, obs_layout
from euchre_env.infoset import onehot_index, pieces, public_state, refresh_derived
from euchre_env.rules import RulesConfig
from euchre_env.state import State

__all__ = [
    "PRIVATE_PIECES",
    "PUBLIC",
    "BeliefResult",
    "ExactBelief",
    "PartnerBelief",
    "UniformBelief",
    "check_observations",
    "check_views",
    "exact_partner_belief",
    "sample_view_worlds",
    "settled_beliefs",
    "to_absolute",
    "view_observations",
]

PUBLIC = -1  # the spectator's view
PRIVATE_PIECES = ("hand", "my_discard", "i_hold_called")  # what a seat sees that the public does not
C = cards.NUM_CARDS


@dataclass(frozen=True)
class BeliefResult:
    """Beliefs of ``B`` views.

    Attributes:
        probs: (B, P + 1) float64; see the module docstring for the layout
            (absolute seats from ``PartnerBelief.__call__``, relative seats from
            ``from_observations``). NaN rows: nothing to believe yet.
        ess: (B,) float64 effective sample size of a sampled belief, NaN where
            no worlds were needed (the answer is certain or undefined); None
            for beliefs that do not sample.
    """

    probs: np.ndarray
    ess: np.ndarray | None = None

    @property
    def defined(self) -> np.ndarray:
        """(B,) bool: the rows that hold a belief (the maker has declared)."""
        return ~np.isnan(self.probs).any(axis=1)


class PartnerBelief(ABC):
    """A belief over the maker's partner: ``belief(state, rules, viewer) -> BeliefResult``."""

    name = "belief"

    def __call__(self, state: State, rules: RulesConfig, viewer: int | np.ndarray) -> BeliefResult:
        """Beliefs of ``viewer`` (a seat or ``PUBLIC``, one or (B,)) at each table, over absolute seats."""
        obs, frame, public = view_observations(state, rules, viewer)
        rel = self.from_observations(obs, rules, public)
        return BeliefResult(to_absolute(rel.probs, frame), rel.ess)

    @abstractmethod
    def from_observations(
        self, observations: np.ndarray, rules: RulesConfig, public: np.ndarray
    ) -> BeliefResult:
        """Beliefs from (B, D) view observations, in the observer's frame (column ``r`` = relative seat).

        ``public`` (B,) bool marks public views: the observation of any seat
        (``view_observations`` uses seat 0), whose private pieces are ignored;
        the belief is over that seat's relative frame.
        """

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class ExactBelief(PartnerBelief):
    """The rules-only belief, counted exactly over consistent deals (module docstring)."""

    name = "exact"

    def from_observations(
        self, observations: np.ndarray, rules: RulesConfig, public: np.ndarray
    ) -> BeliefResult:
        obs, public = check_observations(observations, rules, public)
        probs, open_ = settled_beliefs(obs, rules, public)
        rows = np.flatnonzero(open_)
        if rows.size:
            s = public_state(obs[rows], rules, np.random.default_rng(0))
            probs[rows] = counting.exact_weights(counting.places(s, rules, public[rows]), rules)
        return BeliefResult(probs)


class UniformBelief(PartnerBelief):
    """A naive baseline that reads no cards: what the view knows for sure, else uniform.

    Certain answers as ``ExactBelief`` (alone declared, the called card played,
    held by the viewer or seen out of play); otherwise each seat other than the
    maker and the viewer, and "no partner", is equally likely.
    """

    name = "uniform"

    def from_observations(
        self, observations: np.ndarray, rules: RulesConfig, public: np.ndarray
    ) -> BeliefResult:
        obs, public = check_observations(observations, rules, public)
        probs, open_ = settled_beliefs(obs, rules, public)
        p = rules.num_players
        maker = onehot_index(pieces(obs, rules)("maker"))
        cand = np.ones((obs.shape[0], p + 1), bool)
        cand[np.arange(obs.shape[0]), np.maximum(maker, 0)] = False
        cand[:, 0] &= public
        probs[open_] = (cand / cand.sum(axis=1, keepdims=True))[open_]
        return BeliefResult(probs)


def exact_partner_belief(state: State, rules: RulesConfig, viewer: int | np.ndarray) -> np.ndarray:
    """``ExactBelief()(state, rules, viewer).probs``: (B, P + 1) float64, absolute seats."""
    return ExactBelief()(state, rules, viewer).probs


# --- views --------------------------------------------------------------------


def check_views(state: State, rules: RulesConfig, viewer: int | np.ndarray) -> np.ndarray:
    """``viewer`` as an int64 (B,) array of seats or ``PUBLIC``; ValueError for bad input."""
    _check_rules(rules)
    if not isinstance(state, State):
        raise ValueError(f"state must be a euchre_env State, got {type(state).__name__}")
    if state.num_players != rules.num_players:
        raise ValueError(
            f"state has {state.num_players} seats but the {rules.variant} rules have {rules.num_players}"
        )
    v = np.asarray(viewer)
    if v.dtype == bool or not np.issubdtype(v.dtype, np.integer) or v.ndim > 1:
        raise ValueError(f"viewer must be a seat, PUBLIC (-1) or a (B,) array of them, got {viewer!r}")
    v = np.broadcast_to(v.astype(np.int64), (state.batch_size,)) if v.ndim == 0 else v.astype(np.int64)
    if v.shape != (state.batch_size,) or ((v < PUBLIC) | (v >= rules.num_players)).any():
        raise ValueError(
            f"viewer must be one of -1 (PUBLIC), 0..{rules.num_players - 1}, or a ({state.batch_size},) "
            f"array of them; got {viewer!r}"
        )
    return v


def view_observations(
    state: State, rules: RulesConfig, viewer: int | np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What each view sees: ``(observations (B, D) uint8, frame (B,) int64, public (B,) bool)``.

    A seat's view is its observation; the public view is seat 0's observation
    with the private pieces zeroed. ``frame`` is the absolute seat that is
    relative seat 0 (the viewer, or 0 for the public).
    """
    v = check_views(state, rules, viewer)
    public = v == PUBLIC
    frame = np.where(public, 0, v)
    obs = encode(state, frame, rules, np.uint8)
    lay = obs_layout(rules)
    for name in PRIVATE_PIECES:
        obs[public, lay.slice(name)] = 0
    return obs, frame, public


def to_absolute(rel: np.ndarray, frame: np.ndarray) -> np.ndarray:
    """(B, P + 1) beliefs over relative seats -> absolute seats (``NO_PARTNER`` stays last)."""
    p = rel.shape[1] - 1
    cols = (np.arange(p)[None, :] - np.asarray(frame)[:, None]) % p  # relative seat of absolute seat s
    return np.concatenate([np.take_along_axis(rel[:, :p], cols, axis=1), rel[:, p:]], axis=1)


def _check_rules(rules: RulesConfig) -> None:
    if not isinstance(rules, RulesConfig):
        raise ValueError(f"rules must be a RulesConfig, got {type(rules).__name__}")
    if not rules.called_card:
        raise ValueError(
            f"partner beliefs are for the five_handed game only: in the {rules.variant} game the "
            "partner sits opposite the maker and is never hidden"
        )


def check_observations(
    observations: np.ndarray, rules: RulesConfig, public: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``(observations > 0.5 (B, D) bool, public (B,) bool)``.

    A public row may be any seat's observation: its private pieces are zeroed here.

    Raises:
        ValueError: the four-handed game, or a bad shape or dtype (saying which argument).
    """
    _check_rules(rules)
    obs = np.asarray(observations)
    size = obs_layout(rules).size
    if obs.ndim != 2 or obs.shape[1] != size:
        raise ValueError(f"observations must have shape (B, {size}), got {obs.shape}")
    pub = np.asarray(public)
    if pub.dtype != bool or pub.shape not in ((), (obs.shape[0],)):
        raise ValueError(f"public must be a bool or a ({obs.shape[0]},) bool array, got {public!r}")
    pub = np.broadcast_to(pub, (obs.shape[0],))
    obs = obs > 0.5
    lay = obs_layout(rules)
    for name in PRIVATE_PIECES:
        obs[pub, lay.slice(name)] = False
    return obs, pub


# --- what a view knows for sure -----------------------------------------------


def settled_beliefs(obs: np.ndarray, rules: RulesConfig, public: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Beliefs that need no counting, and which rows do.

    Args:
        obs: (B, D) bool view observations; public: (B,) bool.

    Returns:
        ``probs`` (B, P + 1) float64 in the view's frame: one-hot where the
        answer is certain (alone; the called card played, held by the viewer,
        or seen out of play: the viewer's discard, the turned-down upcard, or
        a finished hand), NaN elsewhere; ``open`` (B,) bool: rows with a called
        card whose holder is uncertain.
    """
    p, b = rules.num_players, obs.shape[0]
    piece = pieces(obs, rules)
    called = onehot_index(piece("called_card", 1)[:, 0])
    alone = piece("alone")[:, 0]
    revealed = onehot_index(piece("revealed_by"))
    holds = piece("i_hold_called")[:, 0] & ~public
    discard = onehot_index(piece("my_discard", 1)[:, 0])
    up_down = (called == onehot_index(piece("upcard", 1)[:, 0])) & ~piece("upcard_taken")[:, 0]
    over = onehot_index(piece("phase")) == Phase.DONE
    col = np.full(b, -1)
    col = np.where(called >= 0, np.where((called == discard) | up_down | over, p, col), col)
    col = np.where(holds, 0, col)
    col = np.where(revealed >= 0, revealed, col)
    col = np.where(alone, p, col)
    probs = np.full((b, p + 1), np.nan)
    probs[col >= 0] = np.eye(p + 1)[col[col >= 0]]
    return probs, (col < 0) & (called >= 0)


# --- sampling ---------------------------------------------------------------------


def sample_view_worlds(
    observations: np.ndarray, rules: RulesConfig, public: np.ndarray, n: int, rng: np.random.Generator
) -> State:
    """``n`` worlds per view, uniform over the consistent deals (the measure ``ExactBelief`` counts).

    Args:
        observations: (B, D) view observations (``view_observations``), none of
            a finished hand. public: (B,) bool.
        n: worlds per view; rng: the only source of randomness.

    Returns:
        A ``State`` of ``B * n`` tables in each view's frame (relative seat 0 is
        the viewer, absolute seat 0 for the public); rows ``b * n ..`` belong to
        view ``b``. ``encode(world, 0)`` reproduces a seat's observation (its
        public pieces for a public view); ``partner`` is set.
    """
    obs, pub = check_observations(observations, rules, public)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n (worlds per view) must be a positive integer, got {n!r}")
    s = public_state(obs, rules, rng)
    pl = counting.places(s, rules, pub)
    b, L = pl.caps.shape
    where = np.full((b * n, C), -1, np.int64)  # place of each card in each world, -1 not hidden
    for grp in counting.groups(pl, full=True):
        owner = np.repeat(np.arange(grp.rows.size), n)
        worlds = (grp.rows[:, None] * n + np.arange(n)).reshape(-1)
        where[worlds] = counting.draw(grp, pl, owner, rng)
    world = s.take(np.repeat(np.arange(b), n))
    world.seed[:] = rng.integers(0, 2**63, size=world.batch_size, dtype=np.uint64)
    bits = cards.CARD_BIT.astype(np.uint64)
    put = lambda place: (np.where(where == place, bits, 0).sum(axis=1)).astype(np.uint32)
    world.kitty |= put(0)
    for r in range(rules.num_players):
        world.hands[:, r] |= put(1 + r)
    in_discard = where == L - 1
    got = in_discard.any(axis=1)
    world.discard[got] = in_discard[got].argmax(axis=1)
    taking = np.flatnonzero(world.phase == Phase.DISCARD)
    world.hands[taking, world.dealer[taking]] |= cards.CARD_BIT[world.upcard[taking]]
    called = np.maximum(world.called, 0).astype(np.uint32)
    holds = (world.hands >> called[:, None]) & 1 == 1
    holds |= (world.trick_cards == world.called[:, None, None]).any(axis=1)
    world.partner[:] = np.where((world.called >= 0) & holds.any(axis=1), holds.argmax(axis=1), -1)
    refresh_derived(world, rules)
    return world
