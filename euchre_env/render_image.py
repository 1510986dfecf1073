"""A picture of one table as one seat sees it: ``to_rgb(state, rules, viewer, row)``.

The environments' ``render_mode="rgb_array"``. What is drawn is exactly what
:func:`euchre_env.render.table_view` lets the viewer see (the same view
:func:`~euchre_env.render.to_ansi` writes as text): the viewer's hand face up
and every other hand as card backs (how many cards each seat holds is
public), the upcard, each seat's bid in the current round, the current trick
(or the last finished one, its winner marked), tricks won, scores, trump and
the maker, the called card and, once public, the partner; the summary of a
hand that just ended. The drawing never reads the engine state itself, so it
cannot show a hidden card.

The viewer sits at the bottom and play goes clockwise (its left-hand
neighbour on the left). Every frame of a game has the same size
(:data:`FRAME_SHAPE`, ``(720, 960, 3)`` uint8), so frames make a video
(``gymnasium.wrappers.RecordVideo``). Drawn with Pillow; suit symbols are
drawn as shapes, so no system font is needed (Pillow's bundled font).

Example::

    frame = to_rgb(env.unwrapped.state, env.unwrapped.rules, viewer=0)   # (720, 960, 3) uint8
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.render import (
    UPCARD_TAKEN,
    UPCARD_TURNED_DOWN,
    TableView,
    agent_name,
    called_note,
    table_view,
)
from euchre_env.rules import RulesConfig
from euchre_env.state import State

__all__ = ["FRAME_SHAPE", "blank_frame", "draw_view", "to_rgb"]

WIDTH, HEIGHT = 960, 720
FRAME_SHAPE = (HEIGHT, WIDTH, 3)

# --- colours ------------------------------------------------------------------
FELT = (22, 92, 58)
FELT_DARK = (14, 66, 41)
FELT_LIGHT = (32, 112, 72)
INK = (24, 24, 28)
RED = (196, 30, 42)
WHITE = (250, 250, 246)
MUTED = (190, 214, 198)
GOLD = (244, 196, 48)
PANEL = (10, 40, 26, 215)
BACK = (38, 64, 140)
TEAM = ((110, 170, 255), (255, 150, 110))  # four-handed sides: seats 0/2, seats 1/3
SUIT_INK = (INK, RED, RED, INK)
RANK_TEXT = ("8", "9", "10", "J", "Q", "K", "A")
SUIT_ORDER = (cards.DIAMONDS, cards.CLUBS, cards.HEARTS, cards.SPADES)  # colours alternate in a hand

# --- geometry -------------------------------------------------------------------
CENTER = (480, 318)
SEAT_RADIUS = (380, 232)  # ellipse of the seat boxes
TRICK_RADIUS = (118, 80)  # ellipse of the cards played to the trick
BOX = (176, 98)  # a seat box
SMALL = (22, 32)  # card backs of the other hands
TRICK_CARD = (60, 86)
HAND_CARD = (74, 104)
BANNER_Y = (458, 530)


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled font at ``size`` px (a bitmap font on a Pillow without FreeType)."""
    return ImageFont.load_default(size=size)


def _text(
    d: ImageDraw.ImageDraw, xy: tuple[float, float], text: str, size: int, fill, anchor="la", bold=False
):
    d.text(
        xy, text, font=_font(size), fill=fill, anchor=anchor, stroke_width=1 if bold else 0, stroke_fill=fill
    )


def _text_width(text: str, size: int) -> float:
    return _font(size).getlength(text)


# --- suits and cards ------------------------------------------------------------


def draw_suit(d: ImageDraw.ImageDraw, suit: int, cx: float, cy: float, size: float, fill=None) -> None:
    """Suit ``suit`` as a shape of height ``size`` centred at ``(cx, cy)``."""
    fill = SUIT_INK[suit] if fill is None else fill
    s = size / 2
    if suit == cards.DIAMONDS:
        d.polygon([(cx, cy - s), (cx + 0.72 * s, cy), (cx, cy + s), (cx - 0.72 * s, cy)], fill=fill)
        return
    r = 0.5 * s
    if suit == cards.HEARTS:
        top = cy - s + r
        d.ellipse([cx - 2 * r, top - r, cx, top + r], fill=fill)
        d.ellipse([cx, top - r, cx + 2 * r, top + r], fill=fill)
        d.polygon([(cx - 1.93 * r, top + 0.35 * r), (cx + 1.93 * r, top + 0.35 * r), (cx, cy + s)], fill=fill)
        return
    if suit == cards.SPADES:
        bottom = cy + 0.38 * s
        d.ellipse([cx - 2 * r, bottom - 1.1 * r, cx, bottom + 0.9 * r], fill=fill)
        d.ellipse([cx, bottom - 1.1 * r, cx + 2 * r, bottom + 0.9 * r], fill=fill)
        d.polygon(
            [(cx - 1.93 * r, bottom - 0.45 * r), (cx + 1.93 * r, bottom - 0.45 * r), (cx, cy - s)], fill=fill
        )
    else:  # clubs
        cr = 0.48 * s
        d.ellipse([cx - cr, cy - s, cx + cr, cy - s + 2 * cr], fill=fill)
        d.ellipse([cx - 2 * cr - 0.05 * s, cy - 0.25 * s, cx - 0.05 * s, cy - 0.25 * s + 2 * cr], fill=fill)
        d.ellipse([cx + 0.05 * s, cy - 0.25 * s, cx + 2 * cr + 0.05 * s, cy - 0.25 * s + 2 * cr], fill=fill)
    d.polygon([(cx, cy - 0.1 * s), (cx - 0.38 * s, cy + s), (cx + 0.38 * s, cy + s)], fill=fill)  # stem


@lru_cache(maxsize=256)
def _card_face(card: int, w: int, h: int) -> Image.Image:
    """Card ``card`` face up, ``w`` x ``h`` RGBA."""
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    rad = max(4, w // 10)
    d.rounded_rectangle([0, 0, w - 1, h - 1], radius=rad, fill=WHITE, outline=(120, 120, 120), width=1)
    suit, rank = divmod(int(card), cards.NUM_RANKS)
    ink = SUIT_INK[suit]
    corner = max(12, int(h * 0.2))
    pad = max(3, w // 14)
    _text(d, (pad, pad - 1), RANK_TEXT[rank], corner, ink, bold=True)
    draw_suit(d, suit, pad + corner * 0.32, pad + corner * 1.45, corner * 0.62)
    draw_suit(d, suit, w * 0.55, h * 0.6, h * 0.42)
    return img


@lru_cache(maxsize=16)
def _card_back(w: int, h: int, dim: bool = False) -> Image.Image:
    """A card back, ``w`` x ``h`` RGBA (greyed when ``dim``)."""
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    rad = max(3, w // 8)
    colour = (92, 100, 112) if dim else BACK
    d.rounded_rectangle([0, 0, w - 1, h - 1], radius=rad, fill=WHITE, outline=(70, 70, 80), width=1)
    inset = max(2, w // 10)
    d.rounded_rectangle([inset, inset, w - 1 - inset, h - 1 - inset], radius=max(2, rad - 1), fill=colour)
    line = tuple(min(255, c + 40) for c in colour)
    step = max(5, w // 4)
    for k in range(-h, w + h, step):  # lattice
        d.line([(k, inset), (k + h, inset + h)], fill=line, width=1)
        d.line([(k + h, inset), (k, inset + h)], fill=line, width=1)
    d.rounded_rectangle([0, 0, w - 1, h - 1], radius=rad, outline=WHITE, width=inset)
    d.rounded_rectangle([0, 0, w - 1, h - 1], radius=rad, outline=(70, 70, 80), width=1)
    return img


def _paste(img: Image.Image, tile: Image.Image, cx: float, cy: float, ring=None) -> None:
    """Paste ``tile`` centred at ``(cx, cy)``, with a coloured ``ring`` round it if given."""
    x, y = round(cx - tile.width / 2), round(cy - tile.height / 2)
    if ring is not None:
        ImageDraw.Draw(img).rounded_rectangle(
            [x - 4, y - 4, x + tile.width + 3, y + tile.height + 3], radius=8, outline=ring, width=3
        )
    img.alpha_composite(tile, (x, y))


def _shadow(img: Image.Image, box: tuple[float, float, float, float], radius: int = 10) -> None:
    layer = Image.new("RGBA", img.size, (0, 0, 0, 0))
    ImageDraw.Draw(layer).rounded_rectangle(box, radius=radius, fill=PANEL)
    img.alpha_composite(layer)


def _sorted_hand(hand: tuple[int, ...]) -> list[int]:
    """The viewer's cards grouped by suit, colours alternating, ranks ascending."""
    return sorted(hand, key=lambda c: (SUIT_ORDER.index(c // cards.NUM_RANKS), c % cards.NUM_RANKS))


# --- the table ------------------------------------------------------------------


def _relative(v: TableView, seat: int) -> int:
    bottom = v.viewer if v.viewer is not None else 0
    return (seat - bottom) % v.num_players


def _angle(v: TableView, seat: int) -> float:
    """Screen angle of ``seat``: the viewer at the bottom, clockwise (its left neighbour on the left)."""
    return math.pi / 2 + 2 * math.pi * _relative(v, seat) / v.num_players


def _on_ellipse(v: TableView, seat: int, radius: tuple[float, float]) -> tuple[float, float]:
    a = _angle(v, seat)
    return CENTER[0] + radius[0] * math.cos(a), CENTER[1] + radius[1] * math.sin(a)


def _latest_bids(v: TableView) -> dict[int, str]:
    """Each seat's word in the bidding round under way (empty once trump is made)."""
    if v.phase not in (Phase.BID_UPCARD, Phase.BID_SUIT) or not v.bids:
        return {}
    return dict(v.bids[-1][1])


def _partners(v: TableView) -> set[int]:
    """Seats the viewer knows to be on the maker's side (the maker included)."""
    if v.maker is None:
        return set()
    if v.variant == "four_handed" or v.called is None:
        side = {v.maker}
        if v.variant == "four_handed" and not v.alone:
            side.add((v.maker + v.num_players // 2) % v.num_players)
        return side
    return {v.maker} | ({v.called_holder} if v.called_holder is not None else set())


def _tags(v: TableView, seat: int) -> list[tuple[str, tuple]]:
    tags = []
    if seat == v.maker:
        tags.append(("ALONE" if v.alone else "MAKER", GOLD))
    elif seat in _partners(v):
        tags.append(("PARTNER", GOLD))
    if seat == v.defender_alone:
        tags.append(("DEFENDS ALONE", (255, 170, 150)))
    if seat in v.sitting_out:
        tags.append(("SITS OUT", MUTED))
    return tags


def _name_colour(v: TableView, seat: int) -> tuple:
    return TEAM[seat % 2] if v.variant == "four_handed" else WHITE


def _dealer_chip(d: ImageDraw.ImageDraw, x: float, y: float) -> None:
    d.ellipse([x - 10, y - 10, x + 10, y + 10], fill=WHITE, outline=INK, width=1)
    _text(d, (x, y + 1), "D", 13, INK, anchor="mm", bold=True)


def _bubble(img: Image.Image, text: str, cx: float, cy: float) -> None:
    d = ImageDraw.Draw(img)
    w = _text_width(text, 15) + 18
    fill = GOLD if text != "pass" else (230, 230, 225)
    d.rounded_rectangle([cx - w / 2, cy - 12, cx + w / 2, cy + 12], radius=12, fill=fill, outline=INK)
    _text(d, (cx, cy + 1), text, 15, INK, anchor="mm")


def _seat_box(img: Image.Image, v: TableView, seat: int, bids: dict[int, str]) -> None:
    """One of the other seats: name, card backs, tricks, score, tags, its bid."""
    cx, cy = _on_ellipse(v, seat, SEAT_RADIUS)
    w, h = BOX
    x0, y0 = cx - w / 2, cy - h / 2
    out = seat in v.sitting_out
    _shadow(img, (x0, y0, x0 + w, y0 + h))
    d = ImageDraw.Draw(img)
    if seat == v.to_act:
        d.rounded_rectangle([x0 - 3, y0 - 3, x0 + w + 3, y0 + h + 3], radius=12, outline=GOLD, width=4)
    _text(d, (x0 + 10, y0 + 8), agent_name(seat), 17, _name_colour(v, seat), bold=True)
    if seat == v.dealer:
        _dealer_chip(d, x0 + w - 16, y0 + 17)
    n = v.hand_counts[seat]
    back = _card_back(*SMALL, dim=out)
    for k in range(n):
        img.alpha_composite(back, (round(x0 + 10 + 13 * k), round(y0 + 34)))
    d = ImageDraw.Draw(img)
    _text(d, (x0 + w - 10, y0 + 38), f"tricks {v.tricks_won[seat]}", 14, WHITE, anchor="ra")
    _text(d, (x0 + w - 10, y0 + 55), f"score {v.scores[seat]}", 14, MUTED, anchor="ra")
    tx = x0 + 10
    for word, colour in _tags(v, seat):
        tw = _text_width(word, 12) + 10
        d.rounded_rectangle([tx, y0 + h - 24, tx + tw, y0 + h - 7], radius=5, fill=colour)
        _text(d, (tx + tw / 2, y0 + h - 15), word, 12, INK, anchor="mm", bold=True)
        tx += tw + 5
    if seat in bids:
        above = cy < CENTER[1] - 40
        _bubble(img, bids[seat], cx, y0 + h + 16 if above else y0 - 16)


def _viewer_seat(img: Image.Image, v: TableView, bids: dict[int, str]) -> None:
    """The bottom seat: its hand face up (face down for a public view), its label, tags and bid."""
    seat = v.viewer if v.viewer is not None else 0
    hand = _sorted_hand(v.hand) if v.viewer is not None else [None] * v.hand_counts[seat]
    w, h = HAND_CARD
    step = w + 6 if len(hand) <= 5 else w - 8
    total = step * (len(hand) - 1) + w if hand else 0
    x = CENTER[0] - total / 2 + w / 2
    y = HEIGHT - h / 2 - 12
    dim = seat in v.sitting_out
    for c in hand:
        _paste(img, _card_face(c, w, h) if c is not None else _card_back(w, h, dim), x, y)
        x += step
    label = agent_name(seat) + (" (you)" if v.viewer is not None else "")
    d = ImageDraw.Draw(img)
    ly = HEIGHT - h - 40
    parts = [
        (label, _name_colour(v, seat), True),
        (f"   tricks {v.tricks_won[seat]}", WHITE, False),
        (f"   score {v.scores[seat]}", MUTED, False),
    ]
    lw = sum(_text_width(t, 17) for t, _, _ in parts)
    tags = _tags(v, seat)
    extra = sum(_text_width(t, 12) + 15 for t, _ in tags) + (30 if seat == v.dealer else 0)
    x0 = CENTER[0] - (lw + extra) / 2
    if seat == v.to_act:
        d.rounded_rectangle(
            [x0 - 14, ly - 15, x0 + lw + extra + 10, ly + 15], radius=14, outline=GOLD, width=3
        )
    for text, colour, bold in parts:
        _text(d, (x0, ly), text, 17, colour, anchor="lm", bold=bold)
        x0 += _text_width(text, 17)
    x0 += 10
    for word, colour in tags:
        tw = _text_width(word, 12) + 10
        d.rounded_rectangle([x0, ly - 9, x0 + tw, ly + 9], radius=5, fill=colour)
        _text(d, (x0 + tw / 2, ly + 1), word, 12, INK, anchor="mm", bold=True)
        x0 += tw + 5
    if seat == v.dealer:
        _dealer_chip(d, x0 + 12, ly)
    if v.discard is not None:
        dx = CENTER[0] - total / 2 - 60
        _paste(img, _card_face(v.discard, *TRICK_CARD), dx, HEIGHT - h / 2 - 2)
        _text(ImageDraw.Draw(img), (dx, HEIGHT - h - 12), "your discard", 13, MUTED, anchor="mm")
    if seat in bids:
        _bubble(img, bids[seat], CENTER[0], ly - 30)


def _centre(img: Image.Image, v: TableView) -> None:
    """The trick on the table, or the upcard on the kitty while bidding."""
    d = ImageDraw.Draw(img)
    if v.trick is not None:
        t = v.trick
        label = f"trick {t.index + 1}" + (f": won by {agent_name(t.winner)}" if t.winner is not None else "")
        _text(d, (CENTER[0], CENTER[1] - TRICK_RADIUS[1] - 60), label, 16, WHITE, anchor="mm", bold=True)
        for seat, card in t.cards:
            x, y = _on_ellipse(v, seat, TRICK_RADIUS)
            _paste(img, _card_face(card, *TRICK_CARD), x, y, ring=GOLD if seat == t.winner else None)
        return
    if v.phase in (Phase.BID_UPCARD, Phase.BID_SUIT):
        for k in range(3):
            img.alpha_composite(
                _card_back(*TRICK_CARD), (CENTER[0] - 30 - 64 + 2 * k, CENTER[1] - 43 - 2 * k)
            )
        _paste(img, _card_face(v.upcard, *TRICK_CARD), CENTER[0] + 34, CENTER[1])
        d = ImageDraw.Draw(img)
        if v.phase == Phase.BID_SUIT:
            overlay = Image.new("RGBA", TRICK_CARD, (20, 20, 20, 130))
            img.alpha_composite(overlay, (CENTER[0] + 34 - 30, CENTER[1] - 43))
            d = ImageDraw.Draw(img)
            _text(d, (CENTER[0], CENTER[1] + 60), "upcard turned down: name a suit", 15, WHITE, anchor="mm")
        else:
            _text(d, (CENTER[0], CENTER[1] + 60), "order up the upcard?", 15, WHITE, anchor="mm")
        return
    if v.trump is not None:  # between bidding and the first lead
        draw_suit(
            d, v.trump, CENTER[0], CENTER[1] - 12, 56, fill=(240, 240, 236) if v.trump in (0, 3) else None
        )
        what = {
            Phase.DISCARD: "the dealer discards",
            Phase.CALL: "the maker calls a partner card",
            Phase.DECLARE: "the maker declares",
            Phase.DEFEND: "a defender may go alone",
        }.get(v.phase, "")
        _text(d, (CENTER[0], CENTER[1] + 40), what, 15, WHITE, anchor="mm")


def _info_panels(img: Image.Image, v: TableView) -> None:
    """Bottom corners: trump, maker and the called card (left); upcard, bids so far (right)."""
    x0, y0, x1, y1 = 12, 548, 252, 708
    _shadow(img, (x0, y0, x1, y1))
    d = ImageDraw.Draw(img)
    _text(d, (x0 + 12, y0 + 10), "TRUMP", 13, MUTED, bold=True)
    if v.trump is None:
        _text(d, (x0 + 12, y0 + 32), "not yet made", 17, WHITE)
    else:
        draw_suit(d, v.trump, x0 + 26, y0 + 44, 28, fill=WHITE if v.trump in (0, 3) else (255, 90, 96))
        _text(d, (x0 + 48, y0 + 32), cards.SUIT_NAMES[v.trump], 20, WHITE, bold=True)
        how = "alone" if v.alone else ("with partner" if v.with_partner else "")
        _text(d, (x0 + 12, y0 + 66), f"maker {agent_name(v.maker)}" + (f", {how}" if how else ""), 15, WHITE)
    if v.called is not None:
        _paste(img, _card_face(v.called, 34, 48), x0 + 31, y0 + 126)
        d = ImageDraw.Draw(img)
        _text(d, (x0 + 56, y0 + 100), f"called {cards.name(v.called)}", 15, WHITE, bold=True)
        note = called_note(v)
        if note.startswith("you hold"):
            note = "you hold it: you are the partner"
        for k, line in enumerate(_wrap(note, 13, x1 - x0 - 66)):
            _text(d, (x0 + 56, y0 + 120 + 16 * k), line, 13, GOLD)
    elif v.defender_alone is not None:
        _text(d, (x0 + 12, y0 + 90), f"{agent_name(v.defender_alone)} defends alone", 15, GOLD)

    x0, x1 = WIDTH - 252, WIDTH - 12
    _shadow(img, (x0, y0, x1, y1))
    d = ImageDraw.Draw(img)
    _text(d, (x0 + 12, y0 + 10), "UPCARD", 13, MUTED, bold=True)
    _paste(img, _card_face(v.upcard, 34, 48), x0 + 31, y0 + 58)
    d = ImageDraw.Draw(img)
    fate = {UPCARD_TAKEN: "taken by the dealer", UPCARD_TURNED_DOWN: "turned down"}.get(v.upcard_fate, "")
    _text(d, (x0 + 56, y0 + 36), f"dealer {agent_name(v.dealer)}", 15, WHITE)
    if fate:
        _text(d, (x0 + 56, y0 + 56), fate, 13, MUTED)
    y = y0 + 92
    for r, words in v.bids:
        passes = sum(w == "pass" for _, w in words)
        said = [f"{passes} passed"] if passes else []
        said += [f"{agent_name(s)} {_PAST.get(w, w)}" for s, w in words if w != "pass"]
        for line in _wrap(f"round {r}: " + (", ".join(said) if said else "-"), 14, x1 - x0 - 20):
            _text(d, (x0 + 12, y), line, 14, WHITE)
            y += 18


_PAST = {"order up": "ordered up", **{f"name {n}": f"named {n}" for n in cards.SUIT_NAMES}}


def _wrap(text: str, size: int, width: float) -> list[str]:
    """``text`` in lines of at most ``width`` pixels at font ``size``."""
    lines, line = [], ""
    for word in text.split():
        if line and _text_width(f"{line} {word}", size) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    return [*lines, line] if line else lines


def _title(img: Image.Image, v: TableView) -> None:
    d = ImageDraw.Draw(img)
    d.rectangle([0, 0, WIDTH, 34], fill=FELT_DARK)
    game = "four-handed" if v.variant == "four_handed" else "five-handed, called card"
    _text(
        d, (14, 17), f"Euchre ({game})   hand {v.hand_no}   {v.phase.name}", 17, WHITE, anchor="lm", bold=True
    )
    right = f"{agent_name(v.to_act)} to act" if v.to_act is not None else "episode over"
    _text(d, (WIDTH - 14, 17), right, 17, GOLD if v.to_act is not None else MUTED, anchor="rm", bold=True)


def _summary_banner(img: Image.Image, v: TableView) -> None:
    h = v.summary
    if h is None:
        return
    if h.maker is None:
        lines = ["Hand over: thrown in (everyone passed)", "nobody scores"]
    else:
        head = f"Hand over: {agent_name(h.maker)} made {cards.SUIT_NAMES[h.trump]}" + (
            " alone" if h.alone else ""
        )
        if h.called is not None:
            who = agent_name(h.partner) if h.partner is not None else "nobody (out of play)"
            head += f", called {cards.name(h.called)} held by {who}"
        scored = [f"{agent_name(s)} +{p}" for s, p in enumerate(h.points) if p]
        lines = [head, "points: " + (", ".join(scored) if scored else "none")]
    width = max(_text_width(line, 16) for line in lines) + 40
    x0, x1 = CENTER[0] - width / 2, CENTER[0] + width / 2
    y0, y1 = BANNER_Y
    layer = Image.new("RGBA", img.size, (0, 0, 0, 0))
    ImageDraw.Draw(layer).rounded_rectangle(
        [x0, y0, x1, y1], radius=12, fill=(0, 0, 0, 200), outline=GOLD, width=2
    )
    img.alpha_composite(layer)
    d = ImageDraw.Draw(img)
    for k, line in enumerate(lines):
        _text(d, (CENTER[0], y0 + 22 + 28 * k), line, 16, GOLD if k == 0 else WHITE, anchor="mm", bold=k == 0)


@lru_cache(maxsize=1)
def _felt() -> Image.Image:
    img = Image.new("RGBA", (WIDTH, HEIGHT), (*FELT_DARK, 255))
    d = ImageDraw.Draw(img)
    rx, ry = SEAT_RADIUS[0] - 40, SEAT_RADIUS[1] - 30
    d.ellipse([CENTER[0] - rx - 30, CENTER[1] - ry - 30, CENTER[0] + rx + 30, CENTER[1] + ry + 30], fill=FELT)
    d.ellipse([CENTER[0] - rx, CENTER[1] - ry, CENTER[0] + rx, CENTER[1] + ry], fill=FELT_LIGHT)
    d.ellipse(
        [CENTER[0] - rx, CENTER[1] - ry, CENTER[0] + rx, CENTER[1] + ry], outline=(52, 132, 90), width=2
    )
    return img


def blank_frame(message: str) -> np.ndarray:
    """An empty table with ``message`` (e.g. before the first reset), uint8 ``FRAME_SHAPE``."""
    img = _felt().copy()
    _text(ImageDraw.Draw(img), CENTER, message, 20, WHITE, anchor="mm", bold=True)
    return np.asarray(img.convert("RGB"), dtype=np.uint8)


def draw_view(v: TableView) -> np.ndarray:
    """The picture of a :class:`~euchre_env.render.TableView`, uint8 ``(720, 960, 3)``."""
    img = _felt().copy()
    _title(img, v)
    bids = _latest_bids(v)
    _centre(img, v)
    bottom = v.viewer if v.viewer is not None else 0
    for seat in range(v.num_players):
        if seat != bottom:
            _seat_box(img, v, seat, bids)
    _info_panels(img, v)
    _viewer_seat(img, v, bids)
    _summary_banner(img, v)
    return np.asarray(img.convert("RGB"), dtype=np.uint8)


def to_rgb(state: State, rules: RulesConfig, viewer: int | None = None, row: int = 0) -> np.ndarray:
    """Table ``row`` of ``state`` as seat ``viewer`` sees it, as an RGB image.

    Args:
        state: a batched engine state (any ``B``).
        rules: the rules the state plays under.
        viewer: the seat whose view is drawn (at the bottom, its hand face up);
            None: the seat to act, as :func:`~euchre_env.render.to_ansi` (a
            public view from seat 0's place, every hand face down, once the
            episode is over).
        row: which table of the batch.

    Returns:
        uint8 array of shape ``FRAME_SHAPE`` = (720, 960, 3).

    Raises:
        ValueError: if ``row`` or ``viewer`` is out of range.
    """
    return draw_view(table_view(state, rules, viewer, row))
