// Importing past conversations: the file goes up as the raw body of one POST (never a form),
// then the import runs on the server as a job, a few sessions at a time between chat answers;
// this shows its progress and can cancel it.
import { ApiError, del, get, upload } from "./api.js";
import { $, notice, plural } from "./dom.js";

const POLL_MS = 500;
const PATH = "/v1/local-agent/imports";

export class Importer {
  constructor({ info, onImported }) {
    this.info = info;
    this.onImported = onImported;
    this.job = null;
    $("import-form").addEventListener("submit", (event) => { event.preventDefault(); this.start(); });
    $("import-cancel").addEventListener("click", () => this.cancel());
  }

  // A reloaded page picks up an import that is still running.
  async resume() {
    const last = (await get(PATH)).data;
    if (last && ["queued", "running"].includes(last.state)) this.follow(last);
  }

  async start() {
    const file = $("import-file").files[0];
    if (!file) {
      notice("Choose a file first: a ChatGPT conversations.json or a JSON Lines file.", "error");
      return;
    }
    if (file.size > this.info.max_import) {
      notice(`That file is over this server's import limit of ${Math.round(this.info.max_import / 2 ** 20)} MiB `
             + "(serve --max-import).", "error");
      return;
    }
    $("import-start").disabled = true;
    $("import-status").textContent = `Sending ${file.name}…`;
    try {
      const digests = $("import-digests").checked ? "on" : "off";
      this.follow(await upload(PATH, file, { "X-Local-Agent-Digests": digests }));
    } catch (error) {
      $("import-start").disabled = false;
      $("import-status").textContent = "";
      notice(error instanceof ApiError ? error.message : String(error), "error");
    }
  }

  async follow(job) {
    this.job = job;
    this.show(job);
    while (["queued", "running"].includes(this.job.state)) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      try {
        this.job = await get(`${PATH}/${encodeURIComponent(job.id)}`);
      } catch (error) {
        $("import-status").textContent = `Lost track of the import: ${error.message}`;
        break;
      }
      this.show(this.job);
    }
    this.ended(this.job);
  }

  show(job) {
    const progress = $("import-progress");
    progress.hidden = false;
    progress.max = Math.max(job.messages_total, 1);
    progress.value = job.messages_done;
    $("import-cancel").hidden = !["queued", "running"].includes(job.state);
    $("import-start").disabled = $("import-cancel").hidden === false;
    $("import-status").textContent = `${job.name}: ${job.messages_done} of ${plural(job.messages_total, "message")}`
      + (job.sessions_total ? `, ${job.sessions_done} of ${plural(job.sessions_total, "conversation")}` : "")
      + (job.state === "queued" ? " (waiting for the model)" : "");
  }

  ended(job) {
    $("import-cancel").hidden = true;
    $("import-start").disabled = false;
    const counts = `${plural(job.facts, "fact")}, ${plural(job.turns, "message")} kept, ${plural(job.digests_saved, "digest")}`;
    const skipped = job.skipped_existing ? `; ${job.skipped_existing} already imported` : "";
    const bad = job.bad_lines ? `; ${plural(job.bad_lines, "line")} skipped (${job.problems.map((p) => `line ${p.line}: ${p.message}`).join("; ")})` : "";
    const text = {
      done: `Imported ${job.name}: ${counts}${skipped}${bad}.`,
      cancelled: `Import cancelled after ${job.messages_done} of ${job.messages_total} messages (${counts}). `
                 + "What was imported stays; importing the file again adds the rest.",
      failed: `The import failed: ${job.error}`,
    }[job.state] || `Import ${job.state}.`;
    $("import-status").textContent = text;
    notice(text, job.state === "failed" ? "error" : "info");
    this.onImported();
  }

  async cancel() {
    if (!this.job) return;
    try {
      this.job = await del(`${PATH}/${encodeURIComponent(this.job.id)}`);
      $("import-status").textContent = "Cancelling after the conversation being stored…";
    } catch (error) {
      notice(error.message, "error");
    }
  }
}
