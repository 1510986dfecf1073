"""Text rendering: golden tables for given deals, render modes, and nothing hidden shown."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from euchre_env import actions, cards
from euchre_env.engine import init_state, is_done, sample_legal, step
from euchre_env.envs.aec_env import raw_env
from euchre_env.render import to_ansi
from euchre_env.rules import PRESETS
from euchre_env.state import State

DEALS = json.loads((Path(__file__).parent / "data" / "deals.json").read_text(encoding="utf-8"))
DEAL_4, DEAL_5 = DEALS["four_handed"], DEALS["five_handed"]

GOLDEN_4 = """\
Euchre (four_handed), hand 1, phase PLAY
dealer: player_0   upcard: JH (taken by the dealer)
bids: round 1: player_1 pass, player_2 order up
trump: hearts   maker: player_2   with partner
trick 1, led by player_1: player_1 AD, player_2 9H
tricks won: player_0 0, player_1 0, player_2 0, player_3 0
scores: player_0 0, player_1 0, player_2 0, player_3 0
to act: player_3
hand of player_3: 9S TS QS KS AS"""

GOLDEN_5_HOLDER = """\
Euchre (five_handed), hand 1, phase PLAY
dealer: player_4   upcard: 9S (taken by the dealer)
bids: round 1: player_0 order up
trump: spades   maker: player_0   called card: AS (you hold it: you are the hidden partner)
trick 1, led by player_0: player_0 JS, player_1 8C
tricks won: player_0 0, player_1 0, player_2 0, player_3 0, player_4 0
scores: player_0 0, player_1 0, player_2 0, player_3 0, player_4 0
to act: player_2
hand of player_2: 8D 9D TD JD | AS"""

CARD_TOKEN = re.compile(r"\b[89TJQKA][CDHS]\b")


def _scripted(variant: str, deal: dict, words: list[str], **settings: object) -> raw_env:
    e = raw_env(variant, render_mode="ansi", **settings)
    e.reset(seed=0, options={"deal": deal})
    for text in words:
        e.step(actions.parse(text))
    return e


def test_golden_four_handed_table() -> None:
    """A given four-handed deal renders as the golden text, from the view of the seat to act."""
    e = _scripted(
        "four_handed", DEAL_4, ["pass", "order up", "discard 9C", "with partner", "play AD", "play 9H"]
    )
    assert e.render() == GOLDEN_4, f"render differs from the golden text:\n{e.render()}"


def test_golden_five_handed_hidden_partner() -> None:
    """Five-handed: the holder sees it holds the called card; another seat sees only 'partner hidden'."""
    e = _scripted("five_handed", DEAL_5, ["order up", "discard 9S", "call AS", "play JS", "play 8C"])
    assert e.render() == GOLDEN_5_HOLDER, f"render differs from the golden text:\n{e.render()}"
    other = to_ansi(e.engine_state, e.rules, viewer=3)
    assert "called card: AS (partner hidden)" in other, f"non-holder view:\n{other}"
    assert "player_2" not in other.split("\n")[3], "the hidden partner is named to another seat"
    e.step(actions.parse("play AS"))
    assert "AS (played by player_2 in trick 1)" in to_ansi(e.engine_state, e.rules, viewer=3), "reveal"


def test_dealer_sees_own_discard_only() -> None:
    """The dealer's view shows its discard; no other seat's view shows that card."""
    e = _scripted("four_handed", DEAL_4, ["pass", "order up", "discard 9C"])
    assert "your discard: 9C" in to_ansi(e.engine_state, e.rules, viewer=0), "dealer view lacks its discard"
    for seat in (1, 2, 3):
        assert "9C" not in to_ansi(e.engine_state, e.rules, viewer=seat), f"seat {seat} sees the discard"


def test_thrown_in_and_lone_hands() -> None:
    """A thrown-in hand says so; a lone hand shows alone, the lone defender and who sits out."""
    thrown = _scripted("four_handed", DEAL_4, ["pass"] * 8, stick_the_dealer=False)
    assert "hand over: thrown in (everyone passed), nobody scores" in thrown.render(), thrown.render()
    assert "round 2: player_1 pass, player_2 pass, player_3 pass, player_0 pass" in thrown.render(), "bids"
    lone = _scripted(
        "four_handed", DEAL_4, ["pass", "order up", "discard 9C", "alone", "defend alone"], defend_alone=True
    )
    text = lone.render()
    assert "alone   player_1 defends alone" in text and "sitting out: player_0, player_3" in text, text


def test_render_modes(capsys: pytest.CaptureFixture[str]) -> None:
    """ansi returns the text, human prints it after each step, no render mode warns and returns None."""
    e = raw_env(render_mode="ansi")
    e.reset(seed=4)
    assert e.render() == to_ansi(e.engine_state, e.rules), "ansi render is not to_ansi of the state"
    human = raw_env(render_mode="human")
    human.reset(seed=4)
    assert human.render() is None, "human render returns a value"
    assert to_ansi(human.engine_state, human.rules) in capsys.readouterr().out, "human render printed nothing"
    quiet = raw_env()
    quiet.reset(seed=4)
    with pytest.warns(UserWarning, match="render_mode"):
        assert quiet.render() is None, "render without a mode returns a value"


def test_bad_row_or_viewer() -> None:
    """to_ansi rejects a row or viewer out of range."""
    s = init_state(PRESETS["four_handed"], seeds=[1, 2])
    with pytest.raises(ValueError, match="row"):
        to_ansi(s, PRESETS["four_handed"], row=2)
    with pytest.raises(ValueError, match="viewer"):
        to_ansi(s, PRESETS["four_handed"], viewer=4)


def _hidden_names(s: State, row: int, viewer: int) -> set[str]:
    """Cards ``viewer`` cannot see at ``row``: other hands, hidden kitty, another's discard."""
    hidden = int(s.kitty[row])
    for seat in range(s.num_players):
        if seat != viewer:
            hidden |= int(s.hands[row, seat])
    if int(s.discard[row]) >= 0 and int(s.dealer[row]) != viewer:
        hidden |= 1 << int(s.discard[row])
    hidden &= ~(1 << int(s.upcard[row]))  # everyone saw the upcard, wherever it went
    if int(s.called[row]) >= 0:
        hidden &= ~(1 << int(s.called[row]))  # the called card's name is public, not its holder
    return {cards.name(c) for c in cards.cards_of(hidden)}


@pytest.mark.parametrize("preset", ["four_handed", "five_handed"])
def test_render_never_shows_hidden_cards(preset: str) -> None:
    """Across random positions and viewers, no card the viewer cannot see appears in the text."""
    rules = PRESETS[preset]
    rng = np.random.default_rng(5)
    s = init_state(rules, 24, rng=rng)
    checked = 0
    while not is_done(s).all():
        for row in range(0, s.batch_size, 3):
            for viewer in range(rules.num_players):
                shown = set(CARD_TOKEN.findall(to_ansi(s, rules, viewer=viewer, row=row)))
                leaked = shown & _hidden_names(s, row, viewer)
                assert not leaked, f"seat {viewer} sees hidden cards {leaked} at row {row}"
                checked += 1
        s = step(s, sample_legal(s, rules, rng), rules)
    assert checked > 100, "too few positions checked"
