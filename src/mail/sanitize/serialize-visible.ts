// Writes the parsed document back as HTML without what was removed, for the text converter.
// Emits only what the converter needs: tags, text and link targets (no images, no data: or
// javascript: URLs).

import { type AnyNode, type Document, type Element, hasChildren, isElement, isText } from "../html-nodes.ts";

// Beyond this depth tags are dropped and their content kept, so no recursive consumer
// (the text converter) can overflow its stack on hostile nesting.
const MAX_EMITTED_DEPTH = 400;
// Not src/html-escape.ts: the converter decodes either form, but the length of this markup decides
// where a long body is cut and how much was left unconverted, so what it escapes must stay as is.
const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const NEEDS_ESCAPE = /[&<>"]/;
const escapeHtml = (s: string): string => (NEEDS_ESCAPE.test(s) ? s.replace(/[&<>"]/g, (c) => ESCAPES[c] as string) : s);
const TAG_NAME = /^[a-z][a-z0-9]*$/;
const NUMERIC_ATTRIBUTES = ["colspan", "rowspan", "start"];
const SAFE_HREF = /^\s*(https?:|mailto:|tel:)/i;
// Void elements: only line breaks and rules matter to the converter.
const VOID = new Set(["br", "hr", "img", "input", "wbr", "col", "area", "source", "track", "param", "keygen"]);
// Unwrapped so the converter reads the whole document, as clients show text outside <body>.
const DOCUMENT_WRAPPERS = new Set(["html", "head", "body"]);

// Iterative so nesting depth cannot exhaust the stack. A link is kept only when `hasVisible`
// holds it: one around hidden text alone would leak its target as a bare URL.
export function serializeVisible(doc: Document, removed: Set<AnyNode>, hasVisible: Set<AnyNode>): string {
  const out: string[] = [];
  const stack: Array<[AnyNode, number] | string> = [[doc, 0]];
  while (stack.length > 0) {
    const item = stack.pop() as [AnyNode, number] | string;
    if (typeof item === "string") {
      out.push(item);
      continue;
    }
    const [node, depth] = item;
    if (removed.has(node)) continue;
    if (isText(node)) {
      out.push(escapeHtml(node.data));
      continue;
    }
    if (isElement(node) && VOID.has(node.name)) {
      if (node.name === "br" || node.name === "hr") out.push(`<${node.name}>`);
      continue;
    }
    if (!hasChildren(node)) continue;
    let childDepth = depth;
    if (isElement(node) && !DOCUMENT_WRAPPERS.has(node.name)) {
      const linkWithoutText = node.name === "a" && !hasVisible.has(node);
      if (TAG_NAME.test(node.name) && depth < MAX_EMITTED_DEPTH && !linkWithoutText) {
        out.push(`<${node.name}${attributes(node)}>`);
        stack.push(`</${node.name}>`);
        childDepth = depth + 1;
      } else {
        out.push(" ");
        stack.push(" ");
      }
    }
    for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i] as AnyNode, childDepth]);
  }
  return out.join("");
}

function attributes(el: Element): string {
  let s = "";
  const href = el.attribs.href;
  if (el.name === "a" && href !== undefined && SAFE_HREF.test(href)) s += ` href="${escapeHtml(href.trim())}"`;
  for (const name of NUMERIC_ATTRIBUTES) {
    const value = el.attribs[name]?.trim();
    if (value !== undefined && /^\d{1,4}$/.test(value)) s += ` ${name}="${value}"`;
  }
  return s;
}
