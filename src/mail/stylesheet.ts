// The <style> blocks of a message as a client would apply them to the default screen: simple
// rules indexed by their most specific part, and a simplified cascade per element.

import {
  type Declaration, type Declarations, NO_DECLARATIONS, parseDeclarations, stripCssComments,
} from "./css-declarations.ts";
import { type AnyNode, type Document, type Element, hasChildren, isElement, isText } from "./html-nodes.ts";

type Rule = { tag: string | null; classes: string[]; id: string | null; specificity: number; order: number; decls: Map<string, Declaration> };
export type StyleSheet = {
  byKey: Map<string, Rule[]>; // by "#id", ".class" (the first one), tag name or "*"
  paintsUnplacedBackground: boolean; // a rule paints a background no element can be given
};

const MAX_RULES = 5_000;
const MAX_RULES_PER_KEY = 100; // bounds the work per element on a hostile stylesheet

// The text of every <style> element, wherever the parser put it.
export function collectStyleText(doc: Document): string {
  const parts: string[] = [];
  const stack: AnyNode[] = [doc];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (isElement(node) && node.name === "style") {
      for (const child of node.children) if (isText(child)) parts.push(child.data);
    } else if (hasChildren(node)) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
    }
  }
  return parts.join("\n");
}

// Top-level rules with simple selectors (tag, .class, #id, compounds of these). Rules in
// @media and the like are skipped: they describe other screens than the default one.
export function parseStyleSheet(source: string): StyleSheet {
  const sheet: StyleSheet = { byKey: new Map(), paintsUnplacedBackground: false };
  const css = stripCssComments(source).replace(/<!--|-->/g, " ");
  let order = 0;
  let i = 0;
  while (i < css.length && order < MAX_RULES) {
    const open = css.indexOf("{", i);
    if (open < 0) break;
    const prelude = css.slice(i, open).split(";").pop()?.trim() ?? "";
    let close = open + 1;
    for (let depth = 1; close < css.length && depth > 0; close++) {
      const c = css.charCodeAt(close);
      if (c === 123) depth++;
      else if (c === 125) depth--;
    }
    const body = css.slice(open + 1, close - 1);
    i = close;
    if (prelude.startsWith("@")) {
      if (body.includes("background")) sheet.paintsUnplacedBackground = true;
      continue;
    }
    const decls = parseDeclarations(body);
    if (decls.size === 0) continue;
    const paints = decls.has("background") || decls.has("background-color") || decls.has("background-image");
    for (const selector of prelude.split(",")) {
      const rule = parseSelector(selector.trim(), decls, order++);
      if (rule === null || rule.tag === "body" || rule.tag === "html") {
        if (paints) sheet.paintsUnplacedBackground = true;
      }
      if (rule === null) continue;
      const key = rule.id !== null ? `#${rule.id}` : rule.classes.length > 0 ? `.${rule.classes[0]}` : (rule.tag ?? "*");
      const list = sheet.byKey.get(key);
      if (list === undefined) sheet.byKey.set(key, [rule]);
      else if (list.length < MAX_RULES_PER_KEY) list.push(rule);
    }
  }
  return sheet;
}

const COMPOUND = /^([a-z][a-z0-9-]*|\*)?((?:[.#][\w-]+)*)$/i;

function parseSelector(selector: string, decls: Map<string, Declaration>, order: number): Rule | null {
  if (selector.length > 200) return null;
  const parts = selector.split(/\s*[\s>+~]\s*/);
  const match = COMPOUND.exec(parts[parts.length - 1] ?? "");
  if (match === null || selector === "") return null;
  const tag = match[1]?.toLowerCase() ?? null;
  const classes: string[] = [];
  let id: string | null = null;
  for (const piece of (match[2] ?? "").match(/[.#][\w-]+/g) ?? []) {
    if (piece.startsWith(".")) classes.push(piece.slice(1));
    else id = piece.slice(1);
  }
  // With a combinator only the last compound is checked, so it must be specific enough.
  if (parts.length > 1 && classes.length === 0 && id === null) return null;
  const specificity = (id === null ? 0 : 100) + classes.length * 10 + (tag !== null && tag !== "*" ? 1 : 0);
  return { tag: tag === "*" ? null : tag, classes, id, specificity, order, decls };
}

// The cascade, simplified: matching rules by specificity then order, the style attribute
// after them, and !important declarations over all normal ones.
export function declarationsFor(el: Element, sheet: StyleSheet): Declarations {
  const classAttr = el.attribs.class?.trim();
  const classes = new Set(classAttr ? classAttr.split(/\s+/, 20) : []);
  const keys = [el.name, "*"];
  for (const c of classes) keys.push(`.${c}`);
  if (el.attribs.id !== undefined) keys.push(`#${el.attribs.id}`);
  const rules: Rule[] = [];
  for (const key of sheet.byKey.size === 0 ? [] : keys) {
    for (const rule of sheet.byKey.get(key) ?? []) {
      if (rule.tag !== null && rule.tag !== el.name) continue;
      if (rule.id !== null && rule.id !== el.attribs.id) continue;
      if (rule.classes.every((c) => classes.has(c))) rules.push(rule);
    }
  }
  const inline = el.attribs.style === undefined ? null : parseDeclarations(el.attribs.style);
  if (rules.length === 0 && inline === null) return NO_DECLARATIONS;
  rules.sort((a, b) => a.specificity - b.specificity || a.order - b.order);
  const result: Declarations = new Map();
  const layers = [...rules.map((r) => r.decls), ...(inline ? [inline] : [])];
  for (const important of [false, true]) {
    for (const layer of layers) for (const [p, d] of layer) if (d.important === important) result.set(p, d.value);
  }
  return result;
}
