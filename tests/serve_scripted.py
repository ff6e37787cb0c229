"""`python -m tests.serve_scripted [--hash-embedder] [--noisy-stdout] serve|mcp ...`: the real
CLI's `serve` (or `mcp`) on the scripted model, for tests that need a server process of their
own (signals, SIGKILL, a stdio client). --noisy-stdout: the model writes to stdout each time it
is called, through Python and through the file descriptor as a native library would."""

from __future__ import annotations

import os
import sys

import local_agent.app as app

from .fakes import ScriptedBackend, scripted_cli_obj


class NoisyBackend(ScriptedBackend):
    def _stream(self, messages, settings, json_schema, usage):
        print("noise from the model on stdout", flush=True)
        os.write(1, b"native noise on fd 1\n")
        yield from super()._stream(messages, settings, json_schema, usage)


def main() -> None:
    backend = ScriptedBackend(default="Scripted answer.")
    if "--noisy-stdout" in sys.argv:
        sys.argv.remove("--noisy-stdout")
        backend = NoisyBackend(default="Scripted answer.")
    if "--hash-embedder" in sys.argv:
        sys.argv.remove("--hash-embedder")
        from .reliability import HashEmbedder

        class WarmHashEmbedder(HashEmbedder):
            def warm_up(self) -> None:
                pass

        app.open_embedder = lambda settings: WarmHashEmbedder()
    sys.argv[0] = "local-agent"
    from local_agent.cli import main as cli_main

    cli_main(scripted_cli_obj(backend))


if __name__ == "__main__":
    main()
