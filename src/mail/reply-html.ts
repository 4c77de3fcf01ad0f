// Cuts the quoted history and signatures that mail clients mark in HTML: Gmail's gmail_quote and
// gmail_signature, Apple Mail's and Thunderbird's <blockquote type="cite"> (with Thunderbird's
// moz-cite-prefix attribution and moz-signature), Yahoo's yahoo_quoted, and Outlook's reply header
// (divRplyFwdMsg / appendonsend), after which everything is history.

import { getOuterHTML, removeElement } from "domutils";
import { parseDocument } from "htmlparser2";
import { type AnyNode, type Element, hasChildren, isElement } from "./html-nodes.ts";

const REMOVE_CLASSES = ["gmail_quote", "gmail_quote_container", "gmail_signature", "moz-cite-prefix", "moz-signature", "yahoo_quoted"];
const CUT_FROM_IDS = new Set(["divrplyfwdmsg", "appendonsend", "divrply", "x_divrplyfwdmsg"]);
const MAX_HTML = 2_000_000;

/** The HTML without its quote containers, or null when it has none (the body's text already serves). */
export function stripQuoteContainers(html: string): string | null {
  if (html.length > MAX_HTML) return null;
  const document = parseDocument(html);
  const toRemove: Element[] = [];
  let cutFrom: Element | null = null;
  const walk = (node: AnyNode): void => {
    if (cutFrom) return;
    if (isElement(node)) {
      const classes = (node.attribs.class ?? "").toLowerCase().split(/\s+/);
      const id = (node.attribs.id ?? "").toLowerCase();
      if (CUT_FROM_IDS.has(id)) {
        cutFrom = node;
        return;
      }
      if (
        REMOVE_CLASSES.some((name) => classes.includes(name)) ||
        (node.name === "blockquote" && (node.attribs.type ?? "").toLowerCase() === "cite")
      ) {
        toRemove.push(node);
        return;
      }
    }
    if (hasChildren(node)) for (const child of [...node.children]) walk(child as AnyNode);
  };
  walk(document);
  if (!cutFrom && toRemove.length === 0) return null;
  for (const element of toRemove) removeElement(element);
  if (cutFrom) cutFollowing(cutFrom);
  return getOuterHTML(document);
}

/** Removes the element and everything after it in document order. */
function cutFollowing(start: Element): void {
  let node: AnyNode | null = start;
  while (node?.parent) {
    while (node.next) removeElement(node.next as never);
    const parent: AnyNode = node.parent as AnyNode;
    if (node === start) removeElement(node as never);
    node = parent;
  }
}
