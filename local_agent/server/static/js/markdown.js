// The few Markdown forms a small model writes, rendered into DOM nodes: paragraphs and line
// breaks, bulleted and numbered lists, fenced code, quotes, headings (shown as bold lines), rules,
// and inline code, bold and italic. No HTML is ever parsed: everything lands in text nodes, so
// "<img onerror=...>" or "<script>" in an answer or a memory shows as those characters.
// A link [text](url) shows as "text (url)": the page never links to where a model pointed.

const FENCE = /^\s{0,3}(```|~~~)\s*([\w+#.-]*)\s*$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const ITEM = /^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const RULE = /^\s{0,3}([-*_])(\s*\1){2,}\s*$/;
const INLINE = new RegExp([
  /(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/.source,         // 1,2: code
  /\*\*(?=\S)([\s\S]*?\S)\*\*/.source,                  // 3: bold
  /__(?=\S)([\s\S]*?\S)__/.source,                      // 4: bold
  /\*(?=[^\s*])([^*]*?[^\s*])\*/.source,                // 5: italic
  /(?<![\p{L}\p{N}_])_(?=[^\s_])([^_]*?[^\s_])_(?![\p{L}\p{N}_])/.source,  // 6: italic
  /\[([^\]\n]+)\]\(([^()\s]+)\)/.source,                // 7,8: link
].join("|"), "gu");

export function renderMarkdown(text) {
  const fragment = document.createDocumentFragment();
  renderBlocks(String(text).replace(/\r\n?/g, "\n").split("\n"), fragment);
  return fragment;
}

function renderBlocks(lines, parent) {
  let index = 0;
  while (index < lines.length) {
    const line = lines[index];
    if (!line.trim()) { index += 1; continue; }
    const block = [fence, heading, rule, list, quote, paragraph].find((form) => form.test(line));
    index = block.render(lines, index, parent);
  }
}

const fence = {
  test: (line) => FENCE.test(line),
  render(lines, start, parent) {
    const marker = FENCE.exec(lines[start])[1];
    let end = start + 1;
    while (end < lines.length && !lines[end].trim().startsWith(marker)) end += 1;
    const code = document.createElement("code");
    code.textContent = lines.slice(start + 1, end).join("\n");
    const pre = document.createElement("pre");
    pre.append(code);
    parent.append(pre);
    return end + 1;
  },
};

const heading = {
  test: (line) => HEADING.test(line),
  render(lines, start, parent) {
    const paragraph = document.createElement("p");
    paragraph.className = "md-heading";
    const strong = document.createElement("strong");
    renderInline(HEADING.exec(lines[start])[2], strong);
    paragraph.append(strong);
    parent.append(paragraph);
    return start + 1;
  },
};

const rule = {
  test: (line) => RULE.test(line),
  render(lines, start, parent) {
    parent.append(document.createElement("hr"));
    return start + 1;
  },
};

const list = {
  test: (line) => ITEM.test(line),
  render(lines, start, parent) {
    const ordered = /\d/.test(ITEM.exec(lines[start])[2]);
    const node = document.createElement(ordered ? "ol" : "ul");
    const first = Number.parseInt(ITEM.exec(lines[start])[2], 10);
    if (ordered && first > 1) node.start = first;
    let index = start;
    let item = null;
    while (index < lines.length && lines[index].trim()) {
      const match = ITEM.exec(lines[index]);
      if (match && /\d/.test(match[2]) === ordered) {
        item = document.createElement("li");
        renderInline(match[3], item);
        node.append(item);
      } else if (match || !/^\s+/.test(lines[index]) || FENCE.test(lines[index])) {
        break;  // another kind of list, or a line that is not a continuation
      } else {
        item.append(document.createElement("br"));
        renderInline(lines[index].trim(), item);
      }
      index += 1;
    }
    parent.append(node);
    return index;
  },
};

const quote = {
  test: (line) => QUOTE.test(line),
  render(lines, start, parent) {
    let end = start;
    while (end < lines.length && QUOTE.test(lines[end])) end += 1;
    const node = document.createElement("blockquote");
    renderBlocks(lines.slice(start, end).map((line) => QUOTE.exec(line)[1]), node);
    parent.append(node);
    return end;
  },
};

const paragraph = {
  test: () => true,
  render(lines, start, parent) {
    const node = document.createElement("p");
    let index = start;
    while (index < lines.length && lines[index].trim()
           && (index === start || ![fence, heading, rule, list, quote].some((form) => form.test(lines[index])))) {
      if (index > start) node.append(document.createElement("br"));
      renderInline(lines[index].trim(), node);
      index += 1;
    }
    parent.append(node);
    return index;
  },
};

function renderInline(text, parent) {
  let last = 0;
  for (const match of text.matchAll(INLINE)) {
    if (match.index > last) parent.append(document.createTextNode(text.slice(last, match.index)));
    parent.append(inlineNode(match));
    last = match.index + match[0].length;
  }
  if (last < text.length) parent.append(document.createTextNode(text.slice(last)));
}

function inlineNode(match) {
  if (match[2] !== undefined) {
    const code = document.createElement("code");
    code.textContent = match[2];
    return code;
  }
  const bold = match[3] ?? match[4];
  const italic = match[5] ?? match[6];
  if (bold !== undefined || italic !== undefined) {
    const node = document.createElement(bold !== undefined ? "strong" : "em");
    renderInline(bold ?? italic, node);
    return node;
  }
  return document.createTextNode(`${match[7]} (${match[8]})`);
}
