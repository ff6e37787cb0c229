#!/usr/bin/env python
"""Evidence recall of local-agent's memory on LoCoMo (see scripts/evals/locomo.py).

    python scripts/eval_locomo.py /work/shared/data/locomo-dev.json --k 5,10,25,50 --output locomo.json
"""

import sys

from evals.locomo import main

if __name__ == "__main__":
    sys.exit(main())
