"""What one seat may see of a table, and that view as text (OpenSpiel ``ToString`` style).

:func:`table_view` decides, once, what a viewer may see of one table of a
batched engine ``State``: its own hand (and its own discard if it dealt), the
upcard, the dealer, the bids so far, trump / maker / alone / the called card,
the current (or last finished) trick, tricks won, how many cards each seat
holds, the running scores and the summary of a hand that just ended. It never
holds another seat's hand, the hidden kitty or another seat's discard
(rules.md#c8), and names the hidden partner only once the called card is
played, to the seat holding it, or in the summary of a finished hand (by then
every card has been played). :func:`to_ansi` writes that view as text and
:func:`euchre_env.render_image.to_rgb` draws it, so both show the same things.

Seats are written ``player_0 .. player_{P-1}`` as in the PettingZoo env.
Example (four-handed, ``viewer`` = the seat to act)::

    Euchre (four_handed), hand 1, phase PLAY
    dealer: player_0   upcard: 9H (taken by the dealer)
    bids: round 1: player_1 pass, player_2 pass, player_3 order up
    trump: hearts   maker: player_3   with partner
    trick 1, led by player_1: player_1 AS, player_2 KS
    tricks won: player_0 0, player_1 0, player_2 0, player_3 0
    scores: player_0 0, player_1 0, player_2 0, player_3 0
    to act: player_3
    hand of player_3: JC | TD QD | 9H KH
"""

from __future__ import annotations

from dataclasses import dataclass

from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.rules import RulesConfig
from euchre_env.state import State

__all__ = ["HandSummary", "TableView", "TrickView", "agent_name", "table_view", "to_ansi"]

UPCARD_TAKEN = "taken by the dealer"
UPCARD_TURNED_DOWN = "turned down"


def agent_name(seat: int) -> str:
    """PettingZoo agent name of an absolute seat."""
    return f"player_{int(seat)}"


@dataclass(frozen=True)
class TrickView:
    """The trick on the table (or the last finished one while no card is played yet).

    Attributes:
        index: trick number, 0-based.
        leader: seat that led it.
        winner: the winner's seat if the trick is finished, else None.
        cards: ``(seat, card id)`` pairs in the order played.
    """

    index: int
    leader: int
    winner: int | None
    cards: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class HandSummary:
    """The hand that just ended (public: every card has been played by then).

    Attributes:
        maker: the maker's seat, None for a hand thrown in (everyone passed).
        trump: trump suit id, None for a thrown-in hand.
        alone: the maker went alone.
        called: five-handed called card id, None if none.
        partner: seat that held the called card, None if it was out of play.
        points: points of each seat for the hand.
    """

    maker: int | None
    trump: int | None
    alone: bool
    called: int | None
    partner: int | None
    points: tuple[int, ...]


@dataclass(frozen=True)
class TableView:
    """Everything seat ``viewer`` may know about one table, and nothing else.

    Seats are absolute (``0..P-1``); card and suit ids as in :mod:`euchre_env.cards`.

    Attributes:
        variant, num_players: the game.
        hand_no: the hand's number in the game, 1-based.
        phase: the engine phase.
        dealer: the dealer's seat.
        upcard: the turned-up card (public, even once turned down).
        upcard_fate: ``""``, ``UPCARD_TAKEN`` or ``UPCARD_TURNED_DOWN``.
        bids: ``((round, ((seat, word), ...)), ...)``: the public bids of each
            round so far; word is ``"pass"``, ``"order up"`` or ``"name <suit>"``.
        trump, maker: trump suit and maker's seat, None before trump is made.
        alone: the maker declared alone.
        with_partner: four-handed, the maker declared with partner.
        called: five-handed called card, None before the call (or alone).
        called_holder: the seat holding the called card, when the viewer may
            know it (revealed, or the viewer holds it), else None.
        reveal_trick: the trick (0-based) in which the called card was played, else None.
        defender_alone: four-handed lone defender's seat, else None.
        trick: the trick on the table (see :class:`TrickView`), None outside card play.
        tricks_won: tricks taken by each seat this hand.
        scores: running scores of each seat.
        hand_counts: how many cards each seat holds (public).
        sitting_out: seats sitting out this hand.
        summary: the hand that ended on the last step, else None.
        to_act: the seat to act, None once the episode is over.
        viewer: the seat whose view this is, None for a public view.
        hand: the viewer's cards (ids, ascending), empty without a viewer.
        discard: the viewer's own discard as dealer, else None.
    """

    variant: str
    num_players: int
    hand_no: int
    phase: Phase
    dealer: int
    upcard: int
    upcard_fate: str
    bids: tuple[tuple[int, tuple[tuple[int, str], ...]], ...]
    trump: int | None
    maker: int | None
    alone: bool
    with_partner: bool
    called: int | None
    called_holder: int | None
    reveal_trick: int | None
    defender_alone: int | None
    trick: TrickView | None
    tricks_won: tuple[int, ...]
    scores: tuple[int, ...]
    hand_counts: tuple[int, ...]
    sitting_out: tuple[int, ...]
    summary: HandSummary | None
    to_act: int | None
    viewer: int | None
    hand: tuple[int, ...]
    discard: int | None


def _or_none(x: int) -> int | None:
    return int(x) if int(x) >= 0 else None


def _bidding_order(dealer: int, p: int) -> list[int]:
    """Seats in bidding order: from the dealer's left round to the dealer (rules.md#c5)."""
    return [(dealer + 1 + k) % p for k in range(p)]


def _bids(s: State, row: int, p: int) -> tuple[tuple[int, tuple[tuple[int, str], ...]], ...]:
    """The public bids of each round so far: ``((round, ((seat, "pass"), ...)), ...)``."""
    order = _bidding_order(int(s.dealer[row]), p)
    maker, turn, rnd = int(s.maker[row]), int(s.turn[row]), int(s.bid_round[row])
    bidding = int(s.phase[row]) in (Phase.BID_UPCARD, Phase.BID_SUIT)
    stop = maker if maker >= 0 else (turn if bidding else -1)  # -1: the whole round passed
    rounds = []
    for r in range(1, rnd + 1):
        last = stop if r == rnd else -1
        words = []
        for seat in order:
            if seat == last:
                break
            words.append((seat, "pass"))
        if r == rnd and maker >= 0:
            words.append((maker, "order up" if r == 1 else f"name {cards.SUIT_NAMES[int(s.trump[row])]}"))
        rounds.append((r, tuple(words)))
    return tuple(rounds)


def _upcard_fate(s: State, row: int) -> str:
    if int(s.maker[row]) >= 0 and int(s.bid_round[row]) == 1:
        return UPCARD_TAKEN
    if int(s.bid_round[row]) == 2:
        return UPCARD_TURNED_DOWN
    return ""


def _called_holder(s: State, row: int, viewer: int | None) -> int | None:
    """The called card's holder if the viewer may know it (rules.md#c12), else None."""
    if int(s.called[row]) < 0:
        return None
    partner = int(s.partner[row])
    if int(s.revealed[row]) >= 0 or (viewer is not None and partner == viewer):
        return _or_none(partner)
    return None


def _trick(s: State, row: int, p: int) -> TrickView | None:
    """The current trick, or the last finished one when no card is on the table yet."""
    t, n = int(s.trick_no[row]), int(s.n_played[row])
    if int(s.phase[row]) not in (Phase.PLAY, Phase.DONE) or int(s.leader[row]) < 0:
        return None
    if n == 0 and t > 0:
        t -= 1
        first, winner = _trick_leader(s, row, t), int(s.trick_winner[row, t])
    else:
        first, winner = int(s.leader[row]), None
    played = s.trick_cards[row, t]
    order = [(first + k) % p for k in range(p)]
    return TrickView(t, first, winner, tuple((x, int(played[x])) for x in order if played[x] >= 0))


def _trick_leader(s: State, row: int, t: int) -> int:
    """Leader of finished trick ``t``: the previous trick's winner, else left of the dealer."""
    if t > 0:
        return int(s.trick_winner[row, t - 1])
    return (int(s.dealer[row]) + 1) % s.num_players


def _summary(s: State, row: int, p: int) -> HandSummary | None:
    """The hand that just ended, from the engine's ``last_*`` record."""
    if not bool(s.hand_over[row]):
        return None
    maker = _or_none(s.last_maker[row])
    return HandSummary(
        maker=maker,
        trump=int(s.last_trump[row]) if maker is not None else None,
        alone=bool(s.last_alone[row]),
        called=_or_none(s.last_called[row]),
        partner=_or_none(s.last_partner[row]) if int(s.last_called[row]) >= 0 else None,
        points=tuple(int(x) for x in s.last_points[row, :p]),
    )


def table_view(s: State, rules: RulesConfig, viewer: int | None = None, row: int = 0) -> TableView:
    """What seat ``viewer`` may see of table ``row`` of ``s``.

    Args:
        s: a batched engine state (any ``B``).
        rules: the rules the state plays under.
        viewer: absolute seat whose view it is; None: the seat to act (a
            public view, with no hand, once the episode is over).
        row: which table of the batch.

    Raises:
        ValueError: if ``row`` or ``viewer`` is out of range.
    """
    p = rules.num_players
    if isinstance(row, bool) or not isinstance(row, int) or not 0 <= row < s.batch_size:
        raise ValueError(f"row must be a table index in 0..{s.batch_size - 1}, got {row!r}")
    if viewer is None:
        viewer = int(s.turn[row]) if int(s.turn[row]) >= 0 else None
    elif isinstance(viewer, bool) or not isinstance(viewer, int) or not 0 <= viewer < p:
        raise ValueError(f"viewer must be a seat in 0..{p - 1} or None, got {viewer!r}")
    phase = Phase(int(s.phase[row]))
    trump, maker, alone = int(s.trump[row]), int(s.maker[row]), bool(s.alone[row])
    made = trump < cards.NUM_SUITS
    declared = phase in (Phase.DEFEND, Phase.PLAY) or (phase == Phase.DONE and int(s.leader[row]) >= 0)
    own_discard = viewer is not None and int(s.dealer[row]) == viewer and int(s.discard[row]) >= 0
    return TableView(
        variant=rules.variant,
        num_players=p,
        hand_no=int(s.hand_no[row]) + 1,
        phase=phase,
        dealer=int(s.dealer[row]),
        upcard=int(s.upcard[row]),
        upcard_fate=_upcard_fate(s, row),
        bids=_bids(s, row, p),
        trump=trump if made else None,
        maker=maker if made else None,
        alone=made and alone,
        with_partner=made and not alone and not rules.called_card and declared,
        called=_or_none(s.called[row]) if made else None,
        called_holder=_called_holder(s, row, viewer) if made else None,
        reveal_trick=_or_none(s.revealed[row]) if made and int(s.called[row]) >= 0 else None,
        defender_alone=_or_none(s.defender_alone[row]) if made else None,
        trick=_trick(s, row, p),
        tricks_won=tuple(int(x) for x in s.tricks_won[row, :p]),
        scores=tuple(int(x) for x in s.scores[row, :p]),
        hand_counts=tuple(int(h).bit_count() for h in s.hands[row, :p]),
        sitting_out=tuple(x for x in range(p) if int(s.out[row]) >> x & 1),
        summary=_summary(s, row, p),
        to_act=_or_none(s.turn[row]),
        viewer=viewer,
        hand=tuple(cards.cards_of(int(s.hands[row, viewer]))) if viewer is not None else (),
        discard=int(s.discard[row]) if own_discard else None,
    )


# --- text -------------------------------------------------------------------


def _hand_text(hand: tuple[int, ...]) -> str:
    """Cards grouped by printed suit: ``"9C JC | AD | TH"``."""
    groups = []
    for suit in range(cards.NUM_SUITS):
        names = [cards.name(c) for c in hand if c // cards.NUM_RANKS == suit]
        if names:
            groups.append(" ".join(names))
    return " | ".join(groups) if groups else "(no cards)"


def _seat_list(values: tuple[int, ...], p: int) -> str:
    return ", ".join(f"{agent_name(i)} {values[i]}" for i in range(p))


def _bids_line(v: TableView) -> str:
    parts = [
        f"round {r}: " + (", ".join(f"{agent_name(seat)} {word}" for seat, word in words) or "-")
        for r, words in v.bids
    ]
    return "bids: " + "; ".join(parts)


def _upcard_line(v: TableView) -> str:
    note = f" ({v.upcard_fate})" if v.upcard_fate else ""
    return f"dealer: {agent_name(v.dealer)}   upcard: {cards.name(v.upcard)}{note}"


def called_note(v: TableView) -> str:
    """What the viewer knows of the called card's holder (rules.md#c12)."""
    if v.reveal_trick is not None and v.called_holder is not None:
        return f"played by {agent_name(v.called_holder)} in trick {v.reveal_trick + 1}"
    if v.called_holder is not None and v.called_holder == v.viewer:
        return "you hold it: you are the hidden partner"
    return "partner hidden"


def _trump_line(v: TableView) -> str:
    if v.trump is None:
        return "trump: not yet made"
    line = f"trump: {cards.SUIT_NAMES[v.trump]}   maker: {agent_name(v.maker)}"
    if v.alone:
        line += "   alone"
    elif v.called is not None:
        line += f"   called card: {cards.name(v.called)} ({called_note(v)})"
    elif v.with_partner:
        line += "   with partner"
    if v.defender_alone is not None:
        line += f"   {agent_name(v.defender_alone)} defends alone"
    return line


def _trick_line(v: TableView) -> str:
    t = v.trick
    if t is None:
        return ""
    if t.winner is not None:
        label = f"trick {t.index + 1} (won by {agent_name(t.winner)})"
    else:
        label = f"trick {t.index + 1}, led by {agent_name(t.leader)}"
    shown = [f"{agent_name(x)} {cards.name(c)}" for x, c in t.cards]
    return f"{label}: " + (", ".join(shown) if shown else "-")


def summary_text(v: TableView) -> str:
    """The hand that just ended, in words (``""`` when none did)."""
    h = v.summary
    if h is None:
        return ""
    if h.maker is None:
        return "hand over: thrown in (everyone passed), nobody scores"
    text = f"hand over: maker {agent_name(h.maker)}, trump {cards.SUIT_NAMES[h.trump]}"
    if h.alone:
        text += ", alone"
    if h.called is not None:
        who = agent_name(h.partner) if h.partner is not None else "nobody (the card was out of play)"
        text += f", called {cards.name(h.called)} held by {who}"
    return text + "; points: " + _seat_list(h.points, v.num_players)


def view_to_text(v: TableView) -> str:
    """The view as text (see :func:`to_ansi`)."""
    p = v.num_players
    lines = [
        f"Euchre ({v.variant}), hand {v.hand_no}, phase {v.phase.name}",
        _upcard_line(v),
        _bids_line(v),
        _trump_line(v),
        _trick_line(v),
        "tricks won: " + _seat_list(v.tricks_won, p),
        "scores: " + _seat_list(v.scores, p),
    ]
    if v.sitting_out:
        lines.append("sitting out: " + ", ".join(agent_name(x) for x in v.sitting_out))
    lines.append(summary_text(v))
    lines.append(f"to act: {agent_name(v.to_act)}" if v.to_act is not None else "episode over")
    if v.viewer is not None:
        lines.append(f"hand of {agent_name(v.viewer)}: {_hand_text(v.hand)}")
        if v.discard is not None:
            lines.append(f"your discard: {cards.name(v.discard)}")
    return "\n".join(line for line in lines if line)


def to_ansi(s: State, rules: RulesConfig, viewer: int | None = None, row: int = 0) -> str:
    """Render table ``row`` of ``s`` as seen by seat ``viewer``.

    Args:
        s: a batched engine state (any ``B``).
        rules: the rules the state plays under.
        viewer: absolute seat whose hand is shown; None shows the hand of the
            seat to act (no hand once the episode is over).
        row: which table of the batch to draw.

    Returns:
        A multi-line string (no trailing newline).

    Raises:
        ValueError: if ``row`` or ``viewer`` is out of range.
    """
    return view_to_text(table_view(s, rules, viewer, row))
