// Walks an HTML body as a mail client would render it and keeps only what a human can see.
// Hiding that no descendant can undo (display:none, opacity, off-screen, clipped away)
// removes the whole element; hiding a descendant may override (visibility, font-size, text
// colour against its background) is judged per text node from the inherited values.
// Styles come from the style attribute and from the <style> blocks, read by css-tree and
// matched by css-select on this same tree.
//
// The parts: nesting-cost.ts bounds the parse, stylesheet.ts (with css-conditions.ts and
// css-selectors.ts) reads the rules, cascade.ts, css-declarations.ts and css-custom-properties.ts
// give each element its declarations, css-hiding.ts and inherited-style.ts judge them (with
// css-values.ts), hidden-text.ts keeps what was removed and serialize-visible.ts writes out what
// was not.

import { parseDocument } from "htmlparser2";
import { type AnyNode, type Document, type Element, hasChildren, isComment, isElement, isText, NOT_RENDERED } from "../html-nodes.ts";
import { type CascadedStyle, makeCascade, resolveDeclarations } from "./cascade.ts";
import { scopeWith } from "./css-custom-properties.ts";
import type { Declarations } from "./css-declarations.ts";
import { isHiddenByLayout, isWeaklyHidden, opacityOf } from "./css-hiding.ts";
import { HIDDEN_TEXT_BUDGET, HiddenText, stripTags, VISIBLE_CONTENT } from "./hidden-text.ts";
import { hiddenTextOrigin, type InheritedStyle, inherit, rootStyle } from "./inherited-style.ts";
import { affordableLength } from "./nesting-cost.ts";
import { serializeVisible } from "./serialize-visible.ts";
import { collectStyleText, isQuirksMode, parseStyleSheet } from "./stylesheet.ts";

export type HiddenHtmlCounts = { hidden_elements: number; html_comments: number; scripts_styles: number };

export type VisibleHtml = {
  html: string; // well-formed HTML holding only what a human sees, for the text converter
  counts: HiddenHtmlCounts;
  hiddenText: string[]; // text of what was removed, one entry per hidden element or comment
};

// <head> itself stays a plain container: htmlparser2 keeps body content inside an unclosed head.
const METADATA = new Set(["title", "meta", "link", "base"]);
// Elements browsers do not display unless a style says otherwise.
const UA_HIDDEN = new Set(["noembed", "noframes", "datalist", "rp", "param", "area"]);
// Below this compounded opacity text cannot be seen.
const MIN_OPACITY = 0.05;
// Outlook's conditional comments wrap markup in `[if mso]>` ... `<![endif]`.
const CONDITIONAL_MARKERS = /\[if [^\]]{0,100}\]>|<!\[endif\]|<!-->?/gi;

export function visibleHtml(source: string): VisibleHtml {
  const counts: HiddenHtmlCounts = { hidden_elements: 0, html_comments: 0, scripts_styles: 0 };
  const hidden = new HiddenText();
  const cut = affordableLength(source);
  if (cut < source.length) {
    // Pathological nesting: what lies beyond the parse budget is withheld, not shown unparsed
    // (which would reveal any hidden text in it), and handed to the injection scorer.
    counts.hidden_elements++;
    hidden.add(stripTags(source.slice(cut, cut + HIDDEN_TEXT_BUDGET * 2)));
  }
  const doc = parseDocument(cut < source.length ? source.slice(0, cut) : source, { decodeEntities: true });
  const quirksMode = isQuirksMode(doc);
  const sheet = parseStyleSheet(collectStyleText(doc), quirksMode);
  const cascade = makeCascade(sheet, countNodes(doc));
  const removed = new Set<AnyNode>();
  const hasVisible = new Set<AnyNode>();
  const origins = new Set<Element>();

  const markVisible = (node: AnyNode): void => {
    for (let n: AnyNode | null = node; n !== null && !hasVisible.has(n); n = n.parent as AnyNode | null) hasVisible.add(n);
  };
  const removeHidden = (el: Element): void => {
    removed.add(el);
    counts.hidden_elements++;
    hidden.addSubtree(el);
  };

  const stack: Array<[AnyNode, InheritedStyle, number]> = [[doc, rootStyle(quirksMode, sheet.initialVars, bodyOf(doc)), 0]];
  while (stack.length > 0) {
    const [node, ctx, depth] = stack.pop() as [AnyNode, InheritedStyle, number];
    if (isComment(node)) {
      counts.html_comments++;
      hidden.add(stripTags(node.data.slice(0, HIDDEN_TEXT_BUDGET * 2).replace(CONDITIONAL_MARKERS, " ")));
    } else if (isText(node)) {
      if (!VISIBLE_CONTENT.test(node.data)) continue;
      const origin = hiddenTextOrigin(ctx);
      if (origin === null) {
        markVisible(node);
        continue;
      }
      removed.add(node);
      hidden.add(node.data);
      if (!origins.has(origin)) counts.hidden_elements++;
      origins.add(origin);
    } else if (isElement(node)) {
      if (NOT_RENDERED.has(node.name)) {
        removed.add(node);
        counts.scripts_styles++;
        continue;
      }
      if (METADATA.has(node.name)) {
        removed.add(node);
        if (node.name === "title") hidden.addSubtree(node);
        continue;
      }
      if (node.name === "img") markVisible(node); // a link around an image stays a link
      const style = cascade(node, depth);
      const vars = scopeWith(ctx.vars, style.custom);
      const decls = resolveDeclarations(style, vars);
      const opacity = opacityOf(decls);
      // The hidden attribute and the browser's own display:none are default styles: an
      // explicit display overrides them.
      const hiddenByDefault =
        !decls.has("display") &&
        (node.attribs.hidden !== undefined || UA_HIDDEN.has(node.name) || (node.name === "dialog" && node.attribs.open === undefined));
      if (hiddenByDefault || hiddenByLayout(style, decls, node) || ctx.opacity * opacity <= MIN_OPACITY) {
        removeHidden(node);
        continue;
      }
      const inner = inherit(ctx, node, decls, vars, opacity);
      if (node.attribs["aria-hidden"]?.trim().toLowerCase() === "true" && isWeaklyHidden(decls, inner, node)) {
        removeHidden(node);
        continue;
      }
      if (node.name === "details" && node.attribs.open === undefined) {
        // A closed <details> shows its first <summary> and nothing else.
        const summary = node.children.find((c) => isElement(c) && c.name === "summary");
        for (const child of node.children as AnyNode[]) {
          if (child === summary) continue;
          if (isElement(child)) removeHidden(child);
          else if (isText(child) && VISIBLE_CONTENT.test(child.data)) {
            removed.add(child);
            hidden.add(child.data);
            if (!origins.has(node)) counts.hidden_elements++;
            origins.add(node);
          }
        }
        if (summary !== undefined) stack.push([summary as AnyNode, inner, depth + 1]);
        continue;
      }
      pushChildren(stack, node, inner, depth + 1);
    } else {
      pushChildren(stack, node, ctx, depth + 1);
    }
  }

  // An element whose text was all hidden goes too, so its links do not leak as bare URLs.
  for (const origin of origins) if (!hasVisible.has(origin)) removed.add(origin);

  return { html: serializeVisible(doc, removed, hasVisible), counts, hiddenText: hidden.chunks };
}

function pushChildren(stack: Array<[AnyNode, InheritedStyle, number]>, node: AnyNode, ctx: InheritedStyle, depth: number): void {
  if (!hasChildren(node)) return;
  for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i] as AnyNode, ctx, depth]);
}

// Mail repeats the same styles on thousands of elements: the verdict is kept on the cascaded
// style (per tag name, which decides the box kind) unless var() made the declarations.
const verdicts = new WeakMap<CascadedStyle, Map<string, boolean>>();

function hiddenByLayout(style: CascadedStyle, decls: Declarations, el: Element): boolean {
  if (style.resolved === null || decls.size === 0) return isHiddenByLayout(decls, el);
  let byName = verdicts.get(style);
  if (byName === undefined) {
    byName = new Map();
    verdicts.set(style, byName);
  }
  let verdict = byName.get(el.name);
  if (verdict === undefined) {
    verdict = isHiddenByLayout(decls, el);
    byName.set(el.name, verdict);
  }
  return verdict;
}

// The <body> element, where the parser puts it (within the first levels).
function bodyOf(doc: Document): Element | null {
  let level: AnyNode[] = [doc];
  for (let depth = 0; depth < 3; depth++) {
    const next: AnyNode[] = [];
    for (const node of level) {
      if (isElement(node) && node.name === "body") return node;
      if (hasChildren(node)) next.push(...(node.children as AnyNode[]).slice(0, 50));
    }
    level = next;
  }
  return null;
}

function countNodes(doc: Document): number {
  let count = 0;
  const stack: AnyNode[] = [doc];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    count++;
    if (hasChildren(node)) for (const child of node.children) stack.push(child as AnyNode);
  }
  return count;
}
