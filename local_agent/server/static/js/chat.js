// The chat: one conversation (a session file, the one `local-agent chat --session NAME` uses),
// answered through the server's warm `ask` route, which streams tokens and writes the session.
// Enter sends, Shift+Enter makes a new line, Esc (or Stop) stops the answer.
import { ApiError, get, serverUp, streamLines } from "./api.js";
import { $, clear, notice } from "./dom.js";
import { AnswerTurn, userTurn } from "./turns.js";

const RECONNECT_MS = 1000;

export class Chat {
  constructor({ info, onSessionsChanged, budget }) {
    this.info = info;
    this.onSessionsChanged = onSessionsChanged;
    this.budget = budget;  // () => the page's memory token budget, or null
    this.name = null;      // the session; null until the first message of a new chat
    this.said = [];        // the person's saved messages this page shows: {text, maybe} (maybe: stopped)
    this.incognito = new Map();
    this.controller = null;
    this.text = $("composer-text");
    this.bind();
  }

  bind() {
    $("composer").addEventListener("submit", (event) => { event.preventDefault(); this.send(); });
    this.text.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.send();
      }
    });
    document.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.controller && !document.querySelector("dialog[open]")) {
        event.preventDefault();
        this.stop();
      }
    });
    $("stop").addEventListener("click", () => this.stop());
    $("incognito").addEventListener("change", (event) => this.setIncognito(event.target.checked));
    window.addEventListener("focus", () => this.resync());
  }

  get busy() { return this.controller !== null; }

  newChat() {
    if (this.busy) this.stop();
    this.name = null;
    this.said = [];
    clear($("transcript"));
    this.showHeader(null);
    this.setIncognito(false);
    this.text.focus();
  }

  async open(name) {
    if (this.busy) this.stop();
    const session = await get(`/v1/local-agent/sessions/${encodeURIComponent(name)}`);
    this.name = name;
    this.show(session);
    this.setIncognito(this.incognito.get(name) || false);
    this.text.focus();
  }

  show(session) {
    const transcript = clear($("transcript"));
    for (const turn of session.turns) {
      transcript.append(turn.role === "user" ? userTurn(turn.content) : AnswerTurn.saved(turn.content, turn.tool_calls).node);
    }
    this.said = session.turns.filter((turn) => turn.role === "user").map((turn) => ({ text: turn.content }));
    this.showHeader(session);
    transcript.scrollTop = transcript.scrollHeight;
  }

  showHeader(session) {
    $("chat-title").textContent = session ? session.title || session.name : "New chat";
    $("chat-name").textContent = session ? `local-agent chat --session ${session.name}` : "";
  }

  setIncognito(on) {
    on = on || this.info.incognito;
    $("incognito").checked = on;
    $("incognito").disabled = this.info.incognito;
    $("incognito-note").hidden = !on;
    document.body.classList.toggle("incognito", on);
    if (this.name) this.incognito.set(this.name, on);
  }

  async send() {
    const message = this.text.value;
    if (!message.trim() || this.busy) return;
    const incognito = $("incognito").checked || this.info.incognito;  // serve --incognito: every chat
    if (this.name === null) {
      this.name = newSessionName();
      if (!incognito) this.showHeader({ name: this.name, title: "" });
    }
    if (incognito) this.incognito.set(this.name, true);
    this.text.value = "";
    performance.clearMarks("local-agent:first-token");
    performance.mark("local-agent:sent");  // scripts/bench_page.py reads these two marks
    const transcript = $("transcript");
    const answer = new AnswerTurn({ unsaved: incognito });
    transcript.append(userTurn(message, { unsaved: incognito }), answer.node);
    answer.waiting();
    transcript.scrollTop = transcript.scrollHeight;
    this.setBusy(new AbortController());
    let answered = false;
    try {
      const record = await this.ask(message, incognito, answer);
      performance.mark("local-agent:answer", { detail: record.timings || null });
      answer.finish(record);
      answered = true;
    } catch (error) {
      this.failed(error, answer, message, incognito);
    } finally {
      this.setBusy(null);
      transcript.scrollTop = transcript.scrollHeight;
    }
    if (answered && !incognito) await this.afterAnswer(message);
  }

  async ask(message, incognito, answer) {
    const settings = incognito ? { incognito: true } : {};
    const budget = this.budget();
    if (budget !== null) settings.memory_tokens = budget;
    const body = { message, session: this.name, memory: this.info.memory, settings,
                   expect: this.info.identity, wait_for_memory: true };
    const transcript = $("transcript");
    for await (const item of streamLines(this.info.ask_path, body, this.controller.signal)) {
      if (item.token !== undefined) {
        answer.add(item.token);
        transcript.scrollTop = transcript.scrollHeight;
      } else if (item.result) {
        return item.result;
      } else if (item.error) {
        throw new ApiError(500, item.error.message, item.error.code);
      }
    }
    throw new ApiError(0, "the answer ended early", "cut");
  }

  failed(error, answer, message, incognito) {
    if (error.name === "AbortError") {
      answer.stopped();
      // The server keeps what was written, as Ctrl-C in the terminal does (unless nothing was).
      if (!incognito) this.said.push({ text: message, maybe: true });
      setTimeout(() => this.onSessionsChanged(), 500);
      return;
    }
    if (error.status === 0 || error instanceof TypeError) {
      answer.failed("The connection to the server was lost mid-answer.");
      if (!this.text.value) this.text.value = message;  // nothing typed is lost
      notice("The server stopped answering (it may have restarted). Your message is back in the box; "
             + "what was saved is kept. Reconnecting…", "error", 0);
      this.reconnect();
      return;
    }
    answer.failed(error.message);
    if (!this.text.value) this.text.value = message;
    notice(error.message, "error");
  }

  async reconnect() {
    while (!(await serverUp())) await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS));
    notice("Reconnected to the server. The conversation below is as it was saved.", "info");
    this.onSessionsChanged();
    if (this.name) await this.resync({ force: true }).catch(() => this.newChat());
  }

  async afterAnswer(message) {
    this.said.push({ text: message });
    this.onSessionsChanged();
    await this.resync();
  }

  // Whether the saved session holds the person's messages this page shows, and no other.
  sameDialogue(turns) {
    const saved = turns.filter((turn) => turn.role === "user").map((turn) => turn.content);
    let index = 0;
    for (const said of this.said) {
      if (saved[index] === said.text.trim() || saved[index] === said.text) index += 1;
      else if (!said.maybe) return false;
    }
    return index === saved.length;
  }

  // Shows the session as saved when another tab or the terminal wrote to it meanwhile.
  async resync({ force = false } = {}) {
    if (!this.name || this.busy || this.incognito.get(this.name)) return;
    let session;
    try {
      session = await get(`/v1/local-agent/sessions/${encodeURIComponent(this.name)}`);
    } catch (error) {
      if (error.status === 404 && this.said.length) {
        notice("This conversation was deleted elsewhere.", "error");
        this.newChat();
      }
      return;
    }
    if (force || !this.sameDialogue(session.turns)) {
      if (!force) notice("This conversation went on elsewhere (another tab or the terminal): showing it as saved.");
      this.show(session);
    }
  }

  stop() {
    if (this.controller) this.controller.abort();
  }

  setBusy(controller) {
    this.controller = controller;
    $("send").hidden = Boolean(controller);
    $("stop").hidden = !controller;
    $("transcript").setAttribute("aria-busy", controller ? "true" : "false");
    if (!controller) this.text.focus();
  }
}

// A new session's name, as `local-agent chat` makes one: YYYYMMDD-HHMMSS-xxxx.
export function newSessionName() {
  const now = new Date();
  const two = (n) => String(n).padStart(2, "0");
  const stamp = `${now.getFullYear()}${two(now.getMonth() + 1)}${two(now.getDate())}-`
    + `${two(now.getHours())}${two(now.getMinutes())}${two(now.getSeconds())}`;
  const random = crypto.getRandomValues(new Uint8Array(2));
  return `${stamp}-${[...random].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}
