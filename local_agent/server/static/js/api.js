// Talking to the server: JSON calls, the streamed answer of the warm `ask` route, the raw-body
// upload of an import and downloads. Every state-changing call is a JSON POST or a DELETE; the
// API key, when the server has one, lives in this tab's sessionStorage only.

const KEY_NAME = "local-agent.api-key";

export class ApiError extends Error {
  constructor(status, message, code = null) {
    super(message);
    this.status = status;  // 0: the server could not be reached
    this.code = code;
  }
}

export const apiKey = () => sessionStorage.getItem(KEY_NAME);
export const setApiKey = (key) => sessionStorage.setItem(KEY_NAME, key);
export const forgetApiKey = () => sessionStorage.removeItem(KEY_NAME);

let onUnauthorized = () => {};
export function whenUnauthorized(handler) { onUnauthorized = handler; }

function headers(extra = {}) {
  const key = apiKey();
  return key ? { ...extra, Authorization: `Bearer ${key}` } : { ...extra };
}

async function send(path, init) {
  let response;
  try {
    response = await fetch(path, { cache: "no-store", ...init });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ApiError(0, "cannot reach the server (is `local-agent serve` running?)", "offline");
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

export async function errorOf(response) {
  let message = response.statusText || `HTTP ${response.status}`;
  let code = null;
  try {
    const error = (await response.json()).error || {};
    message = error.message || message;
    code = error.code || null;
  } catch { /* not JSON: keep the status text */ }
  if (response.status === 401) onUnauthorized();
  return new ApiError(response.status, message, code);
}

export async function call(method, path, body) {
  const init = { method, headers: headers(body === undefined ? {} : { "Content-Type": "application/json" }) };
  if (body !== undefined) init.body = JSON.stringify(body);
  const response = await send(path, init);
  return response.status === 204 ? null : response.json();
}

export const get = (path) => call("GET", path);
export const post = (path, body = {}) => call("POST", path, body);
export const del = (path) => call("DELETE", path);

// A POST whose answer comes as JSON lines: yields each parsed line as it arrives.
export async function* streamLines(path, body, signal) {
  const response = await send(path, {
    method: "POST", signal, body: JSON.stringify(body),
    headers: headers({ "Content-Type": "application/json" }),
  });
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + 1);
      if (line.trim()) yield JSON.parse(line);
    }
  }
  if (buffer.trim()) yield JSON.parse(buffer);
}

// The file itself as the body (not a form): only this page can add the custom header.
export async function upload(path, file, extra = {}) {
  const response = await send(path, {
    method: "POST", body: file,
    headers: headers({ "Content-Type": "application/octet-stream",
                       "X-Local-Agent-Import": encodeURIComponent(file.name), ...extra }),
  });
  return response.json();
}

// A POST whose answer is a file: saved through a temporary object URL.
export async function download(path, fallbackName) {
  const response = await send(path, { method: "POST", body: "{}", headers: headers({ "Content-Type": "application/json" }) });
  const blob = await response.blob();
  const named = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = named ? named[1] : fallbackName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return blob.size;
}

export async function serverUp() {
  try {
    const response = await fetch("/health", { cache: "no-store", headers: headers() });
    return response.ok && (await response.json()).status === "ok";
  } catch {
    return false;
  }
}
