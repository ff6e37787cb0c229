"""Offline tools and the step loop that calls them.

A tool is a small typed function with a name, a description and a JSON schema for its
arguments (base.py); registry.py lists them all. At each step the model writes one action,
constrained by the schema actions.py builds from the enabled tools; loop.py runs the steps,
runner.py each call under a time limit, and router.py decides by cheap rules whether a
message needs a tool at all. This package imports only config, types and errors (and the
atomic-write helper in files.py); memory and the model reach it as callables.
"""
