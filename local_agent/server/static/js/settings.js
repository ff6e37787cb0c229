// Settings: the model in use, the backend and why it was chosen (as `local-agent info` says),
// and the memory token budget; the page's own budget, if set, goes with each chat message.
import { forgetApiKey } from "./api.js";
import { $, clear, el, notice } from "./dom.js";

const BUDGET_NAME = "local-agent.memory-tokens";

export function pageBudget() {
  const value = localStorage.getItem(BUDGET_NAME);
  return value === null || value === "" ? null : Number.parseInt(value, 10);
}

export function showSettings(info) {
  const rows = [
    ["Model", info.model],
    ...(info.model_note ? [["Note", info.model_note.text]] : []),
    ["Backend", `${info.backend} on ${info.device}`],
    ["Why", info.reason],
    ["Context window", `${info.context_size} tokens`],
    ["Memory", info.memory ? (info.incognito ? "recalls, writes nothing (serve --incognito)" : "on") : "off (serve --no-memory)"],
    ["Memory token budget", `${info.memory_tokens} tokens of recalled memories per prompt (${info.recall_k} at most)`],
    ["Longest answer", `${info.max_tokens} tokens`],
    ["Built-in tools", info.tools ? "on" : "off"],
    ["Embedder", info.embedding_model],
    ["Data folder", info.data_dir],
    ["Version", info.version],
  ];
  const list = clear($("settings-list"));
  for (const [name, value] of rows) list.append(el("dt", {}, name), el("dd", {}, String(value)));
  const budget = pageBudget();
  $("memory-budget").value = budget === null ? "" : String(budget);
  $("memory-budget").placeholder = String(info.memory_tokens);
  $("key-line").hidden = !info.api_key;
}

// With the tiny default model: one line over the conversation, that answers will often be unsure
// and which bigger models to pull (the server picks them by this machine's memory).
export function showModelNote(info) {
  $("model-note").textContent = info.model_note ? info.model_note.text : "";
  $("model-note").hidden = !info.model_note;
}

export function bindSettings() {
  $("budget-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const value = $("memory-budget").value.trim();
    if (value === "") {
      localStorage.removeItem(BUDGET_NAME);
      notice("Chats from this page use the server's memory token budget.");
      return;
    }
    const tokens = Number.parseInt(value, 10);
    if (!Number.isInteger(tokens) || tokens < 0 || tokens > 4000) {
      notice("The budget is a number of tokens from 0 to 4000.", "error");
      return;
    }
    localStorage.setItem(BUDGET_NAME, String(tokens));
    notice(`Chats from this page recall up to ${tokens} tokens of memories.`);
  });
  $("forget-key").addEventListener("click", () => {
    forgetApiKey();
    location.reload();
  });
}
