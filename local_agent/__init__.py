"""local-agent: a private assistant that runs a small local model and remembers its user."""

import os

__version__ = "0.1.0"

# Nothing in this package may reach a model hub: weights come from local files only.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("DO_NOT_TRACK", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# llama.cpp's OpenMP threads busy-wait between operations by default; when other programs share
# the cores that turns into a >10x slowdown. Must be set before llama_cpp is first imported.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
