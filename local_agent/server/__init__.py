"""`local-agent serve`: an OpenAI-compatible HTTP server that keeps the model loaded and
remembers, and the client that lets `ask` use it.

One job per module, imports flowing down the list:

    run.py         binds the sockets, runs uvicorn, loads the model, drains on exit
    app.py         the FastAPI application: routes, guard, error handlers
    routes_*.py    the endpoints: OpenAI chat/models/embeddings, memory REST, warm ask
    state.py       what the routes share: the engine, the worker, the options (503, 429)
    streaming.py   hands a worker thread's tokens to the event loop; waits, watching for disconnects
    security.py    Host check, API key, content type, body limit (one ASGI guard)
    schemas.py     request bodies (pydantic) and what the server cannot honour
    turns.py       a chat request as a turn: system text, dialogue, message, settings
    responses.py   OpenAI-shaped response bodies
    errors.py      errors in OpenAI's shape, with the right status
    worker.py      one thread, one model: a bounded FIFO queue of jobs
    engine.py      the adapter: the one module that calls agent/app/memory
    namespaces.py  X-Local-Agent-User: a separate data dir per namespace
    discovery.py   where the warm-ask socket is; what load-time settings must match
    client.py      the warm `ask`: standard library only, so `ask` starts fast
    options.py     the server's own options (host, key, limits) and their checks
"""
