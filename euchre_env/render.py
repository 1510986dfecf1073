"""Text rendering of one table of a batched engine ``State`` (OpenSpiel ``ToString`` style).

``to_ansi(state, rules, viewer=None, row=0)`` draws the table as one viewer sees
it: that seat's hand (and its own discard if it dealt), the upcard, the dealer,
the bids so far, trump / maker / alone / the called card, the current (or last
finished) trick, tricks won and the running scores. It never shows another
seat's hand, the hidden kitty or another seat's discard, and shows the hidden
partner only once the called card is played, to the seat holding it, or in the
summary of a finished hand (by then every card has been played).

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

from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.rules import RulesConfig
from euchre_env.state import State


def agent_name(seat: int) -> str:
    """PettingZoo agent name of an absolute seat."""
    return f"player_{int(seat)}"


def _hand_text(mask: int) -> str:
    """Cards of a bitmask grouped by printed suit: ``"9C JC | AD | TH"``."""
    groups = []
    for suit in range(cards.NUM_SUITS):
        names = [cards.name(c) for c in cards.cards_of(mask) if c // cards.NUM_RANKS == suit]
        if names:
            groups.append(" ".join(names))
    return " | ".join(groups) if groups else "(no cards)"


def _seat_list(values: list[int] | list[str], p: int) -> str:
    return ", ".join(f"{agent_name(i)} {values[i]}" for i in range(p))


def _bidding_order(dealer: int, p: int) -> list[int]:
    """Seats in bidding order: from the dealer's left round to the dealer (RULES-NOTES 5)."""
    return [(dealer + 1 + k) % p for k in range(p)]


def _round_words(s: State, row: int, p: int) -> list[tuple[int, list[str]]]:
    """The public bids of each round so far: ``[(round, ["player_1 pass", ...]), ...]``."""
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
            words.append(f"{agent_name(seat)} pass")
        if r == rnd and maker >= 0:
            up_suit = "order up" if r == 1 else f"name {cards.SUIT_NAMES[int(s.trump[row])]}"
            words.append(f"{agent_name(maker)} {up_suit}")
        rounds.append((r, words))
    return rounds


def _bids_line(s: State, row: int, p: int) -> str:
    parts = [f"round {r}: " + (", ".join(w) if w else "-") for r, w in _round_words(s, row, p)]
    return "bids: " + "; ".join(parts)


def _upcard_line(s: State, row: int) -> str:
    up = cards.name(int(s.upcard[row]))
    if int(s.maker[row]) >= 0 and int(s.bid_round[row]) == 1:
        note = " (taken by the dealer)"
    elif int(s.bid_round[row]) == 2:
        note = " (turned down)"
    else:
        note = ""
    return f"dealer: {agent_name(int(s.dealer[row]))}   upcard: {up}{note}"


def _called_text(s: State, row: int, viewer: int | None) -> str:
    """The five-handed call as the viewer knows it (RULES-NOTES 12)."""
    called, partner = int(s.called[row]), int(s.partner[row])
    if called < 0:
        return ""
    text = f"   called card: {cards.name(called)}"
    if int(s.revealed[row]) >= 0:
        return text + f" (played by {agent_name(partner)} in trick {int(s.revealed[row]) + 1})"
    if viewer is not None and partner == viewer:
        return text + " (you hold it: you are the hidden partner)"
    return text + " (partner hidden)"


def _trump_line(s: State, row: int, rules: RulesConfig, viewer: int | None) -> str:
    trump, maker = int(s.trump[row]), int(s.maker[row])
    if trump >= cards.NUM_SUITS:
        return "trump: not yet made"
    line = f"trump: {cards.SUIT_NAMES[trump]}   maker: {agent_name(maker)}"
    phase = int(s.phase[row])
    declared = phase in (Phase.DEFEND, Phase.PLAY) or (phase == Phase.DONE and int(s.leader[row]) >= 0)
    if bool(s.alone[row]):
        line += "   alone"
    elif rules.called_card:
        line += _called_text(s, row, viewer)
    elif declared:
        line += "   with partner"
    if int(s.defender_alone[row]) >= 0:
        line += f"   {agent_name(int(s.defender_alone[row]))} defends alone"
    return line


def _trick_line(s: State, row: int, p: int) -> str:
    """The current trick, or the last finished one when no card is on the table yet."""
    t, n = int(s.trick_no[row]), int(s.n_played[row])
    if int(s.phase[row]) not in (Phase.PLAY, Phase.DONE) or int(s.leader[row]) < 0:
        return ""
    if n == 0 and t > 0:
        t -= 1
        first = _trick_leader(s, row, t)
        label = f"trick {t + 1} (won by {agent_name(int(s.trick_winner[row, t]))})"
    else:
        first = int(s.leader[row])
        label = f"trick {t + 1}, led by {agent_name(first)}"
    played = s.trick_cards[row, t]
    seats = [(first + k) % p for k in range(p)]
    shown = [f"{agent_name(x)} {cards.name(int(played[x]))}" for x in seats if played[x] >= 0]
    return f"{label}: " + (", ".join(shown) if shown else "-")


def _trick_leader(s: State, row: int, t: int) -> int:
    """Leader of finished trick ``t``: the previous trick's winner, else left of the dealer."""
    if t > 0:
        return int(s.trick_winner[row, t - 1])
    return (int(s.dealer[row]) + 1) % s.num_players


def _summary_line(s: State, row: int, p: int) -> str:
    """The hand that just ended, from the engine's ``last_*`` record."""
    maker = int(s.last_maker[row])
    if maker < 0:
        return "hand over: thrown in (everyone passed), nobody scores"
    text = f"hand over: maker {agent_name(maker)}, trump {cards.SUIT_NAMES[int(s.last_trump[row])]}"
    if bool(s.last_alone[row]):
        text += ", alone"
    if int(s.last_called[row]) >= 0:
        partner = int(s.last_partner[row])
        who = agent_name(partner) if partner >= 0 else "nobody (the card was out of play)"
        text += f", called {cards.name(int(s.last_called[row]))} held by {who}"
    points = [int(x) for x in s.last_points[row]]
    return text + "; points: " + _seat_list(points, p)


def _viewer_lines(s: State, row: int, viewer: int | None) -> list[str]:
    if viewer is None:
        return []
    lines = [f"hand of {agent_name(viewer)}: {_hand_text(int(s.hands[row, viewer]))}"]
    if int(s.dealer[row]) == viewer and int(s.discard[row]) >= 0:
        lines.append(f"your discard: {cards.name(int(s.discard[row]))}")
    return lines


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
    p = rules.num_players
    if isinstance(row, bool) or not isinstance(row, int) or not 0 <= row < s.batch_size:
        raise ValueError(f"row must be a table index in 0..{s.batch_size - 1}, got {row!r}")
    if viewer is None:
        viewer = int(s.turn[row]) if int(s.turn[row]) >= 0 else None
    elif isinstance(viewer, bool) or not isinstance(viewer, int) or not 0 <= viewer < p:
        raise ValueError(f"viewer must be a seat in 0..{p - 1} or None, got {viewer!r}")
    phase = Phase(int(s.phase[row]))
    lines = [
        f"Euchre ({rules.variant}), hand {int(s.hand_no[row]) + 1}, phase {phase.name}",
        _upcard_line(s, row),
        _bids_line(s, row, p),
        _trump_line(s, row, rules, viewer),
        _trick_line(s, row, p),
        "tricks won: " + _seat_list([int(x) for x in s.tricks_won[row]], p),
        "scores: " + _seat_list([int(x) for x in s.scores[row]], p),
    ]
    out = [agent_name(x) for x in range(p) if int(s.out[row]) >> x & 1]
    if out:
        lines.append("sitting out: " + ", ".join(out))
    if bool(s.hand_over[row]):
        lines.append(_summary_line(s, row, p))
    turn = int(s.turn[row])
    lines.append(f"to act: {agent_name(turn)}" if turn >= 0 else "episode over")
    lines += _viewer_lines(s, row, viewer)
    return "\n".join(line for line in lines if line)
