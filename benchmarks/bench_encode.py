"""Speed of ``encoding.encode`` against the encoder it replaced, in the same run.

States come from random play in ``EuchreVectorEnv`` (the learner's view, as the
env encodes it every step: ``--steps`` random steps after a reset, so rows are in
bidding, play and finished phases). Old and new calls are interleaved and each is
timed over many repeats; the ratio old/new of the medians (and of the best times)
is printed. Both encoders must agree bit for bit on the timed states.

    python benchmarks/bench_encode.py                    # B = 4096, 64, 16, 1; both variants
    python benchmarks/bench_encode.py --sizes 4096 --repeats 400 --episode game
"""

from __future__ import annotations

import argparse
import functools
import time

import numpy as np

from euchre_env import cards
from euchre_env.actions import Phase
from euchre_env.encoding import CARD_SLOTS, encode, obs_layout, score_thresholds
from euchre_env.envs.vector_env import EuchreVectorEnv
from euchre_env.rules import NUM_TRICKS, RulesConfig
from euchre_env.state import State

# --- the encoder before the lookup-table rewrite (commit 375cefd), kept only for comparison ---
_BIT_OR_NONE = np.concatenate([cards.CARD_BIT, np.zeros(1, np.uint32)])
_TRICK_STEPS = np.arange(NUM_TRICKS, dtype=np.int8)
SPREAD_BITS = np.array([sum((x >> i & 1) << (8 * i) for i in range(8)) for x in range(256)], dtype="<u8")


def _rel(seat: np.ndarray, viewer: np.ndarray, p: int) -> np.ndarray:
    return (seat.astype(np.int64) - viewer + p) % p


def encode_old(s: State, viewer, rules: RulesConfig, dtype: type = np.float32) -> np.ndarray:
    lay = obs_layout(rules)
    b, p, d = s.batch_size, rules.num_players, lay.size
    width = -(-(d + 1) // 8) * 8
    v = np.broadcast_to(np.asarray(viewer, dtype=np.int64), (b,))
    rows = np.arange(b)
    rot = rows[:, None] * p + (np.arange(p) + v[:, None]) % p
    out = np.empty((b, width), dtype=np.uint8)
    at = lay.offsets
    trick = np.minimum(s.trick_no, NUM_TRICKS - 1).astype(np.int64)
    current = np.take(s.trick_cards, (rot // p * NUM_TRICKS + trick[:, None]) * p + rot % p)
    current = np.where((s.trick_no < NUM_TRICKS)[:, None], _BIT_OR_NONE[current], 0)
    sets = [
        np.take(s.hands, rows * p + v)[:, None],
        _BIT_OR_NONE[s.upcard][:, None],
        np.where(s.dealer == v, _BIT_OR_NONE[s.discard], 0)[:, None],
        *([_BIT_OR_NONE[s.called][:, None]] if rules.called_card else []),
        current,
        np.take(s.played_by, rot),
        s.trick_bits,
    ]
    card_block = np.concatenate(sets, axis=1).astype("<u4")
    k8 = card_block.shape[1] * CARD_SLOTS // 8
    out.view("<u8")[:, :k8] = np.take(SPREAD_BITS, card_block.view(np.uint8), mode="clip")
    made = s.maker >= 0
    bidding = (s.phase == Phase.BID_UPCARD) | (s.phase == Phase.BID_SUIT)
    pos = lambda seat: (seat.astype(np.int64) - s.dealer - 1) % p
    stop = np.where(made, pos(s.maker), np.where(bidding, pos(s.turn), p))
    round2 = s.bid_round == 2
    seat_pos = (rot % p - s.dealer[:, None] - 1) % p
    flags = [
        seat_pos < np.where(round2, p, stop)[:, None],
        seat_pos < np.where(round2, stop, 0)[:, None],
        (s.out[:, None] >> (rot % p).astype(np.uint8)) & 1 == 1,
        (made & (s.bid_round == 1))[:, None],
        s.alone[:, None],
        *([((s.partner == v) & (s.called >= 0))[:, None]] if rules.called_card else []),
        (np.take(s.tricks_won, rot)[:, :, None] > _TRICK_STEPS).reshape(b, -1),
        (np.take(s.scores, rot)[:, :, None] >= score_thresholds(rules)).reshape(b, -1),
    ]
    flag_start = at["passed_round_1"]
    flag_block = np.concatenate(flags, axis=1)
    out[:, flag_start : flag_start + flag_block.shape[1]] = flag_block.view(np.uint8)
    hot_start = at["dealer"]
    out[:, hot_start:] = 0
    if rules.called_card:
        other = (at["revealed_by"] + _rel(s.partner, v, p), s.revealed >= 0)
    else:
        other = (at["defender_alone"] + _rel(s.defender_alone, v, p), s.defender_alone >= 0)
    hots = [
        (at["dealer"] + _rel(s.dealer, v, p), True),
        (at["maker"] + _rel(s.maker, v, p), made),
        (at["maker_round"] + s.bid_round.astype(np.int64) - 1, made),
        (at["trump"] + s.trump.astype(np.int64), s.trump < cards.NUM_SUITS),
        other,
        (at["to_act"] + _rel(s.turn, v, p), s.turn >= 0),
        (at["phase"] + s.phase.astype(np.int64), True),
    ]
    cols = np.stack([np.where(on, col, d) for col, on in hots], axis=1)
    winners = at["trick_winner"] + np.arange(NUM_TRICKS) * p + _rel(s.trick_winner, v[:, None], p)
    cols = np.concatenate([cols, np.where(s.trick_winner >= 0, winners, d)], axis=1)
    out.reshape(-1)[(rows[:, None] * width + cols).reshape(-1)] = 1
    obs = out[:, :d]
    return obs.astype(dtype) if dtype is not np.uint8 else np.ascontiguousarray(obs)


# --- states and timing --------------------------------------------------------


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row (as in bench_vector_env). Shape (B,)."""
    counts = np.cumsum(masks, axis=1)
    rank = (rng.random(masks.shape[0]) * counts[:, -1]).astype(np.int64)
    return np.argmax(counts > rank[:, None], axis=1)


def env_states(variant: str, b: int, steps: int, episode: str) -> tuple[State, np.ndarray, RulesConfig]:
    """The learner tables of an env after ``steps`` random legal steps: (state, viewer, rules)."""
    env = EuchreVectorEnv(b, variant, episode=episode)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        _, _, _, _, info = env.step(random_legal(info["action_mask"], rng))
    t = env.tables
    return t.state.copy(), t.seat.copy(), t.rules


def time_pair(fn_old, fn_new, repeats: int) -> tuple[float, float, float, float]:
    """Interleaved timings (seconds): best old, best new, median old, median new."""
    old, new = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn_old()
        t1 = time.perf_counter()
        fn_new()
        t2 = time.perf_counter()
        old.append(t1 - t0)
        new.append(t2 - t1)
    return min(old), min(new), float(np.median(old)), float(np.median(new))


def main() -> None:
    """Print old and new times and their ratio per variant, batch size and dtype."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=int, nargs="+", default=[4096, 64, 16, 1])
    ap.add_argument("--variants", nargs="+", default=["four_handed", "five_handed"])
    ap.add_argument("--dtypes", nargs="+", default=["float32", "uint8"])
    ap.add_argument("--episode", default="hand", choices=["hand", "game"])
    ap.add_argument("--steps", type=int, default=20, help="random env steps before timing")
    ap.add_argument("--repeats", type=int, default=0, help="0: 300 at B >= 4096, more for small B")
    args = ap.parse_args()
    for variant in args.variants:
        full, seat, rules = env_states(variant, max(args.sizes), args.steps, args.episode)
        for b in args.sizes:
            s, v = full.take(np.arange(b)), seat[:b]
            for name in args.dtypes:
                dtype = np.dtype(name).type
                assert np.array_equal(encode_old(s, v, rules, dtype), encode(s, v, rules, dtype)), "differ"
                reps = args.repeats or (300 if b >= 4096 else max(300, 100_000 // max(b, 1)))
                bo, bn, mo, mn = time_pair(
                    functools.partial(encode_old, s, v, rules, dtype),
                    functools.partial(encode, s, v, rules, dtype),
                    reps,
                )
                print(
                    f"{variant:12s} B={b:5d} {name:8s} old {mo * 1e6:8.1f} us  new {mn * 1e6:8.1f} us  "
                    f"ratio median {mo / mn:5.2f}  best {bo / bn:5.2f}   (x{reps})"
                )


if __name__ == "__main__":
    main()
