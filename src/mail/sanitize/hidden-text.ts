// Collects the text of what was hidden from the reader, bounded, for the injection scorer:
// hidden text is where an attack on an agent would sit.

import { type AnyNode, type Element, hasChildren, isElement, isText, NOT_RENDERED } from "../html-nodes.ts";

export const HIDDEN_TEXT_BUDGET = 10_000;
// Letters, digits, symbols or punctuation: text that would show something if rendered.
export const VISIBLE_CONTENT = /[\p{L}\p{N}\p{S}\p{P}]/u;

// Linear even on "<<<<" runs, unlike /<[^>]*>/.
export const stripTags = (html: string): string => html.replace(/<[^<>]*>/g, " ");

export class HiddenText {
  readonly chunks: string[] = [];
  private used = 0;

  add(text: string): void {
    if (this.used >= HIDDEN_TEXT_BUDGET) return;
    const chunk = text
      .slice(0, HIDDEN_TEXT_BUDGET * 2)
      .replace(/\s+/g, " ")
      .trim();
    if (!VISIBLE_CONTENT.test(chunk)) return;
    this.chunks.push(chunk);
    this.used += chunk.length + 1;
  }

  // The text a human would have read had the element been shown, within the budget.
  addSubtree(root: Element): void {
    if (this.used >= HIDDEN_TEXT_BUDGET) return;
    const parts: string[] = [];
    let size = this.used;
    const stack: AnyNode[] = [root];
    while (stack.length > 0 && size < HIDDEN_TEXT_BUDGET) {
      const node = stack.pop() as AnyNode;
      if (isText(node)) {
        parts.push(node.data);
        size += node.data.length;
      } else if (isElement(node) && NOT_RENDERED.has(node.name)) {
      } else if (hasChildren(node)) {
        for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
      }
    }
    this.add(parts.join(" "));
  }
}
