"""``engine.reset_rows`` against the code it replaced, timed in the same run.

A 4096-table state in mid-play; ``n`` sorted random rows restarted with new
seeds. Reports microseconds per call (best of ``--repeats`` rounds) and the
ratio old / new, for both variants; checks the two agree bit for bit first.

    PYTHONPATH=. python benchmarks/bench_reset.py [--repeats 7 --number 300]
"""

from __future__ import annotations

import argparse
import operator
import timeit
from dataclasses import fields
from functools import cache, reduce

import numpy as np

from euchre_env import cards, engine
from euchre_env.actions import Phase
from euchre_env.engine import deal
from euchre_env.engine.masks import refresh
from euchre_env.rules import HAND_SIZE, make_rules
from euchre_env.state import State

# --- the code before (euchre_env/engine/deal.py at 57cd31a), for comparison ----------


def _old_splitmix64(x: np.ndarray) -> np.ndarray:
    z = np.asarray(x, dtype=np.uint64) + deal._GOLDEN
    z = (z ^ (z >> np.uint64(30))) * deal._MIX1
    z = (z ^ (z >> np.uint64(27))) * deal._MIX2
    return z ^ (z >> np.uint64(31))


@cache
def _old_deck_array(rules):
    return np.array(rules.deck, dtype=np.int8)


def _old_shuffled_decks(seed, hand_no, rules):
    d = _old_deck_array(rules)
    key = _old_splitmix64(np.asarray(seed, np.uint64) ^ _old_splitmix64(np.asarray(hand_no, np.uint64)))
    noise = _old_splitmix64(key[:, None] + np.arange(d.size, dtype=np.uint64) * deal._GOLDEN)
    return d[np.argsort(noise, axis=1, kind="stable")]


def _old_first_dealer(seed, rules):
    z = _old_splitmix64(np.asarray(seed, np.uint64) ^ deal._DEALER_SALT)
    return (z % np.uint64(rules.num_players)).astype(np.int8)


_OLD_HAND_FIELDS = deal.HAND_FIELDS
_OLD_GAME_FIELDS = tuple(f.name for f in fields(State) if f.name not in _OLD_HAND_FIELDS)


@cache
def _old_blank(rules):
    return deal.empty_state(1, rules)


def _old_start_games(s, rows, seeds, rules):
    blank = _old_blank(rules)
    for name in _OLD_GAME_FIELDS:
        getattr(s, name)[rows] = getattr(blank, name)[0]
    s.seed[rows] = seeds
    s.dealer[rows] = _old_first_dealer(seeds, rules)
    _old_start_hand(s, rows, _old_shuffled_decks(seeds, np.zeros(rows.size, np.uint64), rules), rules)


def _old_start_hand(s, rows, order, rules):
    p = rules.num_players
    n = rows.size
    bits = cards.CARD_BIT[order]
    dealt = bits[:, : p * HAND_SIZE].reshape(n, p, HAND_SIZE)
    hand_bits = reduce(operator.or_, (dealt[:, :, i] for i in range(HAND_SIZE)))
    seats = (s.dealer[rows, None].astype(np.int64) + 1 + np.arange(p)) % p
    hands = np.empty((n, p), np.uint32)
    np.put_along_axis(hands, seats, hand_bits, axis=1)
    s.hands[rows] = hands
    s.upcard[rows] = order[:, p * HAND_SIZE]
    s.kitty[rows] = np.bitwise_or.reduce(bits[:, p * HAND_SIZE :], axis=1)
    s.discard[rows] = -1
    s.phase[rows] = Phase.BID_UPCARD
    s.turn[rows] = (s.dealer[rows] + 1) % p
    s.trump[rows] = cards.NO_TRUMP
    for name in ("maker", "called", "partner", "revealed", "defender_alone", "leader", "led"):
        getattr(s, name)[rows] = -1
    s.bid_round[rows] = 1
    s.alone[rows] = False
    s.out[rows] = 0
    s.trick_no[rows] = 0
    s.n_played[rows] = 0
    s.trick_cards[rows] = -1
    s.trick_winner[rows] = -1
    s.played_by[rows] = 0
    s.trick_bits[rows] = 0
    s.tricks_won[rows] = 0


def old_reset_rows(s, rows, seeds, rules):
    rows = np.asarray(rows)
    seeds = np.asarray(seeds)
    if rows.ndim != 1 or rows.dtype.kind not in "iu" or seeds.shape != rows.shape or seeds.dtype != np.uint64:
        raise ValueError("bad rows/seeds")
    _old_start_games(s, rows, seeds, rules)
    refresh(s, rules, rows)


# --- the benchmark -----------------------------------------------------------


def _mid_play(rules, b: int, rng: np.random.Generator) -> State:
    s = engine.init_state(rules, b, rng=rng)
    for _ in range(12):
        s = engine.step(s, engine.sample_legal(s, rules, rng), rules)
    return s


def _time(fn, s, rows, seeds, rules, number: int) -> float:
    return timeit.timeit(lambda: fn(s, rows, seeds, rules), number=number)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--number", type=int, default=300, help="calls per round")
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10, 50, 200, 600])
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'variant':12s} {'episode':7s} {'n':>5s} {'old us':>9s} {'new us':>9s} {'ratio':>6s}")
    for variant in ("four_handed", "five_handed"):
        for episode in ("hand", "game"):
            rules = make_rules(variant, episode=episode)
            base = _mid_play(rules, args.batch, rng)
            for n in args.sizes:
                rows = np.sort(rng.choice(args.batch, n, replace=False))
                seeds = rng.integers(0, 2**64 - 1, n, dtype=np.uint64, endpoint=True)
                old, new = base.copy(), base.copy()
                old_reset_rows(old, rows, seeds, rules)
                engine.reset_rows(new, rows, seeds, rules)
                assert old == new, f"{variant} {episode} n={n}: new reset_rows differs from the old"
                t_old, t_new = [], []
                for _ in range(args.repeats):  # interleaved, so both see the same machine load
                    t_old.append(_time(old_reset_rows, old, rows, seeds, rules, args.number))
                    t_new.append(_time(engine.reset_rows, new, rows, seeds, rules, args.number))
                a, b = min(t_old) / args.number * 1e6, min(t_new) / args.number * 1e6
                print(f"{variant:12s} {episode:7s} {n:5d} {a:9.1f} {b:9.1f} {a / b:6.2f}")


if __name__ == "__main__":
    main()
