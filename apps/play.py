"""Play Euchre in the terminal against bots (``euchre play``, ``python -m apps.play``).

You sit at one seat of the PettingZoo environment (:mod:`euchre_env.envs.aec_env`);
every other seat is a bot (``heuristic`` by default; any ``agents.make_agent``
name such as ``random``, ``search``, ``trained`` or ``model:<path>``).

The hand is told as it happens: every bid (``player_2 passes``, ``player_3
orders up hearts``), the maker, trump, a lone hand or the called card
(five-handed), every card with the seat that played it, each trick's winner
with the trick count, and at the end of the hand the points and the scores
(four-handed: the two partnerships; five-handed: each player). Before each of
your decisions you see the phase in words, the upcard or the trick on the
table, your hand and your legal moves, numbered::

    [bidding, round 1] dealer player_3, upcard 9♥: order up to make hearts trump
    your hand: 9♣ J♣ | 10♦ Q♦ | K♥
    your move: 1) pass  2) order up
    >

Answer with the number, a card (``9♥``, ``9h``, ``10H``, ``TH``), a suit to
name (``spades``) or the words (``pass``, ``order up``, ``play AS``,
``alone``). Cards print with suit symbols, or with letters (``9H``) under
``--ascii`` or when the terminal cannot print the symbols. You are shown only
what your seat may know (:func:`euchre_env.render.table_view` decides it): the
bots' hands and discards never appear. Input comes from stdin, so a game can
be scripted::

    euchre play --variant four_handed --seat 0 --bots heuristic
    yes 1 | euchre play --hands 2          # always the first legal move
    euchre play --variant five_handed --seat -1 --game    # watch the bots play a game
    euchre play --hands 3 --record hands.jsonl           # keep the hands (euchre_env.records)

``--record FILE`` writes every hand finished as a hand record (JSON Lines,
one record per line), which ``euchre serve`` replays step by step.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

import numpy as np

from euchre_env import actions, cards
from euchre_env.actions import Phase
from euchre_env.envs.aec_env import raw_env
from euchre_env.records import HandRecorder, save_records
from euchre_env.render import TableView, agent_name, table_view
from euchre_env.rules import NUM_TRICKS, PRESETS, RulesConfig
from euchre_env.state import State
from euchre_env.types import Policy

__all__ = ["Narrator", "can_print", "card_text", "main", "parse_choice", "phase_words", "play"]

PHASE_WORDS = {
    Phase.BID_UPCARD: "bidding, round 1",
    Phase.DISCARD: "the dealer's discard",
    Phase.BID_SUIT: "bidding, round 2",
    Phase.CALL: "calling a partner card",
    Phase.DECLARE: "alone or with partner",
    Phase.DEFEND: "defending alone or not",
    Phase.PLAY: "trick play",
    Phase.DONE: "hand over",
}
_MENU_WIDTH = 96  # wrap the numbered moves at about this many characters


# --- words for cards, suits and moves ---------------------------------------


def card_text(card: int, symbols: bool = True) -> str:
    """A card as a person reads it: ``"10♥"``, ``"A♠"`` (symbols) or ``"10H"``, ``"AS"`` (letters).

    Both forms are accepted back as input (``cards.parse``).
    """
    name = cards.name(card)  # validates the id
    rank = "10" if name[0] == "T" else name[0]
    return rank + (cards.SUIT_SYMBOLS[int(card) // cards.NUM_RANKS] if symbols else name[1])


def _suit_text(suit: int, symbols: bool) -> str:
    name = cards.SUIT_NAMES[suit]
    return f"{name} {cards.SUIT_SYMBOLS[suit]}" if symbols else name


def _hand_text(hand: Sequence[int], symbols: bool) -> str:
    """Cards grouped by printed suit: ``"9♣ J♣ | A♦ | 10♥"``."""
    groups = [
        " ".join(card_text(c, symbols) for c in sorted(hand) if c // cards.NUM_RANKS == suit)
        for suit in range(cards.NUM_SUITS)
    ]
    return " | ".join(g for g in groups if g) or "(no cards)"


def _move_label(action: int, symbols: bool) -> str:
    """A legal move as the menu shows it: the card for play, discard and call; else the words."""
    if action < actions.PASS:  # play, discard, call: one card each
        return card_text(action % cards.NUM_CARDS, symbols)
    return actions.describe(action)


def _menu(legal: Sequence[int], symbols: bool) -> str:
    items = [f"{i}) {_move_label(a, symbols)}" for i, a in enumerate(legal, start=1)]
    lines, line = [], ""
    for item in items:
        if line and len(line) + 2 + len(item) > _MENU_WIDTH:
            lines.append(line)
            line = "  " + item
        else:
            line = f"{line}  {item}" if line else item
    return "\n".join([*lines, line])


def phase_words(v: TableView) -> str:
    """The phase of a view in words: ``"bidding, round 1"``, ``"trick 3 of 5"``."""
    if v.phase == Phase.PLAY:
        return f"trick {sum(v.tricks_won) + 1} of {NUM_TRICKS}"
    return PHASE_WORDS[v.phase]


def can_print(stream: TextIO, text: str) -> bool:
    """Whether ``stream``'s encoding can write ``text`` (a stream without one, like StringIO, can)."""
    encoding = getattr(stream, "encoding", None)
    if not encoding:
        return True
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def parse_choice(text: str, legal: Sequence[int], symbols: bool = True) -> int:
    """The action a player's answer means.

    Args:
        text: a number ``1 .. len(legal)`` (position in the printed list), a
            card (``"9♥"``, ``"9h"``, ``"10H"``) when the moves are cards, a
            suit (``"hearts"``, ``"♥"``, ``"H"``) when suits may be named, or
            action words as ``actions.describe`` writes them (``"play AS"``).
        legal: the legal action ids, in the order they were printed.
        symbols: print cards with suit symbols in error messages.

    Returns:
        A legal action id.

    Raises:
        ValueError: saying why the answer is not a legal action.
    """
    t = text.strip()
    labels = ", ".join(_move_label(a, symbols) for a in legal)
    if not t:
        raise ValueError("type the number of a move, a card such as 9H, or the words, e.g. 'pass'")
    if t.isdigit():
        k = int(t)
        if not 1 <= k <= len(legal):
            raise ValueError(f"{k} is not on the list: choose 1..{len(legal)}")
        return int(legal[k - 1])
    by_card = {a % cards.NUM_CARDS: int(a) for a in legal if a < actions.PASS}
    if by_card:
        try:
            card = cards.parse(t)
        except ValueError:
            card = None
        if card is not None:
            if card in by_card:
                return by_card[card]
            raise ValueError(f"{card_text(card, symbols)} is not legal now; legal: {labels}")
    by_suit = {
        a - actions.NAME_SUIT_BASE: int(a) for a in legal if actions.NAME_SUIT_BASE <= a < actions.ALONE
    }
    if by_suit:
        try:
            suit = cards.parse_suit(t)
        except ValueError:
            suit = None
        if suit is not None:
            if suit in by_suit:
                return by_suit[suit]
            raise ValueError(f"'name {cards.SUIT_NAMES[suit]}' is not legal now; legal: {labels}")
    a = actions.parse(t)
    if a not in legal:
        raise ValueError(f"{actions.describe(a)!r} is not legal now; legal: {labels}")
    return a


# --- telling the hand ---------------------------------------------------------


class Narrator:
    """Tells a hand to the person at seat ``human`` (None: a spectator of the bots).

    Every line comes from :func:`euchre_env.render.table_view` of that seat
    (what the seat may know), from the action just taken when it is public
    (every action but another seat's discard) and from the public record of
    the hand that just ended (tricks and points). Nothing else of the state
    is read, so nothing hidden can be told.

    Args:
        rules: the rules the table plays under.
        human: the person's seat, or None.
        symbols: write suits as ♣♦♥♠ (else letters).
    """

    def __init__(self, rules: RulesConfig, human: int | None, symbols: bool = True) -> None:
        self.rules = rules
        self.human = human
        self.symbols = symbols
        self.p = rules.num_players
        self.hands_told = 0
        self.totals = [0] * self.p  # points over the hands told (hand episodes)

    # --- names ---------------------------------------------------------------
    def view(self, s: State) -> TableView:
        """What the person's seat may see of ``s`` (the seat to act for a spectator)."""
        return table_view(s, self.rules, viewer=self.human)

    def name(self, seat: int) -> str:
        """``"player_2"``, or ``"player_0 (you)"`` for the person."""
        return f"{agent_name(seat)} (you)" if seat == self.human else agent_name(seat)

    def _says(self, seat: int, verb: str, verb_you: str) -> str:
        """``"player_2 passes"`` / ``"you pass"``."""
        return f"you {verb_you}" if seat == self.human else f"{agent_name(seat)} {verb}"

    def team(self, seat: int) -> str:
        """Four-handed partnership of ``seat``: ``"player_0 (you) & player_2"``."""
        a = seat % 2
        return f"{self.name(a)} & {self.name(a + 2)}"

    def card(self, c: int) -> str:
        """A card in the session's style (``"10♥"`` or ``"10H"``)."""
        return card_text(c, self.symbols)

    def suit(self, s: int) -> str:
        """A suit in the session's style (``"hearts ♥"`` or ``"hearts"``)."""
        return _suit_text(s, self.symbols)

    def _counts(self, label: str, values: Sequence[int]) -> str:
        """Per partnership (four-handed: the sum of the two seats) or per player."""
        if self.rules.called_card:
            return f"{label}: " + ", ".join(f"{self.name(i)} {int(values[i])}" for i in range(self.p))
        return f"{label}: " + ", ".join(
            f"{self.team(t)} {int(values[t]) + int(values[t + 2])}" for t in (0, 1)
        )

    def _scores(self, label: str, values: Sequence[int]) -> str:
        """Scores per partnership (each partner holds the side's score) or per player."""
        if self.rules.called_card:
            return f"{label}: " + ", ".join(f"{self.name(i)} {int(values[i])}" for i in range(self.p))
        return f"{label}: " + ", ".join(f"{self.team(t)} {int(values[t])}" for t in (0, 1))

    def contract(self, v: TableView) -> str:
        """``"trump hearts ♥, maker player_3, with partner player_1"`` and the like."""
        text = f"trump {self.suit(v.trump)}, maker {self.name(v.maker)}"
        if v.alone:
            text += ", alone"
        elif v.called is not None:
            text += f", called card {self.card(v.called)} ({self._partner_note(v)})"
        elif v.with_partner:
            text += f", with partner {self.name((v.maker + 2) % 4)}"
        if v.defender_alone is not None:
            text += f"; {self.name(v.defender_alone)} defends alone"
        return text

    def _partner_note(self, v: TableView) -> str:
        if v.reveal_trick is not None and v.called_holder is not None:
            return f"partner {self.name(v.called_holder)}"
        if v.called_holder is not None and v.called_holder == self.human:
            return "you hold it: you are the hidden partner"
        return "partner hidden"

    # --- what is said -----------------------------------------------------------
    def hand_header(self, s: State) -> list[str]:
        """A new deal: the dealer, the upcard, the sides and the person's hand."""
        v = self.view(s)
        number = v.hand_no if self.rules.episode == "game" else self.hands_told + 1
        lines = [f"--- hand {number}: {self.name(v.dealer)} deals, upcard {self.card(v.upcard)} ---"]
        if self.rules.called_card:
            lines.append(
                "five players, each scoring alone; the maker's partner is whoever holds the called card"
            )
        else:
            lines.append(f"partners: {self.team(0)}  vs  {self.team(1)}")
        if self.human is not None:
            lines.append(f"your hand: {_hand_text(v.hand, self.symbols)}")
        return lines

    def prompt(self, s: State) -> list[str]:
        """Before the person's decision: the phase in words, the table and the person's hand."""
        v = self.view(s)
        head = f"[{phase_words(v)}]"
        upcard = self.card(v.upcard)
        if v.phase == Phase.BID_UPCARD:
            verb = "pick it up" if v.dealer == self.human else "order it up"
            trump = self.suit(v.upcard // cards.NUM_RANKS)
            lines = [f"{head} dealer {self.name(v.dealer)}, upcard {upcard}: {verb} to make {trump} trump"]
        elif v.phase == Phase.BID_SUIT:
            lines = [f"{head} dealer {self.name(v.dealer)}; the {upcard} was turned down: name another suit"]
            if self.rules.stick_the_dealer and v.dealer == self.human:
                lines[0] += " (the dealer may not pass)"
        elif v.phase == Phase.DISCARD:
            lines = [f"{head} you picked up the {upcard}: discard one card face down"]
        else:
            lines = [f"{head} {self.contract(v)}"]
            if v.phase == Phase.CALL:
                lines.append(
                    "call a card you do not hold (its holder becomes your hidden partner), or go alone"
                )
            elif v.phase == Phase.DECLARE:
                lines.append(f"play alone ({self.name((v.maker + 2) % 4)} sits out) or with partner")
            elif v.phase == Phase.DEFEND:
                lines.append("defend alone against the lone maker (your partner sits out), or pass")
            elif v.phase == Phase.PLAY:
                t = v.trick
                on_table = [] if t is None or t.winner is not None else list(t.cards)
                if on_table:
                    lines.append(
                        "on the table: " + ", ".join(f"{self.name(x)} {self.card(c)}" for x, c in on_table)
                    )
                else:
                    lines.append("you lead")
                lines.append(self._counts("tricks", v.tricks_won))
        lines.append(f"your hand: {_hand_text(v.hand, self.symbols)}")
        return lines

    def after_step(self, before: State, seat: int, action: int, after: State) -> list[str]:
        """What happened when ``seat`` took ``action`` (``before`` -> ``after``)."""
        bv, av = self.view(before), self.view(after)
        ended = bool(after.hand_over[0])
        lines = self._action_lines(bv, seat, action, av, after)
        if not ended and bv.phase != Phase.PLAY and av.phase == Phase.PLAY:
            lead = av.trick.leader if av.trick is not None else av.to_act
            lines.append(f"== {self.contract(av)}; {self.name(lead)} leads ==")
        if ended:
            lines += self.hand_over(av, after)
            if av.phase == Phase.DONE and self.rules.episode == "game":
                lines += self.game_over(av)
            elif av.phase != Phase.DONE:  # the engine dealt the game's next hand
                lines += ["", *self.hand_header(after)]
        return lines

    def _action_lines(self, bv: TableView, seat: int, action: int, av: TableView, after: State) -> list[str]:
        ph, a = bv.phase, int(action)
        if ph == Phase.BID_UPCARD:
            if a == actions.ORDER_UP:
                trump = self.suit(bv.upcard // cards.NUM_RANKS)
                if seat == bv.dealer:
                    return [
                        self._says(seat, "picks up", "pick up")
                        + f" the {self.card(bv.upcard)}: {trump} trump"
                    ]
                return [
                    self._says(seat, "orders up", "order up")
                    + f" {trump} (the {self.card(bv.upcard)}); {self.name(bv.dealer)} picks it up"
                ]
            lines = [self._says(seat, "passes", "pass")]
            if av.phase == Phase.BID_SUIT:
                lines.append(
                    f"everyone passed: the {self.card(bv.upcard)} is turned down; round 2, name another suit"
                )
            return lines
        if ph == Phase.DISCARD:
            if seat == self.human:
                return [f"you discard the {self.card(a - actions.DISCARD_BASE)} face down"]
            return [f"{agent_name(seat)} discards a card face down"]
        if ph == Phase.BID_SUIT:
            if a == actions.PASS:
                return [self._says(seat, "passes", "pass")]
            return [self._says(seat, "names", "name") + f" {self.suit(a - actions.NAME_SUIT_BASE)} trump"]
        if ph == Phase.CALL:
            if a == actions.ALONE:
                return [self._says(seat, "goes alone", "go alone")]
            called = a - actions.CALL_BASE
            lines = [
                self._says(seat, "calls", "call")
                + f" the {self.card(called)}: its holder is the hidden partner"
            ]
            if self.human is not None and self.human != seat and av.called_holder == self.human:
                lines.append(
                    f"you hold the {self.card(called)}: you are {agent_name(seat)}'s hidden partner "
                    "(nobody knows until you play it)"
                )
            return lines
        if ph == Phase.DECLARE:
            partner = self.name((seat + 2) % 4)
            if a == actions.ALONE:
                return [self._says(seat, "goes alone", "go alone") + f": {partner} sits out"]
            return [self._says(seat, "plays with", "play with") + f" partner {partner}"]
        if ph == Phase.DEFEND:
            if a == actions.DEFEND_ALONE:
                return [
                    self._says(seat, "defends alone", "defend alone")
                    + f": {self.name((seat + 2) % 4)} sits out"
                ]
            return [self._says(seat, "does not defend alone", "do not defend alone")]
        if ph == Phase.PLAY:
            return self._card_lines(bv, seat, a, av, after)
        return []

    def _card_lines(self, bv: TableView, seat: int, card: int, av: TableView, after: State) -> list[str]:
        t = bv.trick
        leading = t is None or t.winner is not None or not t.cards
        line = self._says(seat, "leads" if leading else "plays", "lead" if leading else "play")
        line += f" {self.card(card)}"
        if bv.called is not None and card == bv.called:
            who = "you are" if seat == self.human else f"{agent_name(seat)} is"
            line += f": the called card, {who} {self.name(bv.maker)}'s partner"
        lines = [line]
        counts = [int(x) for x in (after.last_tricks[0] if bool(after.hand_over[0]) else av.tricks_won)]
        if sum(counts) == sum(bv.tricks_won):
            return lines  # the trick goes on
        played = dict(([] if leading else list(t.cards)) + [(seat, card)])
        winner = next(x for x in range(self.p) if counts[x] > bv.tricks_won[x])
        lines.append(
            f"trick {sum(bv.tricks_won) + 1} won by {self.name(winner)} with {self.card(played[winner])}; "
            + self._counts("tricks", counts)
        )
        return lines

    def hand_over(self, av: TableView, after: State) -> list[str]:
        """The hand that just ended: who made what, the tricks, the points and the scores."""
        h = av.summary
        assert h is not None, "hand_over needs the view of the step that ended a hand"
        self.hands_told += 1
        self.totals = [a + b for a, b in zip(self.totals, h.points, strict=True)]
        if h.maker is None:
            lines = ["--- hand over: everyone passed, the hand is thrown in; nobody scores ---"]
        else:
            counts = [int(x) for x in after.last_tricks[0]]
            if self.rules.called_card:
                partner = h.partner if h.partner is not None and not h.alone else None
                side = [h.maker] + ([partner] if partner is not None else [])
                makers = " & ".join(self.name(x) for x in side)
                if h.called is not None and partner is None:
                    makers += f" (the called {self.card(h.called)} was in the kitty)"
            else:
                side = [h.maker, (h.maker + 2) % 4]
                makers = self.name(h.maker) if h.alone else self.team(h.maker)
            if h.alone:
                makers += " alone"
            taken = sum(counts[x] for x in side)
            outcome = "a march! " if taken == NUM_TRICKS else ("" if taken >= 3 else "euchred! ")
            scorers = [x for x in range(self.p) if h.points[x] > 0]
            pts = h.points[scorers[0]] if scorers else 0
            each = " each" if len(scorers) > 1 else ""
            to = " & ".join(self.name(x) for x in scorers)
            tricks = f"{taken} of {NUM_TRICKS} tricks"
            points = f"{pts} point{'s' if pts != 1 else ''}{each} to {to}"
            lines = [f"--- hand over: {self.suit(h.trump)} made by {makers}: {tricks}, {outcome}{points} ---"]
        if self.rules.episode == "game":
            lines.append(self._scores(f"score (game to {self.rules.points_to_win})", after.scores[0]))
        else:
            n = self.hands_told
            lines.append(self._scores(f"total after {n} hand{'s' if n != 1 else ''}", self.totals))
        return lines

    def game_over(self, av: TableView) -> list[str]:
        """The end of a game: who reached the target."""
        top = max(av.scores)
        winners = [x for x in range(self.p) if av.scores[x] == top]
        who = (
            self.team(winners[0]) if not self.rules.called_card else " & ".join(self.name(x) for x in winners)
        )
        return [f"=== game over: {who} win{'s' if len(winners) == 1 and self.rules.called_card else ''} ==="]


# --- the session --------------------------------------------------------------


def _ask(legal: Sequence[int], inp: TextIO, out: TextIO, symbols: bool) -> int | None:
    """Prompt until a legal answer; None at end of input."""
    while True:
        out.write(f"your move: {_menu(legal, symbols)}\n> ")
        out.flush()
        line = inp.readline()
        if not line:
            return None
        if not inp.isatty():  # echo scripted answers so a transcript reads like a session
            out.write(line if line.endswith("\n") else line + "\n")
        try:
            return parse_choice(line, legal, symbols)
        except ValueError as err:
            out.write(f"  {err}\n")


def _say(out: TextIO, lines: Sequence[str]) -> None:
    out.writelines(line + "\n" for line in lines)


def play(
    env: raw_env,
    human: int | None,
    bots: dict[int, Policy],
    hands: int,
    seed: int | None,
    inp: TextIO,
    out: TextIO,
    symbols: bool = True,
    recorder: HandRecorder | None = None,
) -> list[float] | None:
    """Play ``hands`` episodes, telling them on ``out``; returns each seat's total reward, or None if the
    input ended early.

    Args:
        env: an unwrapped PettingZoo env (``raw_env``; its render mode is not used).
        human: the human's seat (None: bots only).
        bots: a policy for every other seat.
        hands: episodes to play (hands, or games with ``episode="game"``).
        seed: seed of the first deal (and of the bots' randomness).
        inp, out: the terminal.
        symbols: print suits as ♣♦♥♠ (else letters).
        recorder: records every hand finished (``recorder.records``).
    """
    rng = np.random.default_rng(seed)
    narrator = Narrator(env.rules, human, symbols)
    totals = [0.0] * env.rules.num_players
    for episode in range(hands):
        env.reset(seed=None if seed is None else seed + episode)
        out.write(f"\n=== {env.rules.variant}, episode {episode + 1} of {hands} ===\n")
        _say(out, narrator.hand_header(env.engine_state))
        for agent in env.agent_iter():
            obs, reward, done, truncated, _ = env.last()
            seat = int(agent.rsplit("_", 1)[1])
            totals[seat] += float(reward)  # rewards gathered since this agent last acted
            if done or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"]).tolist()
            before = env.engine_state
            if seat == human:
                out.write("\n")
                _say(out, narrator.prompt(before))
                action = _ask(legal, inp, out, symbols)
                if action is None:
                    out.write("\nend of input: game abandoned\n")
                    return None
            else:
                mask = obs["action_mask"].astype(bool)[None]
                action = int(bots[seat].act(obs["observation"][None], mask, rng)[0])
            if recorder is not None:
                recorder(before, np.array([action], np.int64))
            env.step(action)
            _say(out, narrator.after_step(before, seat, action, env.engine_state))
        if recorder is not None:
            recorder.finish(env.engine_state)
    out.write(f"\ntotal rewards: {', '.join(f'player_{i} {r:g}' for i, r in enumerate(totals))}\n")
    return totals


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``euchre play``."""
    parser.add_argument("--variant", default="four_handed", choices=sorted(PRESETS), help="rules preset")
    parser.add_argument(
        "--seat", type=int, default=0, help="your seat (0 .. players-1; -1 to watch bots play)"
    )
    parser.add_argument("--bots", nargs="+", default=["heuristic"],
                        help="agent name for every other seat, or one name per other seat from your left "
                        "(heuristic, random, search, trained, model:<path>)")  # fmt: skip
    parser.add_argument("--hands", type=int, default=1, help="hands (or games with --game) to play")
    parser.add_argument("--game", action="store_true", help="play whole games to --points-to-win")
    parser.add_argument("--points-to-win", type=int, default=None, help="game target (default: the preset's)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the deals and the bots")
    parser.add_argument("--record", default=None, metavar="FILE",
                        help="write the hands played to FILE as hand records (JSON Lines; euchre serve "
                        "replays them)")  # fmt: skip
    parser.add_argument("--ascii", action="store_true",
                        help="write suits as letters (9H) instead of symbols (9♥); automatic when the "
                        "terminal cannot print the symbols")  # fmt: skip


def _parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="euchre play", description="Play Euchre in the terminal against bots.")
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.record is not None:
        record = Path(args.record)
        if record.is_dir():
            parser.error(f"--record {args.record!r} is a folder; it takes a file (hand records, JSON Lines)")
        if not record.absolute().parent.is_dir():
            parser.error(f"--record {args.record!r}: its folder {str(record.parent)!r} does not exist")
    return args


def main(argv: Sequence[str] | None = None, inp: TextIO | None = None, out: TextIO | None = None) -> int:
    """CLI entry point (also ``euchre play``). Returns 0, or 1 if the input ended before the end."""
    from agents import make_agent

    args = _parse_args(argv)
    settings = {"episode": "game"} if args.game else {}
    if args.points_to_win is not None:
        settings["points_to_win"] = args.points_to_win
    env = raw_env(args.variant, **settings)
    p = env.rules.num_players
    if not -1 <= args.seat < p:
        raise SystemExit(f"euchre play: --seat must be -1 (watch) or a seat in 0..{p - 1}, got {args.seat}")
    human = None if args.seat < 0 else args.seat
    first, count = (0, p) if human is None else (human + 1, p - 1)
    others = [(first + k) % p for k in range(count)]  # from the human's left
    if len(args.bots) not in (1, len(others)):
        raise SystemExit(
            f"euchre play: --bots takes one agent name or {len(others)} (one per other seat), got {args.bots}"
        )
    names = args.bots * len(others) if len(args.bots) == 1 else args.bots
    if any(n == "trained" or n.startswith("model:") for n in names):
        import torch

        torch.set_num_threads(1)  # one decision at a time: more threads only add overhead
    try:
        policies = {n: make_agent(n, env.rules) for n in dict.fromkeys(names)}  # one instance per name
    except ValueError as err:
        raise SystemExit(f"euchre play: --bots: {err}") from None
    bots = {seat: policies[n] for seat, n in zip(others, names, strict=True)}
    if args.hands < 1:
        raise SystemExit(f"euchre play: --hands must be at least 1, got {args.hands}")
    out = out or sys.stdout
    symbols = not args.ascii and can_print(out, cards.SUIT_SYMBOLS)
    agents = ["human" if x == human else names[others.index(x)] for x in range(p)]
    recorder = HandRecorder(env.rules, agents=agents) if args.record else None
    result = play(env, human, bots, args.hands, args.seed, inp or sys.stdin, out, symbols, recorder)
    if recorder is not None:
        save_records(args.record, recorder.records)
        out.write(f"wrote {len(recorder.records)} hand record(s) to {args.record}\n")
    return 0 if result is not None else 1


if __name__ == "__main__":
    sys.exit(main())
