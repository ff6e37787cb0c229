"""local-agent: a private assistant that runs a small local model and remembers its user."""

import os

from .process.omp_env import apply_wait_policy

__version__ = "0.1.0"

# Nothing in this package may reach a model hub: weights come from local files only.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# numpy's OpenBLAS threads: recall's products are small (a candidate's vector, a month of
# memories), and a second BLAS thread waits on a core the model or another program holds: on a
# busy 2-core VM, dated recall at a million memories took 25 ms with two threads and 12 ms with
# one (docs/memory-store.md). Set before numpy loads OpenBLAS; a user's own setting wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
# How llama.cpp's threads wait for each other (omp_env.py): before llama_cpp is first imported.
apply_wait_policy()
