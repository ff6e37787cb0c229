#!/usr/bin/env python
"""Benchmark local-agent: the same as `local-agent bench` (see --help).

    python scripts/benchmark.py --quick
    python scripts/benchmark.py --backends llama-cpp,transformers --output-dir bench-results
    python scripts/benchmark.py --sections backends --random-weights --backends transformers-4bit/cuda
    python scripts/benchmark.py --server [--clients 8 --requests 25]   # `local-agent serve`: bench_server.py
    python scripts/benchmark.py --sections stores --texts FILES [--sizes 1000,10000]  # bench_stores.py
"""

import sys

from local_agent.cli import main

if __name__ == "__main__":  # the guard matters: measurements run in spawned child processes
    if "--server" in sys.argv[1:]:
        import bench_server  # beside this script

        bench_server.main([arg for arg in sys.argv[1:] if arg != "--server"])
        sys.exit(0)
    if sys.argv[1:3] == ["--sections", "stores"]:
        import bench_stores  # beside this script

        bench_stores.main(sys.argv[3:])
        sys.exit(0)
    sys.argv[1:1] = ["bench"]
    main()
