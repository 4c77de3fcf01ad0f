// One selector of a rule, as css-tree parsed it, made into a matcher by css-select over the
// same htmlparser2 tree the sanitizer walks, with what the cascade and the work budget need:
// its specificity, the key that indexes it (its subject's id, first class or tag) and how
// far a match may have to look.

import { type CssNode, generate, ident } from "css-tree";
import { compile } from "css-select";
import type { Element } from "./html-nodes.ts";

export type CompiledSelector = {
  matches: (el: Element) => boolean;
  specificity: number; // a·10⁶ + b·10³ + c
  key: string; // "#id", ".class", a tag name, or "*"
  simple: boolean; // type, class and id only: its match depends on nothing but the element's own name, class and id
  reach: { ancestors: boolean; siblings: boolean; subtree: boolean };
};

const MAX_SELECTOR_LENGTH = 1_000;
// Pseudo-classes whose specificity is their most specific argument (:where's is zero).
const FORGIVING = new Set(["is", "where", "matches", "-webkit-any"]);

/** null when the selector cannot match an element (a pseudo-element) or css-select cannot read it. */
export function compileSelector(selector: CssNode, quirksMode = false): CompiledSelector | null {
  if (selector.type !== "Selector") return null;
  const text = generate(selector);
  if (text.length > MAX_SELECTOR_LENGTH) return null;
  let hasPseudoElement = false;
  const reach = { ancestors: false, siblings: false, subtree: false };
  scan(selector, (node) => {
    if (node.type === "PseudoElementSelector") hasPseudoElement = true;
    else if (node.type === "Combinator") {
      if (node.name === "+" || node.name === "~") reach.siblings = true;
      else reach.ancestors = true;
    } else if (node.type === "PseudoClassSelector") {
      const name = node.name.toLowerCase();
      if (name === "has") reach.subtree = true;
      else if (/child|of-type|empty/.test(name)) reach.siblings = true;
    }
  });
  if (hasPseudoElement) return null;
  let matches: (el: Element) => boolean;
  try {
    matches = compile(text, { xmlMode: false, quirksMode }) as unknown as (el: Element) => boolean;
  } catch {
    return null;
  }
  const simple = !reach.ancestors && !reach.siblings && !reach.subtree &&
    selector.children.toArray().every((n) => n.type === "TypeSelector" || n.type === "ClassSelector" || n.type === "IdSelector");
  return { matches, specificity: encode(specificityOf(selector)), key: subjectKey(selector, quirksMode), simple, reach };
}

/** A selector left uncompiled (over the rule cap): it matches wherever its subject's key does. */
export function uncompiledSelector(selector: CssNode, quirksMode = false): CompiledSelector | null {
  if (selector.type !== "Selector") return null;
  const reach = { ancestors: false, siblings: false, subtree: false };
  return { matches: () => true, specificity: encode(specificityOf(selector)), key: subjectKey(selector, quirksMode), simple: true, reach };
}

function scan(node: CssNode, visit: (n: CssNode) => void): void {
  visit(node);
  const children = (node as { children?: Iterable<CssNode> | null }).children;
  if (children) for (const child of children) scan(child, visit);
  if (node.type === "Nth" && node.selector) scan(node.selector, visit);
}

type Triple = [number, number, number];

const encode = ([a, b, c]: Triple): number => Math.min(a, 999) * 1e6 + Math.min(b, 999) * 1e3 + Math.min(c, 999);

function specificityOf(selector: CssNode): Triple {
  const total: Triple = [0, 0, 0];
  const add = (t: Triple) => {
    total[0] += t[0];
    total[1] += t[1];
    total[2] += t[2];
  };
  const children = (selector as { children?: Iterable<CssNode> }).children ?? [];
  for (const node of children) {
    if (node.type === "IdSelector") total[0]++;
    else if (node.type === "ClassSelector" || node.type === "AttributeSelector") total[1]++;
    else if (node.type === "TypeSelector") {
      if (!node.name.endsWith("*")) total[2]++;
    } else if (node.type === "PseudoElementSelector") total[2]++;
    else if (node.type === "PseudoClassSelector") {
      const name = node.name.toLowerCase();
      if (name === "where") continue;
      const list = node.children?.first ?? null;
      if (FORGIVING.has(name) || name === "not" || name === "has") {
        add(mostSpecific(list));
      } else {
        total[1]++;
        if (list?.type === "Nth" && list.selector) add(mostSpecific(list.selector));
      }
    }
  }
  return total;
}

function mostSpecific(list: CssNode | null): Triple {
  let best: Triple = [0, 0, 0];
  if (list?.type !== "SelectorList") return best;
  for (const s of list.children) {
    const t = specificityOf(s);
    if (encode(t) > encode(best)) best = t;
  }
  return best;
}

// The index key of the selector's subject (its last compound): an element can only match
// when it has that id, class or tag. Case folds where the document's mode folds it.
function subjectKey(selector: CssNode & { type: "Selector" }, quirksMode: boolean): string {
  const compound: CssNode[] = [];
  for (const node of selector.children) {
    if (node.type === "Combinator") compound.length = 0;
    else compound.push(node);
  }
  const fold = (name: string) => (quirksMode ? name.toLowerCase() : name);
  const id = compound.find((n) => n.type === "IdSelector");
  if (id?.type === "IdSelector") return `#${fold(ident.decode(id.name))}`;
  const cls = compound.find((n) => n.type === "ClassSelector");
  if (cls?.type === "ClassSelector") return `.${fold(ident.decode(cls.name))}`;
  const tag = compound.find((n) => n.type === "TypeSelector");
  if (tag?.type === "TypeSelector" && !tag.name.includes("*") && !tag.name.includes("|")) return ident.decode(tag.name).toLowerCase();
  return "*";
}
