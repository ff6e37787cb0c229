// The sidebar: past conversations, newest first (the sessions `local-agent sessions` lists), to
// resume, rename (a title; the name `chat --session` takes stays), delete, or delete with what
// they taught.
import { del, get, post } from "./api.js";
import { $, clear, el, notice, plural, when } from "./dom.js";
import { confirmDialog, promptDialog } from "./dialogs.js";

export class Sidebar {
  constructor({ onOpen, onDeleted, current }) {
    this.onOpen = onOpen;        // (name) => open it
    this.onDeleted = onDeleted;  // (name) => the open chat was deleted
    this.current = current;      // () => the name of the open chat
    this.sessions = [];
  }

  async refresh() {
    const listed = await get("/v1/local-agent/sessions");
    this.sessions = listed.data;
    this.render();
  }

  render() {
    const list = clear($("session-list"));
    $("session-empty").hidden = this.sessions.length > 0;
    const open = this.current();
    for (const session of this.sessions) list.append(this.item(session, session.name === open));
  }

  item(session, isOpen) {
    const label = session.title || session.name;
    const link = el("a", { href: `#/chat/${encodeURIComponent(session.name)}`, class: "session-link",
                           "aria-current": isOpen ? "page" : null },
      el("span", { class: "session-title" }, label),
      el("span", { class: "session-meta" }, `${when(session.updated)} · ${plural(session.turns, "message")}`));
    const menu = el("details", { class: "session-menu" },
      el("summary", { "aria-label": `Actions for ${label}` }, "⋯"),
      el("div", { class: "menu" },
        el("button", { type: "button", onclick: () => this.rename(session) }, "Rename"),
        el("button", { type: "button", onclick: () => this.remove(session, false) }, "Delete"),
        el("button", { type: "button", class: "danger-text", onclick: () => this.remove(session, true) },
          "Delete and forget what it taught")));
    return el("li", { class: isOpen ? "open" : null }, link, menu);
  }

  async rename(session) {
    const title = await promptDialog({ title: "Rename the conversation", label: "Title",
                                       value: session.title || "" });
    if (title === null) return;
    try {
      await post(`/v1/local-agent/sessions/${encodeURIComponent(session.name)}`, { title });
      await this.refresh();
      if (session.name === this.current()) $("chat-title").textContent = title.trim() || session.name;
      notice(title.trim() ? `Renamed to “${title.trim()}”.` : "Title removed.");
    } catch (error) {
      notice(error.message, "error");
    }
  }

  async remove(session, forget) {
    const label = session.title || session.name;
    const yes = await confirmDialog(forget
      ? { title: "Delete and forget?", yes: "Delete and forget",
          text: `Delete “${label}” and forget what it taught: the facts drawn from it and every message `
                + "of it that memory kept, with the messages they came from." }
      : { title: "Delete the conversation?", yes: "Delete",
          text: `Delete the transcript of “${label}”. What it taught stays in memory (forget it on the Memory page).` });
    if (!yes) return;
    try {
      const query = forget ? "?forget=true" : "";
      const done = await del(`/v1/local-agent/sessions/${encodeURIComponent(session.name)}${query}`);
      notice(forget ? `Deleted, and forgot ${plural(done.forgotten.length, "memory", "memories")}.` : "Deleted.");
      if (session.name === this.current()) this.onDeleted(session.name);
      await this.refresh();
    } catch (error) {
      notice(error.message, "error");
    }
  }
}
