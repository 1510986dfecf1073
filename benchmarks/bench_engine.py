"""Engine throughput: uniformly random legal play through whole hands.

Batch sizes 1, 64, 1024, 4096 and 16384, both variants, decisions per second on
one core, beside OpenSpiel's euchre measured in the same run (if installed).

    python benchmarks/bench_engine.py [--seconds 1 --repeats 3]

Same as ``euchre bench``; see ``euchre_env/bench.py`` for what is counted.
"""

from euchre_env.bench import main

if __name__ == "__main__":
    main()
