"""Word problems: read the quantities, propose expressions, rank them, answer or say unsure.

    from local_agent.reading.problems import solve, Solved, Unsure
    result = solve("I paid 36 euros for 4 tickets. How much was each ticket?")
"""

from .solve import Ranked, Solved, Unsure, rank, solve

__all__ = ["Ranked", "Solved", "Unsure", "rank", "solve"]
