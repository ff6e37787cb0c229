"""Helpers for the page's tests: ask as the page does (the warm `ask` route, streamed JSON
lines, with the identity the info route gives), and a small ChatGPT export."""

from __future__ import annotations

import json
from typing import Any

import httpx

ASK = "/v1/local-agent/ask"


def headers(key: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"} if key else {}


def page_ask(url: str, message: str, session: str | None, *, key: str | None = None, incognito: bool = False,
             timeout: float = 120.0) -> tuple[list[str], dict[str, Any]]:
    """The tokens and the final line of one answer, asked as the page asks."""
    info = httpx.get(url + "/v1/local-agent/info", headers=headers(key), timeout=timeout).json()
    body = {"message": message, "session": session, "memory": info["memory"], "expect": info["identity"],
            "settings": {"incognito": True} if incognito else {}, "wait_for_memory": True}
    tokens: list[str] = []
    with httpx.stream("POST", url + ASK, json=body, headers=headers(key), timeout=timeout) as response:
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            item = json.loads(line)
            if "token" in item:
                tokens.append(item["token"])
            else:
                return tokens, item
    raise AssertionError("the answer ended without its last line")


def chatgpt_export(conversations: list[tuple[str, list[tuple[str, str]]]], start: float = 1_714_600_000.0) -> bytes:
    """A ChatGPT conversations.json: each conversation a title and its (role, text) messages."""
    exported = []
    for number, (title, messages) in enumerate(conversations):
        mapping: dict[str, Any] = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
        parent = "root"
        for index, (role, text) in enumerate(messages):
            node = f"c{number}m{index}"
            mapping[node] = {"id": node, "parent": parent, "children": [], "message": {
                "id": node, "author": {"role": role}, "create_time": start + number * 86_400 + index * 60,
                "content": {"content_type": "text", "parts": [text]}}}
            mapping[parent]["children"].append(node)
            parent = node
        exported.append({"title": title, "create_time": start + number * 86_400, "mapping": mapping,
                         "current_node": parent, "id": f"conv-{number}"})
    return json.dumps(exported).encode("utf-8")
