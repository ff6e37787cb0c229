"""Dates and time: the agent's clock and the date phrases in questions and memories."""
