#!/usr/bin/env python
"""Benchmark local-agent: the same as `local-agent bench` (see `local-agent bench --help`).

    python scripts/benchmark.py --quick
    python scripts/benchmark.py --sections server,batch
    python scripts/benchmark.py --sections stores --texts ../shared/data/locomo-dev.json --store-sizes 1000,10000
"""

import sys

from local_agent.cli import main

if __name__ == "__main__":  # the guard matters: measurements run in spawned child processes
    sys.argv[1:1] = ["bench"]
    main()
