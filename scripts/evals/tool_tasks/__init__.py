"""The tool evaluation's task set, generated from a seed (scripts/make_tool_tasks.py).

Five categories: arithmetic, dates, remembered facts, questions over a generated notes folder,
and questions over a generated SQLite database whose gold answers come from running gold SQL.
Gold answers are computed here with plain Python and SQLite, never with the tools under test."""
