// One memory on the Memory page: its text, when and where it came from, and what can be done
// with it: see the message it came from, correct it (a new memory supersedes it, as
// `memory edit` does) or forget it with that message (as `memory forget --with-source`).
import { del, get, post } from "./api.js";
import { confirmDialog } from "./dialogs.js";
import { day, el, notice, when } from "./dom.js";

const KIND_NAMES = { fact: "fact", digest: "digest", turn: "message" };
const VIA_NAMES = { page: "added on this page", api: "added over the API", "memory add": "added with `memory add`",
                    "memory edit": "corrected with `memory edit`", "/remember": "told with /remember",
                    "import-chats": "imported" };

export function memoryItem(record, { onChanged }) {
  const text = el("p", { class: "memory-text" }, record.text);
  const detail = el("div", { class: "memory-detail", hidden: true });
  const actions = el("div", { class: "actions" });
  const item = el("li", { class: "memory", "data-id": record.id },
    text, el("p", { class: "memory-meta small" }, origin(record)), actions, detail);
  const whereButton = el("button", { type: "button", "aria-expanded": "false",
                                     onclick: () => toggleWhere(record, detail, whereButton) }, "Where from");
  actions.append(whereButton,
    record.kind === "turn" ? null : el("button", { type: "button", onclick: () => edit(record, item, text, onChanged) }, "Edit"),
    el("button", { type: "button", class: "danger-text", onclick: () => forget(record, onChanged) }, "Forget"));
  return item;
}

// "fact · 2 May 2024 · from your message in 20240502-…" : when and from where, in a line.
function origin(record) {
  const source = record.provenance || {};
  const parts = [KIND_NAMES[record.kind] || record.kind, source.date ? day(source.date) : when(record.created)];
  if (source.via && VIA_NAMES[source.via]) parts.push(VIA_NAMES[source.via]);
  else if (record.kind === "digest") parts.push("a summary of a conversation");
  else if (source.role === "user") parts.push("from your message");
  else if (source.role === "assistant") parts.push("from an answer");
  if (source.session) parts.push(`in ${source.session}`);
  if (typeof record.score === "number") parts.push(`match ${record.score.toFixed(2)}`);
  return parts.join(" · ");
}

async function toggleWhere(record, detail, button) {
  if (!detail.hidden) {
    detail.hidden = true;
    button.setAttribute("aria-expanded", "false");
    return;
  }
  try {
    const shown = await get(`/v1/local-agent/memories/${encodeURIComponent(record.id)}`);
    detail.replaceChildren(...whereFrom(shown));
    detail.hidden = false;
    button.setAttribute("aria-expanded", "true");
  } catch (error) {
    notice(error.message, "error");
  }
}

function whereFrom(shown) {
  const record = shown.record;
  const source = record.provenance || {};
  const nodes = [];
  const dated = source.date && day(source.date.slice(0, 10)) !== day(isoDay(record.created)) ? `, dated ${day(source.date)}` : "";
  const stored = `Stored ${when(record.created)}${dated}.`;
  nodes.push(el("p", {}, stored));
  if (shown.sources.length) {
    nodes.push(el("p", { class: "label" }, shown.sources.length === 1 ? "It came from this message" : "It came from these messages"));
    nodes.push(el("ul", {}, shown.sources.map((item) => el("li", {},
      el("blockquote", {}, item.text),
      item.session ? sessionLink(item.session, shown.messages) : null))));
  } else if (record.kind === "digest") {
    nodes.push(el("p", {}, `A summary of the conversation ${source.session || ""}${source.until ? `, up to ${day(source.until)}` : ""}.`));
  } else {
    nodes.push(el("p", { class: "muted" }, "No message is recorded as its source."));
  }
  if (shown.previous) nodes.push(el("p", {}, "It corrects an earlier memory: ", el("q", {}, shown.previous.text)));
  return nodes;
}

// A record's time (seconds) as the local YYYY-MM-DD.
function isoDay(seconds) {
  const date = new Date(seconds * 1000);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
}

function sessionLink(session, messages) {
  const kept = messages.some((message) => message.session === session);
  return el("p", { class: "small" }, "said in ",
    kept ? el("a", { href: `#/chat/${encodeURIComponent(session)}` }, session) : `${session} (no longer in its transcript)`);
}

function edit(record, item, text, onChanged) {
  const area = el("textarea", { rows: 3, "aria-label": "Corrected memory", maxlength: 2000 });
  area.value = record.text;
  const form = el("form", { class: "stack" }, area,
    el("div", { class: "row" }, el("button", { type: "submit", class: "primary" }, "Save the correction"),
      el("button", { type: "button", onclick: () => form.replaceWith(text) }, "Cancel")));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await post(`/v1/local-agent/memories/${encodeURIComponent(record.id)}/correct`, { text: area.value });
      notice("Corrected: the new memory replaces the old one, which is kept out of recall.");
      onChanged();
    } catch (error) {
      notice(error.message, "error");
    }
  });
  text.replaceWith(form);
  area.focus();
}

async function forget(record, onChanged) {
  const yes = await confirmDialog({
    title: "Forget this memory?", yes: "Forget",
    text: `“${record.text}” will be forgotten, with the message it came from: gone from recall, from every `
          + "file of the memory and from the conversation's transcript.",
  });
  if (!yes) return;
  try {
    const gone = await del(`/v1/local-agent/memories/${encodeURIComponent(record.id)}?with_source=true`);
    const more = gone.turns.length ? ` and ${gone.turns.length} message${gone.turns.length === 1 ? "" : "s"} it came from` : "";
    notice(`Forgotten${more}.`);
    onChanged();
  } catch (error) {
    notice(error.message, "error");
  }
}
