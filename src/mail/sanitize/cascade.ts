// The cascade for one element, enough to decide what it shows: the stylesheet's matching
// rules by layer, specificity and order, the style attribute after them, and !important
// declarations over all normal ones (layers reversed, the style attribute's last).
// Matching work is bounded per message: when the budget is spent, a rule applies wherever its
// subject's id, class or tag is found (hiding too much in a hostile message, never too little).

import type { Element } from "../html-nodes.ts";
import { type CustomProperties, resolveVars } from "./css-custom-properties.ts";
import { type Declaration, type Declarations, NO_DECLARATIONS, parseDeclarations } from "./css-declarations.ts";
import type { Keyframes, Rule, StyleSheet } from "./stylesheet.ts";

export type CascadedStyle = {
  values: ReadonlyMap<string, string>; // winning values as written
  custom: ReadonlyMap<string, string>; // the element's own custom properties
  resolved: Declarations | null; // `values` lower-cased, when none reads var()
};

const MATCH_BUDGET = 5e6; // selector tests, weighted by how far each may look
const MAX_CACHED = 10_000;
const MAX_CLASSES = 20;
const EMPTY: CascadedStyle = { values: new Map(), custom: new Map(), resolved: NO_DECLARATIONS };

export type Cascade = (el: Element, depth: number) => CascadedStyle;

export function makeCascade(sheet: StyleSheet, nodeCount: number): Cascade {
  let budget = MATCH_BUDGET;
  // Mail repeats the same class and style attributes on thousands of elements. When every
  // candidate rule reads only name, class and id, those and the style attribute are the key.
  const cache = new Map<string, CascadedStyle>();
  const inlineCache = new Map<string, Map<string, Declaration>>();
  const inlineOf = (style: string): Map<string, Declaration> => {
    let decls = inlineCache.get(style);
    if (decls === undefined) {
      decls = parseDeclarations(style);
      if (inlineCache.size < MAX_CACHED) inlineCache.set(style, decls);
    }
    return decls;
  };

  // The candidate rules depend on name, class and id alone: looked up once per combination.
  const candidateCache = new Map<string, { rules: Rule[]; simple: boolean }>();
  const NONE = { rules: [] as Rule[], simple: true };

  return (el, depth) => {
    const style = el.attribs.style;
    let found = NONE;
    let identity = "";
    if (sheet.byKey.size > 0) {
      identity = `${el.name}\0${el.attribs.class ?? ""}\0${el.attribs.id ?? ""}`;
      const cachedCandidates = candidateCache.get(identity);
      if (cachedCandidates !== undefined) found = cachedCandidates;
      else {
        const rules = candidatesFor(el, sheet);
        found = { rules, simple: rules.every((r) => r.selector.simple) };
        if (candidateCache.size < MAX_CACHED) candidateCache.set(identity, found);
      }
    }
    const candidates = found.rules;
    if (candidates.length === 0 && style === undefined) return EMPTY;
    // Once the budget is spent every candidate applies, so name, class, id and style decide.
    const cacheable = budget < 0 || found.simple;
    const key = cacheable ? `${budget < 0 ? "!" : ""}${identity}\0${style ?? ""}` : null;
    const cached = key === null ? undefined : cache.get(key);
    if (cached !== undefined) return cached;

    const matched: Rule[] = [];
    for (const rule of candidates) {
      const { reach } = rule.selector;
      const span = 1 + (reach.ancestors ? depth : 0) + (reach.siblings ? (el.parent?.children.length ?? 0) : 0);
      const cost = span ** Math.max(1, Math.min(reach.searches, 3)) + (reach.subtree ? nodeCount : 0);
      budget -= cost;
      if (budget < 0 || rule.selector.matches(el)) matched.push(rule);
    }
    const computed = combine(matched, style === undefined ? null : inlineOf(style), sheet.keyframes);
    if (key !== null && cache.size < MAX_CACHED) cache.set(key, computed);
    return computed;
  };
}

function candidatesFor(el: Element, sheet: StyleSheet): Rule[] {
  const fold = (s: string) => (sheet.quirksMode ? s.toLowerCase() : s);
  const keys = [el.name, "*"];
  const classAttr = el.attribs.class?.trim();
  if (classAttr) {
    const seen = new Set<string>();
    for (const c of classAttr.split(/\s+/, MAX_CLASSES)) seen.add(`.${fold(c)}`);
    keys.push(...seen);
  }
  if (el.attribs.id !== undefined) keys.push(`#${fold(el.attribs.id)}`);
  const rules: Rule[] = [];
  for (const key of keys) {
    const list = sheet.byKey.get(key);
    if (list !== undefined) for (const rule of list) rules.push(rule);
  }
  return rules;
}

function combine(rules: Rule[], inline: Map<string, Declaration> | null, keyframes: Map<string, Keyframes>): CascadedStyle {
  const values = new Map<string, string>();
  const important = new Set<string>();
  const apply = (decls: Map<string, Declaration>, wantImportant: boolean) => {
    for (const [p, d] of decls) {
      if (d.important !== wantImportant) continue;
      values.set(p, d.value);
      if (wantImportant) important.add(p);
    }
  };
  rules.sort((a, b) => a.layer - b.layer || a.selector.specificity - b.selector.specificity || a.order - b.order);
  for (const rule of rules) apply(rule.decls, false);
  if (inline !== null) apply(inline, false);
  // Animations sit above normal declarations and below !important ones.
  if (keyframes.size > 0) for (const [p, v] of animatedValues(values, keyframes)) if (!important.has(p)) values.set(p, v);
  rules.sort((a, b) => b.layer - a.layer || a.selector.specificity - b.selector.specificity || a.order - b.order);
  for (const rule of rules) apply(rule.decls, true);
  if (inline !== null) apply(inline, true);

  const custom = new Map<string, string>();
  let readsVars = false;
  for (const [p, v] of values) {
    if (p.startsWith("--")) {
      custom.set(p, v);
      values.delete(p);
    } else if (/var\(/i.test(v)) readsVars = true;
  }
  return { values, custom, resolved: readsVars ? null : lowerCased(values) };
}

const FILLS_FORWARDS = /\b(forwards|both)\b/i;
const TIME = /^([\d.]+)(m?s)$/i;

// What an element's animations leave on screen: with fill-mode forwards or both, the last
// frame once they end; otherwise, while they run, what their first and last frames agree on.
function animatedValues(values: ReadonlyMap<string, string>, keyframes: Map<string, Keyframes>): Map<string, string> {
  const out = new Map<string, string>();
  const shorthand = values.get("animation") ?? "";
  const names = (values.get("animation-name") ?? shorthand).split(",").map((part) =>
    part
      .trim()
      .split(/\s+/)
      .find((t) => keyframes.has(t)),
  );
  const fill = `${values.get("animation-fill-mode") ?? ""} ${shorthand}`;
  for (const name of names) {
    const frames = name === undefined ? undefined : keyframes.get(name);
    if (frames === undefined) continue;
    if (FILLS_FORWARDS.test(fill)) for (const [p, d] of frames.to) out.set(p, d.value);
    else {
      const duration = (values.get("animation-duration") ?? shorthand)
        .split(/\s+/)
        .map((t) => TIME.exec(t))
        .find((m) => m !== null);
      const seconds = duration ? Number(duration[1]) / (duration[2]?.toLowerCase() === "ms" ? 1000 : 1) : 0;
      if (seconds < 1) continue; // over before anyone reads it
      for (const [p, d] of frames.to) if (frames.from.get(p)?.value === d.value) out.set(p, d.value);
    }
  }
  return out;
}

function lowerCased(values: ReadonlyMap<string, string>): Declarations {
  const out: Declarations = new Map();
  for (const [p, v] of values) out.set(p, v.toLowerCase());
  return out;
}

/** The element's declarations with var() read from its scope; one that cannot resolve is
 * `unset`, as in a browser (so a link's colour is then inherited, not the link blue). */
export function resolveDeclarations(style: CascadedStyle, scope: CustomProperties): Declarations {
  if (style.resolved !== null) return style.resolved;
  const out: Declarations = new Map();
  for (const [p, v] of style.values) {
    const value = /var\(/i.test(v) ? resolveVars(v, scope) : v;
    out.set(p, value === null ? "unset" : value.trim().toLowerCase());
  }
  return out;
}
