#!/usr/bin/env python
"""Our system directive against the model's own default setup on everyday prompts with
checkable answers (see scripts/evals/directive.py).

    python scripts/eval_directive.py [--model NAME] [--output FILE]

Prints, per setup, the share of cases passing every check and the share of checks passed, then
one JSON document with every answer.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's package first

from evals.directive import SETUPS, evaluate
from evals.replies import print_report
from evals.settings import dev_settings

from local_agent.backends import create_backend


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="model name (default: the configured model)")
    parser.add_argument("--max-tokens", type=int, default=96)
    parser.add_argument("--output", type=Path, default=None)
    args = parser.parse_args()
    backend, _ = create_backend(dev_settings(), model=args.model)
    with backend:
        report = evaluate(backend, SETUPS, max_tokens=args.max_tokens)
    for name, result in report.items():
        sys.stderr.write(f"{name:>14}: cases passed {result['cases_passed']:.3f}, "
                         f"checks passed {result['checks_passed']:.3f}\n")
    print_report(report, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
