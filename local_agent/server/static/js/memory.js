// The Memory page: what the assistant knows, newest first, or what its own recall finds for a
// question; adding a fact; export to a download; forget everything behind a typed phrase.
import { download, get, post } from "./api.js";
import { confirmDialog } from "./dialogs.js";
import { $, clear, el, notice, plural } from "./dom.js";
import { memoryItem } from "./memory_item.js";

const PAGE = 100;
const FORGET_ALL_PHRASE = "forget everything";
const BASE = "/v1/local-agent/memories";

export class MemoryView {
  constructor({ enabled }) {
    this.shown = 0;
    this.query = null;
    this.enabled = enabled;
    this.bind();
    if (!enabled) {
      $("memory-columns").hidden = true;
      $("memory-off").hidden = false;
    }
  }

  bind() {
    $("memory-search").addEventListener("submit", (event) => {
      event.preventDefault();
      this.query = $("memory-query").value.trim() || null;
      this.refresh();
    });
    $("memory-clear").addEventListener("click", () => {
      $("memory-query").value = "";
      this.query = null;
      this.refresh();
    });
    $("memory-kind").addEventListener("change", () => this.refresh());
    $("memory-more").addEventListener("click", () => this.more());
    $("memory-add").addEventListener("submit", (event) => { event.preventDefault(); this.add(); });
    $("memory-export").addEventListener("click", () => this.exportAll());
    $("memory-forget-all").addEventListener("click", () => this.forgetAll());
  }

  kinds() { return $("memory-kind").value.split(","); }

  async refresh() {
    if (!this.enabled) return;
    try {
      if (this.query) await this.search(this.query);
      else await this.list(0);
    } catch (error) {
      notice(error.message, "error");
    }
  }

  async list(offset) {
    const query = new URLSearchParams(this.kinds().map((kind) => ["kind", kind]));
    query.set("limit", PAGE);
    query.set("offset", offset);
    const page = await get(`${BASE}?${query}`);
    if (offset === 0) clear($("memory-list"));
    this.append(page.data);
    this.shown = offset + page.data.length;
    $("memory-more").hidden = this.shown >= page.total;
    $("memory-clear").hidden = true;
    $("memory-count").textContent = page.total
      ? `${plural(page.total, "memory", "memories")}, newest first` : "Nothing remembered yet.";
  }

  more() { return this.list(this.shown).catch((error) => notice(error.message, "error")); }

  async search(query) {
    const hits = await post(`${BASE}/search`, { query, limit: 30, kinds: this.kinds() });
    clear($("memory-list"));
    this.append(hits.data);
    $("memory-more").hidden = true;
    $("memory-clear").hidden = false;
    $("memory-count").textContent = hits.data.length
      ? `${plural(hits.data.length, "memory", "memories")} recalled for “${query}”, best first`
      : `Nothing recalled for “${query}”.`;
  }

  append(records) {
    $("memory-list").append(...records.map((record) => memoryItem(record, { onChanged: () => this.refresh() })));
  }

  async add() {
    const input = $("memory-add-text");
    if (!input.value.trim()) return;
    try {
      await post(BASE, { text: input.value });
      input.value = "";
      notice("Remembered.");
      this.query = null;
      $("memory-query").value = "";
      await this.refresh();
    } catch (error) {
      notice(error.message, "error");
    }
  }

  async exportAll() {
    try {
      const size = await download(`${BASE}/export`, "local-agent-memories.json");
      notice(`Exported (${Math.ceil(size / 1024)} KB): check your downloads.`);
    } catch (error) {
      notice(error.message, "error");
    }
  }

  async forgetAll() {
    const yes = await confirmDialog({
      title: "Forget everything?", yes: "Forget everything", phrase: FORGET_ALL_PHRASE,
      text: "Every memory, every conversation and its transcript, the chat history and the saved model "
            + "states will be deleted, here and in every namespace of this server. This cannot be undone.",
    });
    if (!yes) return;
    try {
      await post(`${BASE}/forget-all`, { confirm: FORGET_ALL_PHRASE });
      notice("Everything was forgotten.");
      document.dispatchEvent(new CustomEvent("local-agent:forgotten-all"));
      await this.refresh();
    } catch (error) {
      notice(error.message, "error");
    }
  }
}
