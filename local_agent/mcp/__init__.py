"""`local-agent mcp`: the user's memory as a Model Context Protocol server, for the other
assistants they use (desktop chat apps, editor and terminal agents), on the official `mcp`
SDK. It goes through the memory service, so provenance, --today and the store's locks are the
same as in chat, `memory` commands and `serve`.

One job per module, imports flowing down the list:

    server.py     builds the server (tools, resources, instructions); stdio or streamable HTTP
    tools.py      recall, list_memories, remember, forget, ask: schemas, descriptions, calls
    resources.py  memory://facts and one memory://digests/{id} per conversation digest
    render.py     the text a client's model reads: memory texts quoted, as data
    results.py    the structured results (each tool's output schema)
    runtime.py    the memory and the models, loaded on first use; one job at a time
    options.py    --user, --read-only, --allow-forget, --http, and the checks on them

Nothing here is imported until `local-agent mcp` runs.
"""
