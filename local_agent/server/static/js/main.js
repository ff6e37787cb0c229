// The page's start: connect (asking for the API key when the server has one), then show the
// view the address names: #/chat, #/chat/NAME, #/memory or #/settings.
import { ApiError, forgetApiKey, get, setApiKey, whenUnauthorized } from "./api.js";
import { Chat } from "./chat.js";
import { keyDialog } from "./dialogs.js";
import { $, notice } from "./dom.js";
import { Importer } from "./imports.js";
import { MemoryView } from "./memory.js";
import { Sidebar } from "./sessions.js";
import { bindSettings, pageBudget, showModelNote, showSettings } from "./settings.js";

const RETRY_MS = 1000;
const VIEWS = ["chat", "memory", "settings"];
let page = null;

async function connect() {
  for (;;) {
    try {
      return await get("/v1/local-agent/info");
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 401) {
        await keyDialog(tryKey);
        continue;
      }
      notice(error.status === 503 ? "The model is loading…" : `${error.message}; trying again…`, "info", 0);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}

// Checks a key typed in the dialog: null when the server takes it, else why not.
async function tryKey(key) {
  if (!key) return "Type the key.";
  setApiKey(key);
  try {
    await get("/v1/local-agent/sessions");
    return null;
  } catch (error) {
    forgetApiKey();
    return error.status === 401 ? "That key was refused. Check it and try again." : error.message;
  }
}

function route() {
  const [view, ...rest] = location.hash.replace(/^#\/?/, "").split("/");
  const name = VIEWS.includes(view) ? view : "chat";
  for (const other of VIEWS) {
    $(`${other}-view`).hidden = other !== name;
    const link = $(`nav-${other}`);
    if (other === name) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  document.body.dataset.view = name;
  if (name === "chat") {
    const session = rest.length ? decodeURIComponent(rest.join("/")) : null;
    if (session && session !== page.chat.name) {
      page.chat.open(session).catch((error) => { notice(error.message, "error"); newChat(); })
        .finally(() => page.sidebar.render());
    } else if (!session && page.chat.name) {
      showChatAddress();  // back to the open conversation (New chat is the button's)
    }
  } else if (name === "memory") {
    page.memory.refresh();
  } else {
    showSettings(page.info);
  }
  closeSidebar();
}

function closeSidebar() {
  document.body.classList.remove("sidebar-open");
  $("sidebar-toggle").setAttribute("aria-expanded", "false");
}

function bindChrome() {
  $("sidebar-toggle").addEventListener("click", () => {
    const open = document.body.classList.toggle("sidebar-open");
    $("sidebar-toggle").setAttribute("aria-expanded", String(open));
  });
  $("new-chat").addEventListener("click", () => { newChat(); closeSidebar(); });
  document.addEventListener("local-agent:forgotten-all", () => { newChat(); refreshSessions(); });
  window.addEventListener("hashchange", route);
}

function newChat() {
  page.chat.newChat();
  if (location.hash !== "#/chat") location.hash = "#/chat";
  page.sidebar.render();
}

// The address names the open conversation (replaced, not pushed: nothing reloads).
function showChatAddress() {
  const address = `#/chat/${encodeURIComponent(page.chat.name)}`;
  if (location.hash !== address && document.body.dataset.view === "chat") history.replaceState(null, "", address);
}

function refreshSessions() {
  if (page.chat.name && !page.chat.incognito.get(page.chat.name)) showChatAddress();
  return page.sidebar.refresh().catch((error) => notice(error.message, "error"));
}

async function start() {
  whenUnauthorized(() => notice("The server refused the API key (reload the page to type it again).", "error", 0));
  const info = await connect();
  $("notice").hidden = true;
  page = { info };
  showModelNote(info);
  page.chat = new Chat({ info, onSessionsChanged: refreshSessions, budget: pageBudget });
  page.sidebar = new Sidebar({ onDeleted: newChat, current: () => page.chat.name });
  page.memory = new MemoryView({ enabled: info.memory });
  page.importer = new Importer({ info, onImported: () => { page.memory.refresh(); refreshSessions(); } });
  bindChrome();
  bindSettings();
  route();
  await refreshSessions();
  page.importer.resume().catch(() => {});
  document.body.dataset.ready = "true";
  performance.mark("local-agent:ready");
}

start().catch((error) => notice(`The page could not start: ${error.message}`, "error", 0));
