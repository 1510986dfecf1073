"""Names of suits, cards and actions parse exactly: no substring matches, no bools as ids."""

from __future__ import annotations

import numpy as np
import pytest

from euchre_env import actions, cards


@pytest.mark.parametrize("text", ["", " ", "♦♥", "CD", "cl", "heart", "hearts!", "♦ ♥", "X"])
def test_a_suit_is_one_symbol_one_letter_or_a_whole_name(text):
    with pytest.raises(ValueError, match="unknown suit"):
        cards.parse_suit(text)
    with pytest.raises(ValueError, match="unknown suit"):
        actions.parse(f"name {text}" if text.strip() else "name ?")


@pytest.mark.parametrize(("text", "suit"), [("♣", 0), ("d", 1), (" Hearts ", 2), ("SPADES", 3), (2, 2)])
def test_the_accepted_suit_spellings(text, suit):
    assert cards.parse_suit(text) == suit
    assert cards.parse_suit(np.int8(suit)) == suit


@pytest.mark.parametrize("bad", [True, False, np.True_, 1.0, "1", None, 28, -1])
def test_a_card_id_is_an_integer_not_a_bool_or_float(bad):
    for make in (actions.play, actions.discard, actions.call):
        with pytest.raises(ValueError):
            make(bad)
    with pytest.raises(ValueError):
        cards.name(bad)


@pytest.mark.parametrize("bad", [True, False, np.True_, 4, -1, 1.5])
def test_a_suit_id_is_an_integer_0_to_3_not_a_bool(bad):
    with pytest.raises(ValueError, match="unknown suit"):
        cards.parse_suit(bad)
