"""``euchre play`` tells a hand a person can follow, and never shows a card the person's seat may not see.

Whole hands of both games are piped through :func:`apps.play.play`; the
transcript is checked against the engine: every card played with its player,
each trick's winner, the points and scores, the called card (five-handed), and
at every write the cards still hidden from the human (other seats' hands, the
kitty, another seat's discard) must not appear in it.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from agents import make_agent
from apps.play import can_print, card_text, main, parse_choice, play
from euchre_env import actions, cards
from euchre_env.actions import Phase
from euchre_env.envs.aec_env import raw_env
from euchre_env.state import State

CARD = re.compile(r"(?<![\w])(10|[89TJQKA])([♣♦♥♠CDHS])(?![\w])")
PLAYED = re.compile(r"^(player_\d|you) (?:leads|plays|lead|play) (\S+?)(?::.*)?$", re.MULTILINE)
TRICK = re.compile(r"^trick (\d) won by (player_\d)(?: \(you\))? with (\S+); tricks: ", re.MULTILINE)


def card_ids(text: str) -> set[int]:
    """Every card named in ``text`` (symbol or letter form)."""
    return {cards.parse(rank + suit) for rank, suit in CARD.findall(text)}


def hidden_from(s: State, human: int) -> set[int]:
    """Cards the human's seat may not know now: other hands, the kitty, another seat's discard (the upcard
    and the called card are public wherever they are)."""
    hidden = set(cards.cards_of(int(s.kitty[0])))
    for seat in range(s.hands.shape[1]):
        if seat != human:
            hidden |= set(cards.cards_of(int(s.hands[0, seat])))
    if int(s.dealer[0]) != human and int(s.discard[0]) >= 0:
        hidden.add(int(s.discard[0]))
    return hidden - {int(s.upcard[0]), int(s.called[0])}


class Recorder(io.StringIO):
    """An output stream that checks each write against what is hidden from ``human`` at that moment."""

    def __init__(self, env: raw_env, human: int) -> None:
        super().__init__()
        self.env, self.human = env, human
        self.leaks: list[tuple[str, list[str]]] = []
        self.named: set[int] = set()

    def write(self, text: str) -> int:
        named = card_ids(text)
        self.named |= named
        s = self.env.engine_state
        calling = int(s.phase[0]) == Phase.CALL and int(s.turn[0]) == self.human
        if calling and (text.startswith("your move: ") or len(text.split()) == 1):
            # The human calls a card: the menu lists every card the human does not hold (the complement
            # of its own hand, which says nothing of where they are), and the answer names one of them.
            return super().write(text)
        leaked = named & hidden_from(s, self.human)
        if leaked:
            self.leaks.append((text, [cards.name(c) for c in sorted(leaked)]))
        return super().write(text)


class Answers:
    """A person at the keyboard: a random legal move each time, typed as a number, a card with a symbol,
    a card in lower-case letters, a suit name or the words, in turn."""

    def __init__(self, env: raw_env, seed: int) -> None:
        self.env, self.rng, self.k = env, np.random.default_rng(seed), 0
        self.forms: set[str] = set()

    def isatty(self) -> bool:
        return False

    def readline(self) -> str:
        legal = np.flatnonzero(self.env.observe(self.env.agent_selection)["action_mask"]).tolist()
        i = int(self.rng.integers(len(legal)))
        a, form = legal[i], ("number", "symbol", "letters", "words")[self.k % 4]
        self.k += 1
        if a < actions.PASS and form in ("symbol", "letters"):
            text = card_text(a % cards.NUM_CARDS, symbols=form == "symbol")
            text = text if form == "symbol" else text.lower()
        elif actions.NAME_SUIT_BASE <= a < actions.ALONE and form != "number":
            form, text = "suit", cards.SUIT_NAMES[a - actions.NAME_SUIT_BASE]
        elif form == "words":
            text = actions.describe(a)
        else:
            form, text = "number", str(i + 1)
        self.forms.add(form)
        return text + "\n"


def play_hand(variant: str, human: int, seed: int, inp: object = None) -> tuple[str, Recorder, raw_env]:
    """One hand with heuristic bots; the human answers with ``inp`` (default: random legal moves)."""
    env = raw_env(variant)
    out = Recorder(env, human)
    bots = {s: make_agent("heuristic", env.rules) for s in range(env.rules.num_players) if s != human}
    answers = inp if inp is not None else Answers(env, seed)
    assert play(env, human, bots, 1, seed, answers, out) is not None, out.getvalue()[-800:]
    return out.getvalue(), out, env


def check_against_engine(text: str, env: raw_env, human: int) -> None:
    """Every card played is told with its player, every trick with its winner, the points and totals."""
    s = env.engine_state
    assert int(s.phase[0]) == Phase.DONE
    you = f"player_{human}"
    told = {(you if who == "you" else who, cards.parse(c)) for who, c in PLAYED.findall(text)}
    played = {
        (f"player_{seat}", int(c))
        for trick in s.trick_cards[0]
        for seat, c in enumerate(trick)
        if int(c) >= 0
    }
    assert len(PLAYED.findall(text)) == len(played) and told == played, f"cards told {told} != {played}"
    tricks = TRICK.findall(text)
    made = int(s.last_maker[0]) >= 0
    assert [int(n) for n, _, _ in tricks] == ([1, 2, 3, 4, 5] if made else []), f"trick lines {tricks}"
    winners = [f"player_{int(w)}" for w in s.trick_winner[0]] if made else []
    assert [w for _, w, _ in tricks] == winners, f"winners told {tricks}, engine {winners}"
    for (_, w, c), t in zip(tricks, range(5), strict=False):
        assert cards.parse(c) == int(s.trick_cards[0, t, int(w[-1])]), f"trick {t + 1}: winning card {c}"
    points = [int(x) for x in s.last_points[0]]
    assert "--- hand over:" in text, text[-600:]
    total = re.search(r"^total after 1 hand: (.*)$", text, re.MULTILINE)
    assert total, text[-600:]
    if env.rules.called_card:
        want = ", ".join(f"player_{i}{' (you)' if i == human else ''} {p}" for i, p in enumerate(points))
    else:
        name = [f"player_{i}{' (you)' if i == human else ''}" for i in range(4)]
        want = f"{name[0]} & {name[2]} {points[0]}, {name[1]} & {name[3]} {points[1]}"
    assert total.group(1) == want, f"totals told {total.group(1)!r}, engine {want!r}"


@pytest.mark.parametrize("human", [0, 3])
def test_four_handed_hand_is_told_and_hides_the_bots_cards(human: int) -> None:
    """Four-handed: bids in words, partnerships, each card with its player, trick winners and counts,
    points per partnership; no hidden card is ever printed."""
    for seed in range(3):
        text, out, env = play_hand("four_handed", human, seed)
        check_against_engine(text, env, human)
        assert not out.leaks, f"seed {seed}: hidden cards printed: {out.leaks}"
        assert "partners: player_0" in text, text[:600]
        heads = re.findall(r"^\[([^\]]+)\] ", text, re.MULTILINE)
        words = {"bidding, round 1", "bidding, round 2", "the dealer's discard", "alone or with partner",
                 *(f"trick {k} of 5" for k in range(1, 6))}  # fmt: skip
        assert heads and set(heads) <= words, f"phases told as {sorted(set(heads))}"
        assert not any(p.name in text for p in Phase), "phases must be told in words, not BID_UPCARD"
        assert re.search(
            r"^(player_\d|you) (passes|pass|orders up|order up|picks up|pick up)", text, re.MULTILINE
        )
        assert re.search(r"^== trump \w+ [♣♦♥♠], maker player_\d", text, re.MULTILINE), (
            "the contract is announced"
        )
        assert re.search(r"^your move: 1\) ", text, re.MULTILINE), "the moves are numbered"
        dealt = set(cards.cards_of(int(env.engine_state.played_by[0, human])))
        assert dealt <= out.named, "the human's own cards should be shown (else the leak check is vacuous)"


def test_five_handed_hand_tells_the_called_card_and_the_partner() -> None:
    """Five-handed: the maker's call is announced, the partner is named when the called card is played,
    and scores are per player; no hidden card is ever printed (the human may be the hidden partner)."""
    calls = 0
    for seed in range(6):
        text, out, env = play_hand("five_handed", 1, seed)
        check_against_engine(text, env, 1)
        assert not out.leaks, f"seed {seed}: hidden cards printed: {out.leaks}"
        called = int(env.engine_state.last_called[0])
        if called >= 0:
            calls += 1
            name = card_text(called)
            assert re.search(
                rf"^(player_\d|you) calls? the {name}: its holder is the hidden partner$", text, re.MULTILINE
            )
            assert re.search(
                rf"^(player_\d|you) (leads|plays|lead|play) {name}: the called card", text, re.MULTILINE
            ) or (int(env.engine_state.last_partner[0]) < 0), f"seed {seed}: the reveal of {name} is not told"
    assert calls >= 2, f"only {calls} of 6 hands had a called card: the check is too weak"


def test_every_input_form_is_accepted_in_a_whole_hand() -> None:
    """Numbers, cards with symbols, cards in lower-case letters, suit names and words all play."""
    forms: set[str] = set()
    for seed in range(4):
        env = raw_env("four_handed")
        answers = Answers(env, seed)
        out = Recorder(env, 2)
        bots = {s: make_agent("random", env.rules) for s in (0, 1, 3)}
        assert play(env, 2, bots, 1, seed, answers, out) is not None
        assert "not legal now" not in out.getvalue() and "unknown" not in out.getvalue(), out.getvalue()
        forms |= answers.forms
    assert {"number", "symbol", "letters", "words"} <= forms, f"forms tried: {forms}"


def test_parse_choice_reads_cards_suits_numbers_and_words() -> None:
    """A card or a suit alone is enough; a card not in the list or an unknown word says why."""
    plays = [actions.play("9H"), actions.play("KH"), actions.play("TS")]
    for text in ("9♥", "9h", " 9H ", "play 9h"):
        assert parse_choice(text, plays) == actions.play("9H"), text
    assert parse_choice("10♠", plays) == parse_choice("ts", plays) == actions.play("TS")
    assert parse_choice("2", plays) == actions.play("KH")
    with pytest.raises(ValueError, match=r"A♥ is not legal now; legal: 9♥, K♥, 10♠"):
        parse_choice("AH", plays)
    names = [actions.PASS, actions.name_suit("C"), actions.name_suit("S")]
    assert parse_choice("spades", names) == parse_choice("♠", names) == actions.name_suit("S")
    with pytest.raises(ValueError, match="'name hearts' is not legal now"):
        parse_choice("hearts", names)
    with pytest.raises(ValueError, match="unknown action"):
        parse_choice("fold", names)


def test_ascii_terminal_gets_letters() -> None:
    """A terminal that cannot print ♣♦♥♠ gets cards with letters (and --ascii forces them)."""
    raw = io.BytesIO()
    ascii_out = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    assert not can_print(ascii_out, cards.SUIT_SYMBOLS) and can_print(io.StringIO(), cards.SUIT_SYMBOLS)
    assert main(["--seed", "1", "--bots", "random"], inp=io.StringIO("1\n" * 40), out=ascii_out) == 0
    ascii_out.flush()
    text = raw.getvalue().decode("ascii")
    assert re.search(r"your hand: (10|[9JQKA])[CDHS]", text) and "trick 5 won by" in text, text[-600:]
    out = io.StringIO()
    assert main(["--seed", "1", "--bots", "random", "--ascii"], inp=io.StringIO("1\n" * 40), out=out) == 0
    assert not set(cards.SUIT_SYMBOLS) & set(out.getvalue()), "--ascii still printed suit symbols"


def test_thrown_in_hand_and_game_scores() -> None:
    """Everyone passing twice (no stick the dealer) throws the hand in; a game tells each hand's
    partnership scores and who won."""

    class Passer:
        def act(self, obs: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
            return np.where(masks[:, actions.PASS], actions.PASS, masks.argmax(axis=1))

    env = raw_env("four_handed_no_stick")
    out = Recorder(env, 0)
    assert play(env, 0, dict.fromkeys((1, 2, 3), Passer()), 1, 4, io.StringIO("pass\n" * 4), out) is not None
    text = out.getvalue()
    assert "everyone passed: the " in text and "round 2, name another suit" in text, text
    assert "--- hand over: everyone passed, the hand is thrown in; nobody scores ---" in text, text
    out = io.StringIO()
    code = main(["--seat", "-1", "--game", "--points-to-win", "3", "--seed", "2", "--bots", "heuristic"],
                inp=io.StringIO(""), out=out)  # fmt: skip
    text = out.getvalue()
    scores = re.findall(
        r"^score \(game to 3\): player_0 & player_2 (\d+), player_1 & player_3 (\d+)$", text, re.MULTILINE
    )
    assert code == 0 and scores and max(map(int, scores[-1])) >= 3, text[-800:]
    assert len(re.findall(r"^--- hand \d+: ", text, re.MULTILINE)) == len(scores), (
        "each hand of the game is announced"
    )
    assert re.search(r"^=== game over: player_\d & player_\d win ===$", text, re.MULTILINE), text[-400:]
