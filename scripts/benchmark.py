#!/usr/bin/env python
"""Benchmark local-agent: the same as `local-agent bench` (see --help).

    python scripts/benchmark.py --quick
    python scripts/benchmark.py --backends llama-cpp,transformers --output-dir bench-results
    python scripts/benchmark.py --sections backends --random-weights --backends transformers-4bit/cuda
"""

import sys

from local_agent.cli import main

if __name__ == "__main__":  # the guard matters: measurements run in spawned child processes
    sys.argv[1:1] = ["bench"]
    main()
