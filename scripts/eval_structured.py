#!/usr/bin/env python
"""Structured output and tool calls of `local-agent serve` on the default model, through the
`openai` package (docs/server.md reports the numbers):

- schemas: `response_format: json_schema` (strict) over 6 schemas (nested objects, arrays,
  enums, bounded integers and numbers) x 6 requests each; every reply is parsed and validated
  against its schema with `jsonschema`. Target: 100% valid.
- tools: 16 requests with 3 functions offered and `tool_choice: auto`; a request is right when
  the model calls the expected function with the expected arguments (or answers in words when
  no function fits). Measured, not a target: the default model is small.

Usage: python scripts/eval_structured.py [--part schemas|tools|all] [--model NAME] [--out FILE]
The server runs in a fresh temporary data dir with memory off. Writes bench-results/structured.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import jsonschema

from local_agent.bench.server_load import ServerProcess

ROOT = Path(__file__).resolve().parent.parent
ADDRESS = {"type": "object", "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
           "required": ["city", "country"], "additionalProperties": False}
SCHEMAS: dict[str, dict[str, Any]] = {
    "person": {"type": "object", "additionalProperties": False, "required": ["name", "age", "home"],
               "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0, "maximum": 120},
                              "home": ADDRESS}},
    "shopping": {"type": "object", "additionalProperties": False, "required": ["items"],
                 "properties": {"items": {"type": "array", "minItems": 1, "items": {
                     "type": "object", "additionalProperties": False, "required": ["name", "quantity"],
                     "properties": {"name": {"type": "string"},
                                    "quantity": {"type": "integer", "minimum": 1, "maximum": 99}}}}}},
    "review": {"type": "object", "additionalProperties": False, "required": ["stars", "sentiment", "score"],
               "properties": {"stars": {"type": "integer", "minimum": 1, "maximum": 5},
                              "sentiment": {"type": "string", "enum": ["positive", "neutral", "negative"]},
                              "score": {"type": "number", "minimum": 0, "maximum": 1}}},
    "task": {"type": "object", "additionalProperties": False, "required": ["title", "priority", "tags", "done"],
             "properties": {"title": {"type": "string", "maxLength": 60},
                            "priority": {"type": "string", "enum": ["low", "medium", "high"]},
                            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 4},
                            "done": {"type": "boolean"}}},
    "weather": {"type": "object", "additionalProperties": False, "required": ["city", "temperature_c", "sky"],
                "properties": {"city": {"type": "string"},
                               "temperature_c": {"type": "number", "minimum": -60, "maximum": 60},
                               "sky": {"type": "string", "enum": ["clear", "cloudy", "rain", "snow"]},
                               "wind": {"anyOf": [{"type": "integer", "minimum": 0, "maximum": 200},
                                                  {"type": "null"}]}}},
    "meeting": {"$defs": {"Person": {"type": "object", "additionalProperties": False, "required": ["name", "role"],
                                     "properties": {"name": {"type": "string"},
                                                    "role": {"type": "string", "enum": ["host", "guest"]}}}},
                "type": "object", "additionalProperties": False, "required": ["topic", "people", "minutes"],
                "properties": {"topic": {"type": "string"},
                               "people": {"type": "array", "items": {"$ref": "#/$defs/Person"}},
                               "minutes": {"type": "integer", "minimum": 5, "maximum": 480}}},
}
PROMPTS: dict[str, list[str]] = {
    "person": ["Ann is 41 and lives in Lisbon, Portugal.", "Tom, 29, lives in Leeds in England.",
               "My grandmother is 93; she lives in Kyoto, Japan, and her name is Emi.",
               "Describe a person called Lars who lives in Oslo.", "Omar from Cairo, Egypt, turned 35 today.",
               "Make up a person."],
    "shopping": ["I need two loaves of bread and a dozen eggs.", "Buy 3 apples, 1 melon and 6 bananas.",
                 "Shopping list for pancakes.", "We are out of milk.", "Get 12 cans of cat food and 2 bags of litter.",
                 "One of everything for a picnic."],
    "review": ["The hotel was wonderful, best stay ever!", "The food was cold and the waiter was rude.",
               "It was fine, nothing special.", "Five stars, would buy again.", "Broke after two days.",
               "Decent value for the price."],
    "task": ["Remind me to call the dentist tomorrow, it's urgent.", "I already paid the electricity bill.",
             "Someday I'd like to learn the piano.", "Finish the quarterly report for work by Friday.",
             "Water the plants.", "Book flights for the family holiday in August."],
    "weather": ["It's 21 degrees and sunny in Madrid.", "Heavy snow in Montreal, minus 12.",
                "Rain in London, 9 degrees, wind 30 km/h.", "Cloudy and mild in Paris.",
                "What's the weather like in Cairo in July?", "Stormy night in Dublin."],
    "meeting": ["Alice hosts a one-hour budget review with Bob and Carol.", "A 15 minute stand-up led by Dan.",
                "Plan a two-hour workshop on testing, hosted by Eve, with Frank attending.",
                "Lunch meeting about the new office with Grace.", "Interview a candidate called Heidi for 45 minutes.",
                "Team retrospective."],
}
FUNCTIONS: list[dict[str, Any]] = [
    {"type": "function", "function": {"name": "get_weather", "description": "The current weather in a city.",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
    {"type": "function", "function": {"name": "add", "description": "Add two numbers.",
     "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                    "required": ["a", "b"]}}},
    {"type": "function", "function": {"name": "send_email", "description": "Send an email to someone.",
     "parameters": {"type": "object", "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
                    "required": ["to", "body"]}}},
]
# (message, the function expected or None for words, arguments expected: a value, or a word in it)
TOOL_CASES: list[tuple[str, str | None, dict[str, Any]]] = [
    ("What is the weather in Paris?", "get_weather", {"city": "paris"}),
    ("Is it raining in Tokyo right now?", "get_weather", {"city": "tokyo"}),
    ("How warm is it in Cairo today?", "get_weather", {"city": "cairo"}),
    ("Weather for Berlin please.", "get_weather", {"city": "berlin"}),
    ("Tell me the forecast in Rome.", "get_weather", {"city": "rome"}),
    ("What is 17 plus 25?", "add", {"a": 17, "b": 25}),
    ("Add 3 and 4.", "add", {"a": 3, "b": 4}),
    ("What do 120 and 80 add up to?", "add", {"a": 120, "b": 80}),
    ("Sum 2.5 and 7.", "add", {"a": 2.5, "b": 7}),
    ("Email bob@example.com that the meeting moved to 3pm.", "send_email",
     {"to": "bob@example.com", "body": "meeting"}),
    ("Send an email to ann@example.org saying thank you.", "send_email", {"to": "ann@example.org", "body": "thank"}),
    ("Write to carl@example.net: the report is ready.", "send_email", {"to": "carl@example.net", "body": "report"}),
    ("Hello! How are you today?", None, {}),
    ("Thanks, that's all for now.", None, {}),
    ("Tell me a short joke.", None, {}),
    ("What's your name?", None, {}),
]


def _client(url: str) -> Any:
    import openai

    return openai.OpenAI(base_url=url + "/v1", api_key="unused", max_retries=0, timeout=600)


def _model(client: Any) -> str:
    return str(client.models.list().data[0].id)


def run_schemas(client: Any) -> dict[str, Any]:
    rows, model = [], _model(client)
    for name, schema in SCHEMAS.items():
        for prompt in PROMPTS[name]:
            start = time.perf_counter()
            row: dict[str, Any] = {"schema": name, "prompt": prompt}
            try:
                completion = client.chat.completions.create(
                    model=model, messages=[{"role": "user", "content": prompt}],
                    response_format={"type": "json_schema", "json_schema": {"name": name, "schema": schema,
                                                                            "strict": True}})
                row["reply"] = completion.choices[0].message.content
                row["finish_reason"] = completion.choices[0].finish_reason
                jsonschema.validate(json.loads(row["reply"] or ""), schema)
                row["valid"] = True
            except Exception as exc:  # an invalid reply is what is counted here, whatever raised
                row["valid"], row["error"] = False, f"{type(exc).__name__}: {str(exc)[:300]}"
            row["seconds"] = round(time.perf_counter() - start, 2)
            rows.append(row)
            shown = row.get("reply") or row.get("error")
            print(f"{name:9} {'ok ' if row['valid'] else 'BAD'} {row['seconds']:6.1f}s {shown}", flush=True)
    valid = sum(row["valid"] for row in rows)
    return {"requests": len(rows), "valid": valid, "validity": round(valid / len(rows), 4), "rows": rows}


def _right(call: dict[str, Any] | None, expected: str | None, arguments: dict[str, Any]) -> bool:
    if call is None or expected is None:
        return call is None and expected is None
    if call["name"] != expected:
        return False
    got = call["arguments"]
    for key, value in arguments.items():
        if isinstance(value, str) and value.lower() not in str(got.get(key, "")).lower():
            return False
        if not isinstance(value, str) and got.get(key) != value:
            return False
    return True


def run_tools(client: Any) -> dict[str, Any]:
    rows, model = [], _model(client)
    for message, expected, arguments in TOOL_CASES:
        completion = client.chat.completions.create(model=model, messages=[{"role": "user", "content": message}],
                                                    tools=FUNCTIONS, tool_choice="auto")
        choice = completion.choices[0]
        calls = choice.message.tool_calls or []
        call = ({"name": calls[0].function.name, "arguments": json.loads(calls[0].function.arguments)}
                if calls else None)
        row = {"message": message, "expected": expected, "call": call, "content": choice.message.content,
               "finish_reason": choice.finish_reason, "right_function": (call or {}).get("name") == expected,
               "right": _right(call, expected, arguments)}
        rows.append(row)
        print(f"{'right' if row['right'] else 'wrong'} {message!r} -> {call or choice.message.content!r}", flush=True)
    tool_rows = [row for row in rows if row["expected"]]
    return {"requests": len(rows), "right": sum(row["right"] for row in rows),
            "right_function_when_one_fits": sum(row["right_function"] for row in tool_rows),
            "cases_with_a_function": len(tool_rows),
            "words_when_none_fits": sum(row["right"] for row in rows if not row["expected"]), "rows": rows}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["schemas", "tools", "all"], default="all")
    parser.add_argument("--model", default=None)
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results" / "structured.json")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="eval-structured-") as tmp:
        server = ServerProcess(Path(tmp) / "data", args.model, ("--no-memory",))
        try:
            client = _client(server.url)
            if args.part in ("schemas", "all"):
                results["schemas"] = run_schemas(client)
            if args.part in ("tools", "all"):
                results["tools"] = run_tools(client)
        finally:
            server.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if "schemas" in results:
        part = results["schemas"]
        print(f"json_schema: {part['valid']}/{part['requests']} valid ({part['validity']:.0%})")
    if "tools" in results:
        part = results["tools"]
        print(f"tool calls: {part['right']}/{part['requests']} right; the right function in "
              f"{part['right_function_when_one_fits']}/{part['cases_with_a_function']}; words when none fits in "
              f"{part['words_when_none_fits']}/{part['requests'] - part['cases_with_a_function']}")
    return 0 if "schemas" not in results or results["schemas"]["validity"] == 1.0 else 1


if __name__ == "__main__":
    sys.exit(main())
