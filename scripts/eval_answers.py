#!/usr/bin/env python
"""End-to-end answer accuracy on the LoCoMo dev sample (see scripts/evals/answers.py).

    python scripts/eval_answers.py /work/shared/data/locomo-dev.json --limit 30 --output answers.json
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package first

from evals.answers import main

if __name__ == "__main__":
    sys.exit(main())
