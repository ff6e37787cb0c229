// Modal questions: confirm (optionally with a phrase to type), a line of text, the API key.
import { $ } from "./dom.js";

function modal(dialog, form, onSubmit, cancelButton) {
  return new Promise((resolve) => {
    const done = (value) => {
      form.removeEventListener("submit", submitted);
      dialog.removeEventListener("cancel", cancelled);
      if (cancelButton) cancelButton.removeEventListener("click", cancelled);
      if (dialog.open) dialog.close();
      resolve(value);
    };
    const submitted = (event) => {
      event.preventDefault();
      const value = onSubmit();
      if (value !== undefined) done(value);
    };
    const cancelled = (event) => { event.preventDefault(); done(null); };
    form.addEventListener("submit", submitted);
    dialog.addEventListener("cancel", cancelled);
    if (cancelButton) cancelButton.addEventListener("click", cancelled);
    dialog.showModal();
  });
}

// true when confirmed; with `phrase`, only once the person typed it.
export function confirmDialog({ title, text, yes = "Yes", phrase = null }) {
  $("confirm-title").textContent = title;
  $("confirm-text").textContent = text;
  $("confirm-yes").textContent = yes;
  const input = $("confirm-input");
  $("confirm-typed").hidden = !phrase;
  input.value = "";
  const yesButton = $("confirm-yes");
  if (phrase) {
    $("confirm-label").textContent = `Type “${phrase}” to confirm`;
    yesButton.disabled = true;
    input.oninput = () => { yesButton.disabled = input.value.trim().toLowerCase() !== phrase; };
  } else {
    yesButton.disabled = false;
    input.oninput = null;
  }
  const answer = modal($("confirm-dialog"), $("confirm-form"),
    () => (phrase && input.value.trim().toLowerCase() !== phrase ? undefined : true), $("confirm-no"));
  (phrase ? input : $("confirm-no")).focus();
  return answer.then((value) => value === true);
}

// The text typed, or null when cancelled.
export function promptDialog({ title, label, value = "" }) {
  $("prompt-title").textContent = title;
  $("prompt-label").textContent = label;
  const input = $("prompt-input");
  input.value = value;
  const answer = modal($("prompt-dialog"), $("prompt-form"), () => input.value, $("prompt-no"));
  input.select();
  return answer;
}

// Asks for the API key until `check(key)` accepts it (it returns an error message otherwise).
export function keyDialog(check, first = null) {
  const dialog = $("key-dialog");
  const input = $("key-input");
  const error = $("key-error");
  error.hidden = !first;
  error.textContent = first || "";
  input.value = "";
  return new Promise((resolve) => {
    const form = $("key-form");
    const submitted = async (event) => {
      event.preventDefault();
      const problem = await check(input.value.trim());
      if (problem) {
        error.textContent = problem;
        error.hidden = false;
        input.select();
        return;
      }
      form.removeEventListener("submit", submitted);
      dialog.close();
      resolve();
    };
    form.addEventListener("submit", submitted);
    dialog.addEventListener("cancel", (event) => event.preventDefault());  // nothing works without it
    dialog.showModal();
    input.focus();
  });
}
