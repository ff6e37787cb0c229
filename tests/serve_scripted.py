"""`python -m tests.serve_scripted [--hash-embedder] serve ...`: the real CLI's `serve` on the
scripted model, for tests that need a server process of their own (signals, SIGKILL)."""

from __future__ import annotations

import sys

import local_agent.app as app

from .fakes import ScriptedBackend, scripted_cli_obj


def main() -> None:
    backend = ScriptedBackend(default="Scripted answer.")
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
