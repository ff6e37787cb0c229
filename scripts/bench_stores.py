#!/usr/bin/env python
"""Large memory stores: `local_agent/bench/stores.py` (also `local-agent bench --sections stores`).

    python scripts/bench_stores.py --texts ../shared/data/locomo-dev.json ../shared/data/distill-dev.jsonl \\
        --sizes 1000,10000,100000,1000000 [--dated] [--ask 3] [--build-only]

The 1M size and the flags `--dated`, `--ask` and `--build-only` are here for the store's
development; the bench section measures the sizes it is given.
"""

from local_agent.bench.stores import main

if __name__ == "__main__":
    main()
