// Building the page from text: every string goes in as a text node, never as HTML, so what the
// model or a memory says can only ever show as text.

export const $ = (id) => document.getElementById(id);

// el("li", {class: "x", onclick: f}, "text", child, ...): an element with attributes, handlers
// (on*) and children (strings become text nodes; null and false are skipped).
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "class") node.className = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

export function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
  return node;
}

let noticeTimer = null;

// A short message in the page's live region: read out by screen readers, gone after a while.
export function notice(text, kind = "info", seconds = 8) {
  const box = $("notice");
  box.textContent = text;
  box.dataset.kind = kind;
  box.hidden = false;
  clearTimeout(noticeTimer);
  if (seconds) noticeTimer = setTimeout(() => { box.hidden = true; }, seconds * 1000);
}

export function when(seconds) {
  if (!seconds) return "";
  const date = new Date(seconds * 1000);
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

// A provenance date ("2024-05-02" or "2024-05-02T18:30:00") as the person reads it.
export function day(text) {
  if (!text) return "";
  const date = new Date(text.length === 10 ? `${text}T00:00:00` : text);
  if (Number.isNaN(date.getTime())) return text;
  return text.length === 10 ? date.toLocaleDateString(undefined, { dateStyle: "medium" })
    : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export const plural = (count, one, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
