"""Rewrite the generated parts of ``euchre_env/envs/aec_env.py``'s docstring in place.

Run after changing the observation layout or the action table::

    python tests/data/regen_aec_docstring.py

It replaces the observation tables (``encoding.obs_layout(rules).table()``),
the observation sizes of the spec table and the action table
(``aec_env.action_table()``); ``tests/test_aec_env.py`` checks they are current.
"""

from __future__ import annotations

import re
from pathlib import Path

from euchre_env.encoding import obs_layout
from euchre_env.envs.aec_env import action_table
from euchre_env.rules import make_rules

PATH = Path(__file__).resolve().parents[2] / "euchre_env" / "envs" / "aec_env.py"


def _replace_table(text: str, anchor: str, table: str) -> str:
    """Replace the markdown table that follows the line ``anchor`` (after one blank line)."""
    pattern = re.compile(re.escape(anchor) + r"\n\n(?:\|.*\n)+")
    new, count = pattern.subn(lambda _: f"{anchor}\n\n{table}\n", text)
    if count != 1:
        raise SystemExit(f"anchor {anchor!r} found {count} times in {PATH}")
    return new


def main() -> None:
    """Regenerate the tables and sizes."""
    text = PATH.read_text(encoding="utf-8")
    four, five = obs_layout(make_rules("four_handed")), obs_layout(make_rules("five_handed"))
    text = _replace_table(text, "Four-handed (`euchre_v0`):", four.table())
    text = _replace_table(text, "Five-handed (`euchre_five_handed_v0`):", five.table())
    text = _replace_table(text, "the inverse.", action_table())
    text, count = re.subn(
        r"\| Observation Shape \| \(\d+,\) four-handed, \(\d+,\) five-handed",
        f"| Observation Shape | ({four.size},) four-handed, ({five.size},) five-handed",
        text,
    )
    if count != 1:
        raise SystemExit("observation shape row not found")
    PATH.write_text(text, encoding="utf-8")
    print(f"rewrote {PATH}")


if __name__ == "__main__":
    main()
