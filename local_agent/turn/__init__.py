"""The turn: recall, compose, generate, and the memory work after the answer."""
