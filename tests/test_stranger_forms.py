"""Forms strangers write that the readers took for something else (issue 42, eighth sitting),
each with a look-alike that must not match: a question said after its quantities with no
comma ("oven says 350 farenheit whats that in celcius"), a sign said in words ("minus ten
degrees"), an amount and its unit joined by a hyphen ("a 55-inch screen"), a bill whose share
or charge the calculation leaves out, a monthly amount asked of a message that names no month,
a count of days told from its earlier end, and "I am born ..." taken for a name."""

from __future__ import annotations

import datetime as dt

import pytest

from local_agent.reading.clauses import asking_sentence, asks_after_quantities, split_clauses
from local_agent.reading.introductions import introduced_name
from local_agent.reading.problems import reply as problem_reply
from local_agent.reading.problems.asking import calculation_request
from local_agent.reading.requests import embedded_question
from local_agent.tools.arithmetic_rules import arithmetic
from local_agent.tools.calculator import evaluate
from local_agent.tools.coverage import date_left_out, period_left_out, sql_left_out
from local_agent.tools.date_rules import date_question
from local_agent.tools.dates import make_date
from local_agent.tools.measures import reading_doubt
from local_agent.tools.quantity_rules import unit_conversion
from local_agent.tools.question_text import normalize
from local_agent.tools.router import Router
from local_agent.tools.shares import charge_left_out, share_left_out
from local_agent.turn.problem_said import problem_said

ROUTER = Router(("calculator", "date"))


@pytest.mark.parametrize(("message", "asked"), [
    ("oven says 350 farenheit whats that in celcius", "whats that in celcius"),
    ("if i have ninety days from today to return it whats the last day", "whats the last day"),
    ("my son was born on june 3 2015 how old is he", "how old is he"),
    ("there are six of us how much each", "how much each"),
])
def test_a_question_after_its_quantities_without_a_comma_is_a_clause_that_asks(message: str, asked: str):
    clauses = split_clauses(message)
    assert (clauses[-1].text, clauses[-1].act) == (asked, "question")
    assert asks_after_quantities(message)


@pytest.mark.parametrize("message", [
    "I know how much it costs",  # no quantity before it
    "I ran 5 km and I know how much it hurts",  # a clause after it: said, not asked
    "we had 3 kids, what a day",  # no asking word after "what"
])
def test_a_how_or_what_inside_a_statement_asks_nothing(message: str):
    assert not asks_after_quantities(message)
    assert all(clause.act == "statement" for clause in split_clauses(message))


@pytest.mark.parametrize(("message", "expression"), [
    ("What is minus ten degrees Celsius in Fahrenheit?", "-10 * 9 / 5 + 32"),
    ("it's minus 5 celsius outside right now, what would that be in fahrenheit?", "-5 * 9 / 5 + 32"),
    ("negative 40 f in c", "(-40 - 32) * 5 / 9"),
    ("oven says 350 farenheit whats that in celcius", "(350 - 32) * 5 / 9"),
    ("How many centimeters is a 32-inch waist?", "32 * 2.54"),
    ("I was wondering how tall 6 feet is in metres.", "6 * 0.3048"),
    ("body temp 38.5 celsius what is that fahrenheit", "38.5 * 9 / 5 + 32"),
    ("How many tablespoons are in 3/4 cup?", "3/4 * 16"),  # a fraction is one amount
    ("how many teaspoons in 2 tablespoons", "2 * 3"),
    ("half a cup of butter how many tablespoons is that", "0.5 * 16"),
])
def test_conversions_in_strangers_words(message: str, expression: str):
    assert unit_conversion(normalize(message)) == expression


def test_minus_between_two_numbers_stays_an_operator():
    assert normalize("whats 20 minus 5") == "whats 20 minus 5"
    assert normalize("(3+4) minus 2") == "(3+4) minus 2"
    assert normalize("it is 5 degrees below zero, in fahrenheit?") == "it is -5 degrees, in fahrenheit?"


def test_a_question_inside_need_to_figure_out_is_the_question():
    assert embedded_question("I need to figure out how many centimetres a 55-inch TV screen is.") == (
        "how many centimetres a 55-inch TV screen is?")
    assert embedded_question("I need to work out the total") == "work out the total"  # no question word after it


@pytest.mark.parametrize(("message", "expression"), [
    ("the bill was $84 and we add a 15% tip. How much does each of us pay?", "15 / 100 * 84"),
    ("dinner was 90, split between us with a 10% tip", "90 * 1.1"),
])
def test_a_share_asked_of_a_calculation_that_divides_nothing_is_doubted(message: str, expression: str):
    assert share_left_out(message, expression) == "you asked for each one's share, and it divides by no one"


@pytest.mark.parametrize(("message", "expression"), [
    ("the bill was $84 for 4 of us with a 15% tip. How much does each of us pay?", "84 * 1.15 / 4"),
    ("shirts are $15 each and I'm buying 4, what's my total?", "15 * 4"),  # "each" of the price, not asked
    ("How much is each ticket?", "36 * 4"),
])
def test_a_share_divided_or_not_asked_is_not_doubted(message: str, expression: str):
    assert share_left_out(message, expression) is None


def test_a_charge_named_without_its_amount_is_left_out():
    message = "If I get 20 percent off a 90 dollar coat and then pay sales tax, what's the final price?"
    assert charge_left_out(message, "90 * (1 - 20 / 100)") == "it leaves out the tax, whose amount you did not give"


@pytest.mark.parametrize("message", [
    "coat is 90 with 8% tax, what's the final price?",  # its rate beside it
    "price 120 before 20% VAT, price with VAT?",  # its rate said once, named again
    "coat is 90, tax included, what's the final price?",  # waived
    "how much tip should I leave on a 60 bill",  # the charge is what is asked
])
def test_a_charge_with_its_amount_waived_or_asked_is_not_left_out(message: str):
    assert charge_left_out(message, "90") is None


def test_a_period_asked_that_the_message_names_nowhere_else_is_left_out():
    message = "I need to figure out what my monthly payment would be on a $12,000 car loan at 6% interest."
    assert period_left_out(message, "12000 * (1 + 6 / 100)") == "the month"
    assert period_left_out("hw many secnds in a day", "1 * 86400") is None  # a conversion, not a rate
    assert period_left_out("I pay 1200 over 12 months, what is the monthly payment?", "1200 / 12") is None


def test_a_count_of_days_since_a_past_day_is_told_from_its_earlier_end():
    route = ROUTER.route("We moved into this flat on the 2nd of August 2025. How many days have we lived here?")
    said = make_date(dt.date(2026, 3, 11))(route.arguments)
    assert said.endswith("is 221 days.") and "-" not in said.split(" is ")[-1]


def test_a_conversion_asked_after_its_quantities_goes_to_the_calculator():
    route = ROUTER.route("oven says 350 farenheit whats that in celcius")
    assert route.kind == "direct" and evaluate(route.arguments["expression"]) == pytest.approx(176.6667, abs=1e-3)


@pytest.mark.parametrize(("message", "name"), [
    ("I am born 14 July 1985. How old I was on 1 January 2000?", None),
    ("Hi, I am Sam.", "Sam"),
])
def test_born_is_no_name(message: str, name: str | None):
    assert introduced_name(message) == name


@pytest.mark.parametrize(("message", "expression"), [
    ("laptop 1200 minus 15% then plus 20% vat total?", "1200 * (1 - 15 / 100) * (1 + 20 / 100)"),
    ("jacket is 120, 25% off and then another 10% off, what do I pay?", "120 * (1 - 25 / 100) * (1 - 10 / 100)"),
    ("price 100 plus 10% minus 5%, total?", "100 * (1 + 10 / 100) * (1 - 5 / 100)"),
    # "plus" after a word joins two offers, it signs nothing: "5% extra" has no direction, so no reading
    ("25% off everything plus 5% extra for members, price 200, member price?", None),
])
def test_a_sign_right_before_a_percentage_says_its_direction(message: str, expression: str | None):
    assert arithmetic(message) == expression


@pytest.mark.parametrize(("message", "asks"), [
    ("bill 64.50 plus 18 percent tip split four ways", True),
    ("tip 15% on 42 dollars and divide by 2", True),
    ("I split the 40 dollar bill with 2 friends", False),  # told, not commanded
    ("we will split the 300 dollar rent 3 ways next month", False),
])
def test_a_calculation_given_as_a_command_asks_for_it(message: str, asks: bool):
    assert calculation_request(message) is asks


def test_a_total_asked_over_a_comparison_counts_the_base_twice():
    both = problem_said("Our team scored 27 goals and our rival scored 3 more than we did. "
                        "How many goals did the two teams score altogether?")
    assert both is not None and both[1] == "unsure" and '"altogether" asks for both amounts added together' in both[0]
    counted = problem_said("Jo has 7 pens and Kim has 4 more than Jo. How many pens do they have together?")
    assert counted == ("18. I read this as (7 + 4) + 7 = 18.", "answer")


def test_an_age_in_days_is_not_answered_in_years():
    message = "My son was born on 14 August 2025. How many days old is he today?"
    assert date_left_out(message, {"operation": "age", "date": "2025-08-14"}) == "an age in days, weeks or months"
    years = {"operation": "age", "date": "2025-08-14"}
    assert date_left_out("how old is he today, born 14 August 2025?", years) is None


def test_a_percentage_takes_its_direction_from_its_own_clause():
    # "25% of this weekend" (a typo of "off") takes no "plus" from the next clause: no reading
    assert arithmetic("jaket is $120 but its 25% of this weekend, plus 7% sales tax on top. what do i pay?") is None


@pytest.mark.parametrize(("message", "asks"), [
    ("it says 98.6 — what's that in Celsius?", True),
    ("I ran 5 km today", False),
])
def test_what_that_is_in_another_unit_asks_for_an_amount(message: str, asks: bool):
    assert calculation_request(message) is asks


def test_how_much_off_asks_for_the_discount_not_the_price_after_it():
    assert reading_doubt("the tv is 40 percent off its 900 price, how much off is that", "900 * (1 - 40 / 100)") == (
        "you asked for the discount, and it gives the amount after it")
    assert reading_doubt("a 20% discount on a 45 pound jumper, what do i pay", "45 * (1 - 20 / 100)") is None


@pytest.mark.parametrize("message", [
    "how many working days between march 16 and march 27, not counting the first day",
    "count the business days from march 20 to april 10 excluding both ends",
    "how many fridays are left this year not counting this week",
])
def test_days_left_out_of_a_count_are_said_back_not_counted_in(message: str):
    assert date_left_out(message, date_question(message)) == "days left out of the count"


def test_not_counting_today_is_read_and_leaves_nothing_out():
    message = "how many weekdays from today until april 3, not including today"
    assert date_left_out(message, date_question(message)) is None


def test_a_span_in_weeks_says_one_week_and_one_day():
    route = ROUTER.route("how many weeks from 2026-12-24 to 2027-01-01")
    assert make_date(dt.date(2026, 3, 11))(route.arguments).endswith("is 8 days (1 week and 1 day).")


@pytest.mark.parametrize(("message", "arguments"), [
    ("ugh payday is every friday lol, how many more fridays are left this month?",
     {"operation": "count_weekdays", "date": "today", "other": "month-end", "weekday": "fri"}),
    ("How many business days from tomorrow until 1 April, 1 April also counted?",  # one day named twice
     {"operation": "count_weekdays", "date": "tomorrow", "other": "--04-01", "weekday": "workday"}),
])
def test_weekday_counts_in_strangers_words(message: str, arguments: dict[str, str]):
    assert date_question(message) == arguments


@pytest.mark.parametrize(("message", "asked"), [
    ("I dread that meeting, and I just want to know how many more Mondays are left", "how many more Mondays are left?"),
    ("we want to know how many users havent done a single upload", "how many users havent done a single upload?"),
    ("I'd like to see the number of users with zero purchases", "what is the number of users with zero purchases?"),
    ("I work out at the gym on mondays", "I work out at the gym on mondays"),  # no opener: said, not asked
])
def test_an_indirect_opener_with_an_adverb_or_we_asks(message: str, asked: str):
    assert embedded_question(message).endswith(asked)


def test_how_much_each_at_the_end_asks_for_a_share_and_a_charge_is_asked_only_by_name():
    assert share_left_out("20% tip on dinner for 4, how much each?", "20 / 100 * 4") is not None
    message = "What will I pay for a $60 item that's 15% off, once sales tax is added?"  # "what" asks the price
    assert charge_left_out(message, "60 * (1 - 15 / 100)") == "it leaves out the tax, whose amount you did not give"
    assert charge_left_out("bill 60, what is the tax?", "60") is None


def test_a_span_back_in_time_no_query_holds_is_said():
    assert sql_left_out("how many users have a last login that is more than a year old",
                        "SELECT count(*) FROM users WHERE strftime('%Y', last_login) = ?", [2025]) == (
        "a span back in time")


def test_look_alikes_of_a_span_back_in_time_and_of_a_share():
    between = "SELECT count(*) FROM users WHERE age >= ? AND age <= ?"
    assert sql_left_out("how many users are between 30 and 40 years old", between, [30, 40]) is None
    dearer = "How much more do 5 boxes at $14 each cost than 3 boxes at $19 each?"  # a price each, no share asked
    assert share_left_out(dearer, "5 * 14 - 3 * 19") is None


@pytest.mark.parametrize(("message", "expression"), [
    ("whats minus 5 plus 3", "-5 + 3"),  # a sign said before the first number is kept (it had been 5 + 3)
    ("what is -5 * 2", "-5 * 2"),
    ("whats 20 minus 5", "20 - 5"),  # look-alike: minus between two numbers
])
def test_a_typed_calculation_keeps_the_sign_of_its_first_number(message: str, expression: str):
    assert arithmetic(message) == expression


@pytest.mark.parametrize("message", [
    "My mother birthday is on 20 June. How many years old she will become on this birthday?",
    "how many years since 4 july", "born on 20 June, how old am I",
])
def test_years_counted_from_a_day_with_no_year_are_said_not_answered(message: str):
    assert date_left_out(message, date_question(message)) == "a number of years from a day given with no year"


@pytest.mark.parametrize("message", [
    "how many months until 20 June",  # the coming 20 June: a count of months says something
    "born on 20 June 1990, how old am I", "how many years since 4 july 1976",
    "My sister was born on 23 August 1989. How old will she be on November 1st this year?",  # the day counted to
])
def test_look_alikes_with_a_year_or_counting_ahead_are_read(message: str):
    assert date_question(message) is not None and date_left_out(message, date_question(message)) is None


@pytest.mark.parametrize(("message", "said"), [
    ("if i run at 10 kilometers an hour how long will 21.1 kilometers take me, give me the answer in minutes",
     "126.6 minutes."),
    ("at 12 km/h, how long for 30 km, in hours?", "2.5 hours."),
    ("I drive at 90 km/h, how long do 135 km take?", "1 hour 30 minutes."),  # no unit asked: hours and minutes
])
def test_a_time_is_given_in_the_unit_the_question_asks_for(message: str, said: str):
    reply = problem_reply(message)
    assert reply is not None and reply.text.startswith(said)


@pytest.mark.parametrize(("message", "expression"), [
    ("how many tablespoons are in 3/4 of a cup", "3/4 * 16"),  # had been read as the sum 3/4 = 0.75
    ("how many ml in 1/2 of a cup", "1/2 * 236.5882365"),
    ("what is 3/4 of 120", "3/4 * 120"),  # look-alike: a fraction of a number, no unit
])
def test_a_fraction_of_a_unit_is_one_amount_to_convert(message: str, expression: str):
    assert arithmetic(message) == expression


@pytest.mark.parametrize(("message", "sentence"), [
    ("a 9 hour flight leaving 22:00, landing when", "a 9 hour flight leaving 22:00, landing when"),  # a clock time
    ("Note: the bill is $96. How much each?", "How much each?"),
    ("Total:$96?", "$96?"),  # a colon before a word or amount still ends a part
])
def test_the_sentence_that_asks_keeps_its_clock_times_whole(message: str, sentence: str):
    assert asking_sentence(message) == sentence
