// One selector of a rule, as css-tree parsed it, made into a matcher by css-select over the
// same htmlparser2 tree the sanitizer walks, with what the cascade and the work budget need:
// its specificity, the key that indexes it (its subject's id, first class or tag) and how
// far a match may have to look.

import { compile } from "css-select";
import { type CssNode, clone, generate, ident, parse, walk } from "css-tree";
import type { Element } from "../html-nodes.ts";

export type CompiledSelector = {
  matches: (el: Element) => boolean;
  specificity: number; // a·10⁶ + b·10³ + c
  key: string; // "#id", ".class", a tag name, or "*"
  simple: boolean; // type, class and id only: its match depends on nothing but the element's own name, class and id
  reach: { ancestors: boolean; siblings: boolean; subtree: boolean; searches: number };
};

const MAX_SELECTOR_LENGTH = 1_000;
// Pseudo-classes whose specificity is their most specific argument (:where's is zero).
const FORGIVING = new Set(["is", "where", "matches", "-webkit-any"]);

// Pseudo-classes Chromium knows that hold only on interaction or in states mail never is in:
// read as :hover, which css-select never matches (so `:not(:focus)` still matches).
const NEVER_AT_REST = new Set([
  "focus",
  "focus-within",
  "focus-visible",
  "target",
  "target-within",
  "autofill",
  "-webkit-autofill",
  "modal",
  "popover-open",
  "fullscreen",
  "-webkit-full-screen",
  "picture-in-picture",
  "playing",
  "paused",
  "user-invalid",
  "user-valid",
  "host",
  "host-context",
  "state",
  "current",
  "past",
  "future",
  "seeking",
  "buffering",
  "stalled",
  "muted",
  "volume-locked",
  "xr-overlay",
  "active-view-transition",
  "active-view-transition-type",
  "drag",
]);
// css-select's own extensions (jQuery's): Chromium finds them invalid and drops the rule.
const NOT_CSS = new Set([
  "contains",
  "icontains",
  "parent",
  "header",
  "button",
  "input",
  "text",
  "checkbox",
  "file",
  "password",
  "radio",
  "reset",
  "image",
  "submit",
  "selected",
]);
// Valid in Chromium, beyond css-select: the rule applies by its subject alone.
const BY_SUBJECT = /\||:(dir|placeholder-shown|in-range|out-of-range|valid|invalid|default|indeterminate|blank|open|closed)\b/i;

/** "skip" when the selector cannot match an element at rest (a pseudo-element, :focus ...);
 * "invalid" when a browser would drop its whole rule. */
export function compileSelector(selector: CssNode, quirksMode = false): CompiledSelector | "skip" | "invalid" {
  if (selector.type !== "Selector") return "invalid";
  // Too long to compile: it applies by its subject (a padded hiding selector still hides).
  if (generate(selector).length > MAX_SELECTOR_LENGTH) return uncompiledSelector(selector, quirksMode) ?? "skip";
  let hasPseudoElement = false;
  // `searches`: descendant and general-sibling combinators, each of which may try every
  // ancestor (or sibling) for each way the rest matched: work grows as depth^searches.
  const reach = { ancestors: false, siblings: false, subtree: false, searches: 0 };
  scan(selector, (node) => {
    if (node.type === "PseudoElementSelector") hasPseudoElement = true;
    else if (node.type === "Combinator") {
      if (node.name === "+" || node.name === "~") reach.siblings = true;
      else reach.ancestors = true;
      if (node.name === " " || node.name === "~") reach.searches++;
    } else if (node.type === "PseudoClassSelector") {
      const name = node.name.toLowerCase();
      if (name === "has") reach.subtree = true;
      else if (/child|of-type|empty/.test(name)) reach.siblings = true;
    }
  });
  if (hasPseudoElement) return "skip";
  const rewritten = rewrite(selector, quirksMode);
  if (rewritten === null) return "invalid";
  const text = generate(rewritten);
  let matches: (el: Element) => boolean;
  try {
    matches = compile(text, { xmlMode: false, quirksMode }) as unknown as (el: Element) => boolean;
  } catch {
    return (BY_SUBJECT.test(text) ? uncompiledSelector(selector, quirksMode) : null) ?? "invalid";
  }
  const simple =
    !reach.ancestors &&
    !reach.siblings &&
    !reach.subtree &&
    selector.children.toArray().every((n) => n.type === "TypeSelector" || n.type === "ClassSelector" || n.type === "IdSelector");
  return { matches, specificity: encode(specificityOf(selector)), key: subjectKey(selector, quirksMode), simple, reach };
}

// A copy css-select can read as Chromium would: interaction states never hold, :defined always
// does, and :is()/:where() forgive (drop) the arguments they cannot read. null: invalid.
function rewrite(selector: CssNode, quirksMode: boolean): CssNode | null {
  const copy = clone(selector);
  let invalid = false;
  walk(copy, {
    visit: "PseudoClassSelector",
    enter(node) {
      const name = node.name.toLowerCase();
      if (NOT_CSS.has(name)) invalid = true;
      else if (NEVER_AT_REST.has(name)) {
        node.name = "hover";
        node.children = null;
      } else if (name === "defined") {
        const always = notHover();
        node.name = "not";
        node.children = always?.type === "PseudoClassSelector" ? always.children : null;
      } else if ((name === "is" || name === "where") && node.children?.first?.type === "SelectorList") {
        const list = node.children.first;
        const kept = list.children.filter((arg) => {
          const compiled = compileSelector(arg, quirksMode);
          return compiled !== "invalid" && compiled !== "skip";
        });
        if (kept.isEmpty) {
          node.name = "hover"; // an empty :is() matches nothing
          node.children = null;
        } else list.children = kept;
      }
    },
  });
  return invalid ? null : copy;
}

const notHover = (): CssNode | null => {
  const selector = parse(":not(:hover)", { context: "selector", positions: false });
  const first = selector.type === "Selector" ? selector.children.first : null;
  return first?.type === "PseudoClassSelector" ? first : null;
};

/** A selector left uncompiled (over the rule cap): it matches wherever its subject's key does. */
export function uncompiledSelector(selector: CssNode, quirksMode = false): CompiledSelector | null {
  if (selector.type !== "Selector") return null;
  const reach = { ancestors: false, siblings: false, subtree: false, searches: 0 };
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
