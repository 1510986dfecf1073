"""What the browser is sent: a seat's view of a table as JSON (cards, bids, tricks, the hand's story, beliefs).

Every view is built from :func:`euchre_env.render.table_view` of one seat, the public trick history and the
hand's story as :class:`apps.play.Narrator` tells it to that seat, so no hidden card of another seat is in it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from apps.play import Narrator, card_text, phase_words
from euchre_env import actions, cards
from euchre_env.actions import Phase
from euchre_env.render import TableView, agent_name, table_view
from euchre_env.rules import RulesConfig
from euchre_env.state import State

MAX_LOG = 400  # lines of the hand's story kept per game


def card_json(card: int) -> dict[str, Any]:
    """A card for the page: ``{"id", "name": "TH", "label": "10♥", "rank", "suit", "symbol", "red"}``."""
    name = cards.name(card)
    suit = int(card) // cards.NUM_RANKS
    return {
        "id": int(card),
        "name": name,
        "label": card_text(card),
        "rank": "10" if name[0] == "T" else name[0],
        "suit": name[1],
        "symbol": cards.SUIT_SYMBOLS[suit],
        "red": suit in (cards.DIAMONDS, cards.HEARTS),
    }


def _suit_json(suit: int | None) -> dict[str, Any] | None:
    if suit is None:
        return None
    return {"id": suit, "name": cards.SUIT_NAMES[suit], "symbol": cards.SUIT_SYMBOLS[suit],
            "red": suit in (cards.DIAMONDS, cards.HEARTS)}  # fmt: skip


def action_json(action: int) -> dict[str, Any]:
    """A legal move for the page: its id, words, kind and card (for play, discard and call)."""
    a = int(action)
    if a < actions.DISCARD_BASE:
        kind = "play"
    elif a < actions.CALL_BASE:
        kind = "discard"
    elif a < actions.PASS:
        kind = "call"
    else:
        kind = "bid"
    card = card_json(a % cards.NUM_CARDS) if a < actions.PASS else None
    label = card["label"] if card else actions.describe(a)
    return {"id": a, "name": actions.describe(a), "kind": kind, "card": card, "label": label}


def _trick_json(index: int, leader: int, winner: int | None, played: Sequence[tuple[int, int]]) -> dict:
    return {
        "index": index,
        "leader": leader,
        "winner": winner,
        "cards": [{"seat": seat, "card": card_json(c)} for seat, c in played],
    }


class HandStory:
    """The public story of the hands at one table as one seat is told it, step by step.

    ``lines``: :class:`apps.play.Narrator`'s words for the seat (or for a
    spectator, ``viewer`` None); ``tricks``: the current hand's finished
    tricks with their winners; ``last_tricks``: those of the hand before (a
    game deals on as soon as a hand ends). Only public facts and what the
    viewer's seat may see go in.
    """

    def __init__(self, rules: RulesConfig, viewer: int | None) -> None:
        self.rules = rules
        self.narrator = Narrator(rules, viewer, symbols=True)
        self.lines: list[str] = []
        self.tricks: list[dict[str, Any]] = []
        self.last_tricks: list[dict[str, Any]] | None = None

    def start(self, s: State) -> None:
        """A new hand was dealt (the first of an episode)."""
        self.tricks = []
        self._say(["", *self.narrator.hand_header(s)])

    def step(self, before: State, seat: int, action: int, after: State) -> None:
        """``seat`` took ``action`` in ``before``, giving ``after``."""
        self._say(self.narrator.after_step(before, seat, action, after))
        if int(before.phase[0]) == Phase.PLAY:
            self._trick(before, seat, action, after)
        if bool(after.hand_over[0]) and int(after.phase[0]) != Phase.DONE:  # a game dealt the next hand
            self.last_tricks, self.tricks = self.tricks, []

    def _trick(self, before: State, seat: int, card: int, after: State) -> None:
        p = self.rules.num_players
        done_before = [int(x) for x in before.tricks_won[0, :p]]
        counts = [int(x) for x in (after.last_tricks[0] if bool(after.hand_over[0]) else after.tricks_won[0])]
        if sum(counts[:p]) == sum(done_before):
            return  # the trick goes on
        t, n = int(before.trick_no[0]), int(before.n_played[0])
        leader = int(before.leader[0])
        order = [(leader + k) % p for k in range(p)]
        played = [
            (x, int(before.trick_cards[0, t, x])) for x in order if int(before.trick_cards[0, t, x]) >= 0
        ]
        assert len(played) == n
        winner = next(x for x in range(p) if counts[x] > done_before[x])
        self.tricks.append(_trick_json(t, leader, winner, [*played, (seat, int(card))]))

    def _say(self, lines: Sequence[str]) -> None:
        self.lines.extend(lines)
        del self.lines[:-MAX_LOG]


def _seats_json(v: TableView, rules: RulesConfig, names: Sequence[str], human: int | None) -> list[dict]:
    out = []
    for seat in range(rules.num_players):
        out.append({
            "seat": seat,
            "label": agent_name(seat),
            "agent": names[seat],
            "you": seat == human,
            "dealer": seat == v.dealer,
            "maker": seat == v.maker,
            "to_act": seat == v.to_act,
            "cards": v.hand_counts[seat],
            "tricks": v.tricks_won[seat],
            "score": v.scores[seat],
            "sitting_out": seat in v.sitting_out,
            "defends_alone": seat == v.defender_alone,
            "partner_known": v.called_holder == seat,
        })  # fmt: skip
    return out


def view_json(
    s: State,
    rules: RulesConfig,
    viewer: int | None,
    names: Sequence[str],
    story: HandStory,
    *,
    reveal_all: bool = False,
) -> dict[str, Any]:
    """What the page shows of table 0 of ``s`` to seat ``viewer`` (None: the seat to act, for replays).

    Everything comes from ``table_view(s, rules, viewer)`` and ``story``,
    except with ``reveal_all`` (replays of a finished hand), which adds every
    seat's hand, the kitty, the discard and the hidden partner.
    """
    v = table_view(s, rules, viewer)
    trick = None
    if v.trick is not None:
        trick = _trick_json(v.trick.index, v.trick.leader, v.trick.winner, v.trick.cards)
    summary = None
    if v.summary is not None:
        h = v.summary
        summary = {
            "maker": h.maker, "trump": _suit_json(h.trump), "alone": h.alone,
            "called": card_json(h.called) if h.called is not None else None,
            "partner": h.partner, "points": list(h.points),
            "tricks": [int(x) for x in s.last_tricks[0, : rules.num_players]],
        }  # fmt: skip
    over = v.phase == Phase.DONE
    out: dict[str, Any] = {
        "variant": rules.variant,
        "num_players": rules.num_players,
        "episode": rules.episode,
        "points_to_win": rules.points_to_win,
        "viewer": v.viewer,
        "hand_no": v.hand_no,
        "phase": v.phase.name,
        "phase_words": "hand over" if over else phase_words(v),
        "dealer": v.dealer,
        "upcard": card_json(v.upcard) if v.upcard >= 0 else None,
        "upcard_fate": v.upcard_fate,
        "bids": [{"round": r, "bids": [{"seat": x, "word": w} for x, w in words]} for r, words in v.bids],
        "trump": _suit_json(v.trump),
        "maker": v.maker,
        "alone": v.alone,
        "with_partner": v.with_partner,
        "called": card_json(v.called) if v.called is not None else None,
        "called_holder": v.called_holder,
        "reveal_trick": v.reveal_trick,
        "defender_alone": v.defender_alone,
        "trick": trick,
        "tricks": list(story.tricks),
        "last_tricks": story.last_tricks,
        "seats": _seats_json(v, rules, names, viewer),
        "tricks_won": list(v.tricks_won),
        "scores": list(v.scores),
        "summary": summary,
        "to_act": v.to_act,
        "hand": [card_json(c) for c in v.hand],
        "discard": card_json(v.discard) if v.discard is not None else None,
        "log": list(story.lines),
        "game_over": over and rules.episode == "game",
        "winners": [x for x in range(rules.num_players) if int(s.winners[0]) >> x & 1],
    }
    if reveal_all:  # a replay with every card shown: the table seen from seat 0's side, no "own" hand
        p = rules.num_players
        partner = int(s.partner[0]) if int(s.partner[0]) >= 0 else None
        out.update(viewer=None, hand=[], discard=None, partner=partner)
        if v.called is not None:
            out["called_holder"] = partner
        for seat in out["seats"]:
            seat["partner_known"] = v.called is not None and seat["seat"] == partner
        out["all_hands"] = [[card_json(c) for c in cards.cards_of(int(h))] for h in s.hands[0, :p]]
        hidden_kitty = (
            int(s.kitty[0]) & ~(1 << int(s.upcard[0])) if int(s.upcard[0]) >= 0 else int(s.kitty[0])
        )
        out["kitty"] = [card_json(c) for c in cards.cards_of(hidden_kitty)]
        out["dealer_discard"] = card_json(int(s.discard[0])) if int(s.discard[0]) >= 0 else None
    return out


def belief_json(s: State, rules: RulesConfig, seat: int) -> dict[str, Any] | None:
    """Five-handed: seat's exact belief over who is the maker's hidden partner, None when there is none yet."""
    if not rules.called_card:
        return None
    from euchre_env.beliefs import ExactBelief

    result = ExactBelief()(s, rules, seat)
    if not bool(result.defined[0]):
        return None
    probs = [float(x) for x in result.probs[0]]
    return {
        "seat": seat,
        "kind": "exact",
        "seats": [{"seat": x, "p": probs[x]} for x in range(rules.num_players)],
        "no_partner": probs[rules.num_players],
    }
