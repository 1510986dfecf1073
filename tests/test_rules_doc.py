"""docs/rules.md, the project's rulebook, stays true to the repository and to the engine.

* Every citation of the page in the repository (``rules.md#c5``, ``rules.md#c13, #c17``,
  ``rules.md §4.2``) and every in-page link points at an anchor or section the page has.
* The two scoring tables, parsed from the page, give exactly the points of the engine's
  scoring (the batched ``engine.play.hand_points`` and the single-table ``Table``) for
  every case they list, and together cover every case.
* The settings and presets tables list ``RulesConfig``'s settings with their defaults.
* The five-handed worked example, parsed from the page, plays through the engine with the
  leaders, trick winners and scores the page gives; the four-handed one scores as written.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from dataclasses import fields
from pathlib import Path

import numpy as np
import pytest

from euchre_env import actions as act
from euchre_env import cards
from euchre_env.engine import current_player, init_state, is_done, step
from euchre_env.engine import deal as deal_mod
from euchre_env.engine import play as play_mod
from euchre_env.engine.single import Table
from euchre_env.rules import EPISODES, PRESETS, VARIANTS, RulesConfig, make_rules

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rules.md"
TEXT = DOC.read_text(encoding="utf-8")
LINES = TEXT.splitlines()
NUM_CONVENTIONS = 22

ANCHOR = re.compile(r'<a id="([^"]+)"></a>')
HEADING = re.compile(r"^#{2,3} (\d+(?:\.\d+)?)\.? ")
# rules.md#c13, rules.md#c13, #c17, rules.md#c13 and #c17
CITE_ANCHOR = re.compile(r"rules\.md#([\w-]+)((?:\s*(?:,|and)\s*#[\w-]+)*)")
# rules.md §4.2, rules.md §3.5 and §4.5
CITE_SECTION = re.compile(r"rules\.md\s*§\s*(\d+(?:\.\d+)?)((?:\s*(?:,|and)\s*§\s*\d+(?:\.\d+)?)*)")
SKIP_DIRS = {".git", ".venv", "build", "dist", "runs", "__pycache__", ".ipynb_checkpoints", "node_modules"}


# --- the page's structure ---------------------------------------------------------------------------


def anchors() -> list[str]:
    return ANCHOR.findall(TEXT)


def sections() -> set[str]:
    """Section numbers of the numbered headings ("3", "3.5")."""
    return {m.group(1) for line in LINES if (m := HEADING.match(line))}


def section_anchor(number: str) -> str:
    return "s" + number.replace(".", "-")


def test_anchors_are_unique_and_every_section_has_one() -> None:
    """Each numbered heading is preceded by its anchor (§3.5 -> s3-5); anchors are unique."""
    ids = anchors()
    assert len(ids) == len(set(ids)), f"repeated anchors: {sorted(i for i in ids if ids.count(i) > 1)}"
    for k, line in enumerate(LINES):
        if m := HEADING.match(line):
            want = f'<a id="{section_anchor(m.group(1))}"></a>'
            assert LINES[k - 1] == want, f"heading {line!r} must follow {want!r}, found {LINES[k - 1]!r}"
    assert {"3", "3.5", "4", "4.2", "4.5", "6"} <= sections(), f"sections: {sorted(sections())}"


def test_conventions_are_numbered_one_to_22() -> None:
    """Conventions c1..c22 (the numbering citations use), each with its bold title."""
    convs = [i for i in anchors() if re.fullmatch(r"c\d+", i)]
    assert convs == [f"c{n}" for n in range(1, NUM_CONVENTIONS + 1)], f"convention anchors: {convs}"
    for n in range(1, NUM_CONVENTIONS + 1):
        k = LINES.index(f'<a id="c{n}"></a>')
        assert LINES[k + 1].startswith(f"**Convention {n}: "), f"c{n} is followed by {LINES[k + 1]!r}"


# --- citations across the repository ------------------------------------------------------------------


def repository_files() -> list[Path]:
    """The repository's .py, .md and .ipynb files (no virtual env, caches, build or run outputs)."""
    out = []
    for path in sorted(ROOT.rglob("*")):
        rel = path.relative_to(ROOT).parts
        if any(p in SKIP_DIRS or p.endswith(".egg-info") for p in rel[:-1]):
            continue
        if path.suffix in (".py", ".md", ".ipynb") and path.is_file():
            out.append(path)
    return out


def file_text(path: Path) -> str:
    """A file's text; a notebook's cell sources joined (outputs left out)."""
    raw = path.read_text(encoding="utf-8")
    if path.suffix != ".ipynb":
        return raw
    return "\n".join("".join(c.get("source", [])) for c in json.loads(raw)["cells"])


def citations(text: str) -> list[tuple[str, str]]:
    """``(kind, target)`` of every citation in ``text``: ``("anchor", "c5")`` or ``("section", "4.2")``."""
    found = []
    for m in CITE_ANCHOR.finditer(text):
        found += [("anchor", a) for a in [m.group(1), *re.findall(r"#([\w-]+)", m.group(2))]]
    for m in CITE_SECTION.finditer(text):
        found += [("section", s) for s in [m.group(1), *re.findall(r"§\s*(\d+(?:\.\d+)?)", m.group(2))]]
    return found


def test_citation_parser() -> None:
    """The parser reads single, listed and section citations (so the next test is not vacuous)."""
    text = "(rules.md#c13, #c17) rules.md#c6 and #c10; rules.md §4.2 and §3.5, docs/rules.md#s2-3"
    assert citations(text) == [
        ("anchor", "c13"),
        ("anchor", "c17"),
        ("anchor", "c6"),
        ("anchor", "c10"),
        ("anchor", "s2-3"),
        ("section", "4.2"),
        ("section", "3.5"),
    ]


def test_every_citation_points_into_the_page() -> None:
    """Every ``rules.md#...`` / ``rules.md §...`` citation in the repository, and every link
    inside the page, names an anchor or section of docs/rules.md."""
    ids, secs = set(anchors()), sections()
    bad, seen = [], 0
    for path in repository_files():
        for kind, target in citations(file_text(path)):
            seen += 1
            if (kind == "anchor" and target not in ids) or (kind == "section" and target not in secs):
                bad.append(f"{path.relative_to(ROOT)}: rules.md {'#' if kind == 'anchor' else '§'}{target}")
    for target in re.findall(r"\]\(#([\w-]+)\)", TEXT):
        seen += 1
        if target not in ids:
            bad.append(f"docs/rules.md: link to #{target}")
    assert not bad, "citations of missing rules.md anchors or sections:\n" + "\n".join(bad)
    assert seen > 50, f"only {seen} citations found: is the scan reading the code?"


def test_the_engine_cites_the_page() -> None:
    """The rules modules cite the page (the citations above are the ones the engine's readers follow)."""
    for rel in ("euchre_env/engine/play.py", "euchre_env/engine/bidding.py", "euchre_env/rules.py"):
        assert citations((ROOT / rel).read_text(encoding="utf-8")), f"{rel} cites no rules.md section"


# --- tables -------------------------------------------------------------------------------------------------


def tables_after(marker: str) -> list[list[list[str]]]:
    """The markdown tables between ``<!-- marker -->`` and the next heading or anchor, each as
    rows of cells with the header row first (the ``|---|`` line dropped)."""
    start = LINES.index(f"<!-- {marker} -->")
    tables: list[list[list[str]]] = []
    current: list[list[str]] | None = None
    for line in LINES[start + 1 :]:
        if line.startswith(("#", "<a id=", "<!--")):
            break
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if current is None:
                current = []
                tables.append(current)
            if not all(set(c) <= set("-: ") for c in cells):
                current.append(cells)
        else:
            current = None
    assert tables, f"no table after <!-- {marker} -->"
    return tables


def ints_in(cell: str) -> set[int]:
    """The numbers in a cell, ignoring a remark in parentheses: "0, 1 or 2" -> {0, 1, 2}."""
    return {int(x) for x in re.findall(r"\d+", re.sub(r"\(.*?\)", "", cell))}


def points_of(cell: str) -> int:
    """The award in a cell: its leading integer ("2 (three defenders)" -> 2, "+1" -> 1)."""
    m = re.match(r"[+]?(\d+)", cell)
    assert m, f"no points in {cell!r}"
    return int(m.group(1))


def engine_points(rules: RulesConfig, cases: list[dict[str, object]]) -> np.ndarray:
    """Points per seat from the engine's scoring, batched and single-table (which must agree).

    Each case sets ``maker``, ``partner``, ``alone``, ``defender_alone`` and ``tricks`` (per seat).
    """
    s = deal_mod.empty_state(len(cases), rules)
    for row, c in enumerate(cases):
        s.maker[row], s.partner[row], s.alone[row] = c["maker"], c["partner"], c["alone"]
        s.defender_alone[row], s.tricks_won[row] = c["defender_alone"], c["tricks"]
    batched = play_mod.hand_points(s, np.arange(len(cases)), rules).astype(int)
    single = np.array([Table(s, rules, row)._hand_points() for row in range(len(cases))])
    assert (batched == single).all(), "batched and single-table scoring disagree"
    return batched


def spread(total: int, seats: list[int], num_players: int, first: int = 0) -> list[list[int]]:
    """Ways to give ``total`` tricks to ``seats``: all to each seat in turn, and one at a time round them."""
    ways = []
    for k in range(len(seats)):
        t = [0] * num_players
        t[seats[k]] = total
        ways.append(t)
    t = [0] * num_players
    for j in range(total):
        t[seats[(first + j) % len(seats)]] += 1
    ways.append(t)
    return ways


FIVE_KINDS = {
    "with a partner": "partner",
    "alone, announced": "declared",
    "alone, called card out of play": "buried",
}
FOUR_KINDS = {"with partner": "partner", "alone": "alone", "alone, against a lone defender": "lone_defender"}


def scoring_rows(variant: str, kinds: dict[str, str]) -> list[tuple[str, set[int], int, int, str]]:
    """``(kind, trick counts, side award, defender award, defender cell)`` per row of a scoring table;
    checks that each kind's rows cover 0..5 tricks exactly once."""
    (table,) = tables_after(f"scoring-table: {variant}")
    header, *rows = table
    assert len(header) == 4, f"{variant} scoring table header: {header}"
    out, covered = [], {k: [] for k in kinds.values()}
    for row in rows:
        assert row[0] in kinds, f"{variant}: unknown case {row[0]!r}; expected one of {list(kinds)}"
        tricks = ints_in(row[1])
        assert tricks and tricks <= set(range(6)), f"{variant}: trick counts {row[1]!r}"
        covered[kinds[row[0]]] += sorted(tricks)
        out.append((kinds[row[0]], tricks, points_of(row[2]), points_of(row[3]), row[3]))
    for kind, got in covered.items():
        assert sorted(got) == list(range(6)), (
            f"{variant} {kind}: rows cover trick counts {sorted(got)}, not 0..5 once"
        )
    return out


def test_five_handed_scoring_table_is_the_engines() -> None:
    """Every cell of the five-handed table (rules.md §3.5) is what the engine scores, for every
    maker seat, partner seat and split of the tricks."""
    rules = PRESETS["five_handed"]
    p = rules.num_players
    cases, want = [], []
    for kind, tricks, side_pts, def_pts, def_cell in scoring_rows("five_handed", FIVE_KINDS):
        words = {"three": 3, "four": 4}
        named = re.search(r"\((\w+) defenders\)", def_cell)
        for maker in range(p):
            partners = [(maker + k) % p for k in range(1, p)] if kind == "partner" else [-1]
            for partner, n in itertools.product(partners, sorted(tricks)):
                side = [maker] if partner < 0 else [maker, partner]
                defenders = [s for s in range(p) if s not in side]
                if named:
                    assert words[named.group(1)] == len(defenders), (
                        f"{kind}: {def_cell!r} but {len(defenders)}"
                    )
                for ts, td in itertools.product(spread(n, side, p), spread(5 - n, defenders, p, maker)):
                    tricks_won = [a + b for a, b in zip(ts, td, strict=True)]
                    cases.append(
                        {
                            "maker": maker,
                            "partner": partner,
                            "alone": kind == "declared",
                            "defender_alone": -1,
                            "tricks": tricks_won,
                        }
                    )
                    want.append([side_pts if s in side else def_pts for s in range(p)])
    got = engine_points(rules, cases)
    for case, w, g in zip(cases, want, got.tolist(), strict=True):
        assert g == w, f"the table gives {w}, the engine {g}, for {case}"
    assert len(cases) > 300, f"only {len(cases)} cases"


def test_four_handed_scoring_table_is_the_engines() -> None:
    """Every cell of the four-handed table (rules.md §4.5) is what the engine scores, to both
    members of each partnership, whoever sits out and whichever partner took the tricks."""
    rules = PRESETS["four_handed_defend_alone"]
    cases, want = [], []
    for kind, tricks, side_pts, def_pts, _ in scoring_rows("four_handed", FOUR_KINDS):
        for maker, n in itertools.product(range(4), sorted(tricks)):
            mates, opponents = [maker, (maker + 2) % 4], [(maker + 1) % 4, (maker + 3) % 4]
            playing = [maker] if kind != "partner" else mates
            lone_defenders = opponents if kind == "lone_defender" else [-1]
            for lone in lone_defenders:
                defending = [lone] if lone >= 0 else opponents
                for ts, td in itertools.product(spread(n, playing, 4), spread(5 - n, defending, 4)):
                    cases.append(
                        {
                            "maker": maker,
                            "partner": -1,
                            "alone": kind != "partner",
                            "defender_alone": lone,
                            "tricks": [a + b for a, b in zip(ts, td, strict=True)],
                        }
                    )
                    want.append([side_pts if s in mates else def_pts for s in range(4)])
    got = engine_points(rules, cases)
    for case, w, g in zip(cases, want, got.tolist(), strict=True):
        assert g == w, f"the table gives {w}, the engine {g}, for {case}"
    assert len(cases) > 100, f"only {len(cases)} cases"


def test_settings_table_lists_every_setting_with_its_default() -> None:
    """The settings table (rules.md §5) names each RulesConfig setting, its default and its values."""
    (table,) = tables_after("settings-table")
    header, *rows = table
    assert header[:3] == ["setting", "default", "values"], f"settings header: {header}"
    documented = {r[0].strip("`"): r for r in rows}
    settings = {f.name: f.default for f in fields(RulesConfig) if f.init}
    assert set(documented) == set(settings), (
        f"documented {sorted(documented)}, RulesConfig {sorted(settings)}"
    )
    for name, default in settings.items():
        assert ast.literal_eval(documented[name][1].strip("`")) == default, f"{name}: default {default!r}"
    values = lambda name: {ast.literal_eval(v.strip("` ")) for v in documented[name][2].split(",")}
    assert values("variant") == set(VARIANTS), f"variant values: {documented['variant'][2]}"
    assert values("episode") == set(EPISODES), f"episode values: {documented['episode'][2]}"
    assert values("stick_the_dealer") == values("defend_alone") == {True, False}
    low, high = (int(x) for x in re.search(r"(\d+)\.\.(\d+)", documented["points_to_win"][2]).groups())
    make_rules(points_to_win=low), make_rules(points_to_win=high)
    for bad in (low - 1, high + 1):
        with pytest.raises(ValueError, match="points_to_win"):
            make_rules(points_to_win=bad)


def test_presets_table_is_rules_presets() -> None:
    """Each documented preset is ``PRESETS[name]`` and equals the ``make_rules`` call beside it."""
    (table,) = tables_after("presets-table")
    _, *rows = table
    assert {r[0].strip('`"') for r in rows} == set(PRESETS), f"presets: {[r[0] for r in rows]}"
    for name, call in rows:
        expr = ast.parse(call.strip("`"), mode="eval").body
        assert isinstance(expr, ast.Call) and expr.func.id == "make_rules", f"{name}: {call}"
        args = [ast.literal_eval(a) for a in expr.args]
        kwargs = {k.arg: ast.literal_eval(k.value) for k in expr.keywords}
        assert PRESETS[name.strip('`"')] == make_rules(*args, **kwargs), f"{name} is not {call}"


# --- the worked examples -------------------------------------------------------------------------------------


def test_five_handed_worked_example_plays_as_written() -> None:
    """rules.md §3.7: the deal, bids and tricks on the page play through the engine with the
    page's leaders, trick winners, hand points and new totals."""
    deal_t, setup_t, bids_t, tricks_t, scores_t = tables_after("example: five_handed")
    assert [deal_t[0], bids_t[0][:2], scores_t[0][0]] == [
        ["seat", "player", "hand"],
        ["player", "bids"],
        "player",
    ]
    seat_of = {row[1]: int(row[0]) for row in deal_t[1:]}
    (dealer, upcard, kitty) = setup_t[1]
    before = {row[0]: int(row[1]) for row in scores_t[1:]}
    rules = make_rules("five_handed", episode="game")
    given = {
        "dealer": seat_of[dealer],
        "hands": [row[2].split() for row in sorted(deal_t[1:], key=lambda r: int(r[0]))],
        "upcard": upcard,
        "kitty": kitty.split(),
        "scores": [before[name] for name in sorted(seat_of, key=seat_of.get)],
    }
    state = init_state(rules, deals=[given])
    bids = {seat_of[row[0]]: [b.strip() for b in row[1].split(",")] for row in bids_t[1:]}
    while state.phase[0] != act.Phase.PLAY:
        seat = int(current_player(state)[0])
        assert bids[seat], f"seat {seat} is to bid but the page lists no more bids for it"
        state = step(state, np.array([act.parse(bids[seat].pop(0))]), rules)
    assert not any(bids.values()), f"bids left over: {bids}"
    for row in tricks_t[1:]:
        number, leader, played, winner = row
        assert int(current_player(state)[0]) == seat_of[leader], f"trick {number}: {leader} should lead"
        taken = state.tricks_won[0].astype(int)
        for card in played.split():
            state = step(state, np.array([act.play(cards.parse(card))]), rules)
        # After the last trick a game deals the next hand: the finished hand is in last_tricks.
        now = (state.last_tricks if state.hand_over[0] else state.tricks_won)[0].astype(int)
        assert (now - taken).tolist() == [int(s == seat_of[winner]) for s in range(5)], (
            f"trick {number}: {winner} should win"
        )
    assert state.hand_over[0] and not is_done(state)[0], "the hand is over and the game goes on"
    by_seat = sorted(scores_t[1:], key=lambda r: seat_of[r[0]])
    assert state.last_points[0].tolist() == [points_of(r[2]) for r in by_seat], "the hand's points"
    assert state.scores[0].tolist() == [int(r[3]) for r in by_seat], "the new totals"
    assert state.dealer[0] == (seat_of[dealer] + 1) % 5, "the deal moves left"


def test_four_handed_worked_example_scores_as_written() -> None:
    """rules.md §4.7: each hand of the table scores (by the engine) what the table says, and
    the running totals end at the heading's result."""
    (table,) = tables_after("example: four_handed")
    _, *rows = table
    rules = PRESETS["four_handed"]
    totals = {"A": 0, "B": 0}
    for hand, makers, how, tricks, a_pts, b_pts, a_total, b_total in rows:
        maker = 0 if makers == "A" else 1
        n = int(tricks)
        tricks_won = [0] * 4
        tricks_won[maker], tricks_won[(maker + 1) % 4] = n, 5 - n
        case = {
            "maker": maker,
            "partner": -1,
            "alone": FOUR_KINDS[how] == "alone",
            "defender_alone": -1,
            "tricks": tricks_won,
        }
        pts = engine_points(rules, [case])[0].tolist()
        assert [pts[0], pts[1]] == [int(a_pts), int(b_pts)], f"hand {hand}: engine {pts}"
        assert pts[2] == pts[0] and pts[3] == pts[1], f"hand {hand}: partners score alike"
        totals["A"] += pts[0]
        totals["B"] += pts[1]
        assert [totals["A"], totals["B"]] == [int(a_total), int(b_total)], f"hand {hand}: totals {totals}"
    heading = next(line for line in LINES if line.startswith("### 4.7 "))
    a, b = (int(x) for x in re.search(r"(\d+)–(\d+)", heading).groups())
    assert [totals["A"], totals["B"]] == [a, b], f"{heading!r} but the hands give {totals}"


def test_no_rule_texts_outside_the_repository() -> None:
    """The project stands alone: no file points at rule texts outside the repository."""
    outside = re.compile(r"RULES-NOTES|shared/seeds|\.\./shared")
    hits = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in repository_files()
        if p != Path(__file__).resolve()
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if outside.search(line)
    ]
    assert not hits, "rule texts outside the repository are cited (cite docs/rules.md):\n" + "\n".join(hits)
