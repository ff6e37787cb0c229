"""Word problems: read the quantities, propose expressions, rank them, answer or say unsure.

    from local_agent.reading.problems import reply, solve
    solve("I paid 36 euros for 4 tickets. How much was each ticket?")   # Solved(...) or Unsure(...)
    reply("I paid 36 euros for 4 tickets. How much was each ticket?")   # ProblemReply("answer", "9. I read ...")
"""

from .asking import (
    amount_without_numbers,
    asks_about_its_quantities,
    asks_count_or_day,
    asks_for_words,
    calculation_request,
    calculation_shaped,
    calendar_day,
    value_asked,
)
from .reply import (
    ProblemReply,
    cannot_work_out,
    lacks_a_quantity,
    missing_quantity,
    not_worked_out,
    read_exactly,
    reads_times,
    reply,
)
from .solve import Ranked, Solved, Unsure, rank, solve

__all__ = ["ProblemReply", "Ranked", "Solved", "Unsure", "amount_without_numbers", "asks_about_its_quantities",
           "asks_count_or_day", "asks_for_words", "calculation_request", "calculation_shaped", "calendar_day",
           "cannot_work_out", "lacks_a_quantity", "missing_quantity", "not_worked_out", "rank", "read_exactly",
           "reads_times", "reply", "solve", "value_asked"]
