// The stylesheets of a message (<style> blocks and data: links) as a client would apply them
// to one typical screen, parsed by css-tree: rules at the top level, inside @media and
// @supports blocks that hold there (css-conditions.ts), inside @layer blocks and nested in
// other rules; @keyframes and @property as far as they bear on what shows. Each selector
// becomes a css-select matcher (css-selectors.ts), indexed by its subject's id, class or tag.

import { type CssNode, generate, parse } from "css-tree";
import { type AnyNode, type Document, hasChildren, isElement, isText } from "../html-nodes.ts";
import { mediaApplies, supportsApplies } from "./css-conditions.ts";
import { type Declaration, declarationsOf } from "./css-declarations.ts";
import { type CompiledSelector, compileSelector, uncompiledSelector } from "./css-selectors.ts";

export type Rule = { selector: CompiledSelector; order: number; layer: number; decls: Map<string, Declaration> };
// A @keyframes rule, as far as what it leaves on screen: its first and last frames.
export type Keyframes = { from: Map<string, Declaration>; to: Map<string, Declaration> };

export type StyleSheet = {
  byKey: Map<string, Rule[]>; // by "#id", ".class", tag name or "*"
  keyframes: Map<string, Keyframes>;
  initialVars: Map<string, string>; // initial values of custom properties registered by @property
  quirksMode: boolean; // no doctype: class and id names match case-insensitively
};

// Beyond this many selectors a rule is not compiled: it applies wherever its subject's id,
// class or tag is found, so padding a stylesheet cannot push a hiding rule out of sight.
const MAX_RULES = 5_000;
const MAX_NESTING = 4;
const UNLAYERED = 1e9;

// The text of every <style> element and data: stylesheet link, wherever the parser put them.
export function collectStyleText(doc: Document): string {
  const parts: string[] = [];
  const stack: AnyNode[] = [doc];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (isElement(node) && node.name === "style") {
      if (mediaAttributeApplies(node.attribs.media)) for (const child of node.children) if (isText(child)) parts.push(child.data);
    } else if (isElement(node) && node.name === "link" && /\bstylesheet\b/i.test(node.attribs.rel ?? "")) {
      // A data: stylesheet loads without the network, in browsers as in mail clients that keep <link>.
      const css = dataStylesheet(node.attribs.href);
      if (css !== null && mediaAttributeApplies(node.attribs.media)) parts.push(css);
    } else if (hasChildren(node)) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
    }
  }
  return parts.join("\n");
}

const MAX_DATA_STYLESHEET = 1_000_000;

function dataStylesheet(href: string | undefined): string | null {
  const m = /^\s*data:text\/css(;[^,]*)?,/i.exec(href ?? "");
  if (m === null || href === undefined) return null;
  const body = href.slice(m[0].length, m[0].length + MAX_DATA_STYLESHEET);
  try {
    if (/;base64/i.test(m[1] ?? ""))
      return new TextDecoder().decode(Uint8Array.from(atob(body.replace(/\s+/g, "")), (c) => c.charCodeAt(0)));
    return decodeURIComponent(body);
  } catch {
    return null;
  }
}

function mediaAttributeApplies(media: string | undefined): boolean {
  if (media === undefined || media.trim() === "") return true;
  try {
    return mediaApplies(parse(media, { context: "atrulePrelude", atrule: "media", positions: false }));
  } catch {
    return false;
  }
}

/** Whether the document renders in quirks mode (no doctype, or a legacy one), where class
 * and id names match whatever their case. */
export function isQuirksMode(doc: Document): boolean {
  for (const node of doc.children) {
    if (isElement(node)) break;
    if (node.type !== "directive") continue;
    const data = (node as { data: string }).data;
    if (!/^!doctype\s+html\b/i.test(data)) return true;
    const publicId = /public\s*["']([^"']*)["']/i.exec(data)?.[1]?.toLowerCase() ?? "";
    const systemId = /public\s*["'][^"']*["']\s*["']/i.test(data);
    if (publicId.startsWith("-//w3c//dtd html 4.01 transitional//") || publicId.startsWith("-//w3c//dtd html 4.01 frameset//"))
      return !systemId;
    return /^-\/\/(ietf|w3o|w3c\/\/dtd html (3|4\.0 ))/.test(publicId);
  }
  return true;
}

export function parseStyleSheet(source: string, quirksMode: boolean): StyleSheet {
  const sheet: StyleSheet = { byKey: new Map(), keyframes: new Map(), initialVars: new Map(), quirksMode };
  if (source.trim() === "") return sheet;
  let ast: CssNode;
  try {
    ast = parse(source, { parseValue: false, parseCustomProperty: false, positions: false });
  } catch {
    return sheet;
  }
  const state = { sheet, order: 0, layers: new Map<string, number>() };
  if (ast.type === "StyleSheet") addRules(ast.children, state, UNLAYERED, null, 0);
  return sheet;
}

type State = { sheet: StyleSheet; order: number; layers: Map<string, number> };

function addRules(children: Iterable<CssNode>, state: State, layer: number, parent: string | null, depth: number): void {
  for (const node of children) {
    if (node.type === "Rule") addRule(node, state, layer, parent, depth);
    else if (node.type === "Atrule") addAtRule(node, state, layer, parent, depth);
    else if (node.type === "Raw" && parent !== null && depth < MAX_NESTING) addNested(node.value, state, layer, parent, depth);
  }
}

function addAtRule(node: CssNode & { type: "Atrule" }, state: State, layer: number, parent: string | null, depth: number): void {
  const name = node.name.toLowerCase();
  if (name === "layer") {
    const names =
      node.prelude === null
        ? []
        : generate(node.prelude)
            .split(",")
            .map((n) => n.trim())
            .filter((n) => n !== "");
    for (const n of names) if (!state.layers.has(n)) state.layers.set(n, state.layers.size);
    if (node.block === null) return;
    // An anonymous layer is a layer of its own; a named one ranks where its name first appeared.
    const rank = names[0] === undefined ? state.layers.size : (state.layers.get(names[0]) as number);
    if (names[0] === undefined) state.layers.set(`\0${rank}`, rank);
    addRules(node.block.children, state, Math.min(layer, rank), parent, depth);
    return;
  }
  if (node.block === null) return;
  if (name === "keyframes" || name === "-webkit-keyframes") {
    const id =
      node.prelude === null
        ? ""
        : generate(node.prelude)
            .trim()
            .replace(/^["']|["']$/g, "");
    const frames: Keyframes = { from: new Map(), to: new Map() };
    for (const frame of node.block.children) {
      if (frame.type !== "Rule") continue;
      const at = generate(frame.prelude)
        .toLowerCase()
        .split(",")
        .map((k) => k.trim());
      const decls = declarationsOf(frame.block);
      if (at.includes("from") || at.includes("0%")) for (const [p, d] of decls) frames.from.set(p, d);
      if (at.includes("to") || at.includes("100%")) for (const [p, d] of decls) frames.to.set(p, d);
    }
    if (id !== "") state.sheet.keyframes.set(id, frames);
    return;
  }
  if (name === "property") {
    const initial = declarationsOf(node.block, true).get("initial-value");
    const prop = node.prelude === null ? "" : generate(node.prelude).trim();
    if (initial !== undefined && prop.startsWith("--")) state.sheet.initialVars.set(prop, initial.value);
    return;
  }
  // @container and @scope hold somewhere in most documents: their rules apply (to more than
  // they would, never to less). Other at-rules (@font-face, @keyframes, @page ...) style no text.
  const holds =
    name === "media"
      ? mediaApplies(node.prelude)
      : name === "supports"
        ? supportsApplies(node.prelude)
        : name === "container" || name === "scope";
  if (holds) addRules(node.block.children, state, layer, parent, depth);
}

function addRule(node: CssNode & { type: "Rule" }, state: State, layer: number, parent: string | null, depth: number): void {
  const decls = declarationsOf(node.block);
  let list: CssNode = node.prelude;
  if (parent !== null) {
    // A nested rule's selector is relative to its parent's: `&` stands for it, else a descendant.
    const text = generate(node.prelude);
    const joined = text
      .split(",")
      .map((s) => (s.includes("&") ? s.replaceAll("&", `:is(${parent})`) : `:is(${parent}) ${s.trim()}`))
      .join(",");
    try {
      list = parse(joined, { context: "selectorList", positions: false });
    } catch {
      return;
    }
  }
  const nested = node.block.children.toArray().filter((c) => c.type !== "Declaration");
  if (nested.length > 0 && depth < MAX_NESTING && list.type === "SelectorList") addRules(nested, state, layer, generate(list), depth + 1);
  if (decls.size === 0 || list.type !== "SelectorList") return;
  const compiled: CompiledSelector[] = [];
  for (const selector of list.children) {
    const one =
      state.order + compiled.length < MAX_RULES
        ? compileSelector(selector, state.sheet.quirksMode)
        : uncompiledSelector(selector, state.sheet.quirksMode);
    if (one === "invalid") return; // one invalid selector drops the whole rule, as in a browser
    if (one !== "skip" && one !== null) compiled.push(one);
  }
  for (const selector of compiled) {
    const rule: Rule = { selector, order: state.order++, layer, decls };
    const bucket = state.sheet.byKey.get(selector.key);
    if (bucket === undefined) state.sheet.byKey.set(selector.key, [rule]);
    else bucket.push(rule);
  }
}

// css-tree keeps what follows a nested rule inside a block as raw text: read it as rules.
function addNested(text: string, state: State, layer: number, parent: string, depth: number): void {
  let ast: CssNode;
  try {
    ast = parse(text, { parseValue: false, parseCustomProperty: false, positions: false });
  } catch {
    return;
  }
  if (ast.type === "StyleSheet") addRules(ast.children, state, layer, parent, depth + 1);
}
