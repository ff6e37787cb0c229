// One message of the conversation on the page: the person's, or an answer that streams in and
// then gets its "recalled / remembered" line and its tool calls, each a line that opens.
import { el, plural } from "./dom.js";
import { renderMarkdown } from "./markdown.js";

export function userTurn(text, { unsaved = false } = {}) {
  return el("div", { class: "turn user" },
    el("p", { class: "who" }, "You", unsaved ? el("span", { class: "tag" }, "not saved") : null),
    el("div", { class: "body" }, renderMarkdown(text)));
}

// An answer: `add(chunk)` while it streams, then `finish(record)`, `stopped()` or `failed(text)`.
export class AnswerTurn {
  constructor({ toolCalls = null, unsaved = false } = {}) {
    this.text = "";
    this.body = el("div", { class: "body" });
    this.extra = el("div", { class: "extra" });
    this.who = el("p", { class: "who" }, "Assistant", unsaved ? el("span", { class: "tag" }, "not saved") : null);
    this.node = el("div", { class: "turn assistant" }, this.who, this.body, this.extra);
    this.pending = false;
    if (toolCalls) this.extra.append(...toolCalls.map(toolLine));
  }

  static saved(text, toolCalls) {
    const turn = new AnswerTurn({ toolCalls });
    turn.text = text;
    turn.render();
    return turn;
  }

  waiting() {
    this.node.classList.add("streaming");
    this.body.replaceChildren(el("p", { class: "muted" }, "…"));
  }

  add(chunk) {
    this.text += chunk;
    if (!this.pending) {  // at most one render a frame, however fast tokens come
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.render(); });
    }
  }

  render() {
    const text = this.text.trimStart();
    this.body.replaceChildren(renderMarkdown(text));
    if (text && !this.shown) {
      this.shown = true;
      if (this.node.classList.contains("streaming")) performance.mark("local-agent:first-token");
    }
  }

  finish(record) {
    this.node.classList.remove("streaming");
    if (typeof record.answer === "string") this.text = record.answer;
    this.render();
    if (record.interrupted) this.extra.append(el("p", { class: "tag" }, "stopped"));
    this.extra.append(...(record.tool_calls || []).map(toolLine));
    this.extra.append(memoryLine(record.memories_recalled || [], record.memories_saved || []));
    for (const text of record.notices || []) this.extra.append(el("p", { class: "small muted" }, text));
    if (record.memory_error) this.extra.append(el("p", { class: "error small" }, `memory: ${record.memory_error}`));
  }

  stopped() {
    this.node.classList.remove("streaming");
    this.render();
    if (!this.text.trim()) this.body.replaceChildren(el("p", { class: "muted" }, "(stopped before any word)"));
    this.extra.append(el("p", { class: "tag" }, "stopped"));
  }

  failed(message) {
    this.node.classList.remove("streaming");
    this.render();
    this.extra.append(el("p", { class: "error" }, message));
  }
}

function memoryLine(recalled, saved) {
  if (!recalled.length && !saved.length) return el("p", { class: "memory-line muted small" }, "nothing recalled, nothing remembered");
  const parts = [];
  if (saved.length) parts.push(`remembered ${saved.length}`);
  if (recalled.length) parts.push(`recalled ${recalled.length}`);
  return el("details", { class: "memory-line small" },
    el("summary", {}, parts.join(" · ")),
    saved.length ? el("p", { class: "label" }, "Remembered from this message") : null,
    saved.length ? el("ul", {}, saved.map((item) => el("li", {}, item.text, el("span", { class: "tag" }, item.action)))) : null,
    recalled.length ? el("p", { class: "label" }, "Recalled for it") : null,
    recalled.length ? el("ul", {}, recalled.map((hit) => el("li", {}, el("span", { class: "tag" }, hit.kind), " ", hit.text))) : null);
}

function toolLine(call) {
  const args = JSON.stringify(call.arguments ?? {});
  const outcome = call.error ? `failed: ${call.error}` : short(String(call.result ?? ""), 60);
  const trace = [`arguments: ${JSON.stringify(call.arguments ?? {}, null, 2)}`];
  if (call.result !== undefined && call.result !== null) trace.push(`result: ${String(call.result)}`);
  if (call.error) trace.push(`error: ${call.error}`);
  if (call.seconds !== undefined) trace.push(`took ${Number(call.seconds).toFixed(2)} s`);
  return el("details", { class: "tool-line small" },
    el("summary", {}, `tool ${call.name}(${short(args, 40)}) → ${outcome}`),
    el("pre", {}, trace.join("\n")));
}

const short = (text, length) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

export const turnsLabel = (count) => plural(count, "message");
