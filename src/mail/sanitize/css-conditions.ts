// Decides which conditional blocks of a stylesheet apply, as a reader's screen would: @media
// is evaluated for one typical desktop screen (1280×800, landscape, colour, fine pointer,
// light scheme), anything aimed elsewhere (print, speech, unknown features) is false, and
// @supports asks css-tree's property grammar whether a declaration is valid CSS.

import { type CssNode, lexer } from "css-tree";
import { compileSelector } from "./css-selectors.ts";

export const SCREEN = { width: 1280, height: 800 } as const;

// Keyword features of that screen; a feature absent here and from `numericFeature` is unknown.
const KEYWORDS: Record<string, string[]> = {
  orientation: ["landscape"],
  hover: ["hover"],
  "any-hover": ["hover"],
  pointer: ["fine"],
  "any-pointer": ["fine"],
  "prefers-color-scheme": ["light"],
  "prefers-reduced-motion": ["no-preference"],
  "prefers-reduced-transparency": ["no-preference"],
  "prefers-contrast": ["no-preference"],
  "forced-colors": ["none"],
  "inverted-colors": ["none"],
  "display-mode": ["browser"],
  scan: ["progressive"],
  update: ["fast"],
  "overflow-block": ["scroll"],
  "overflow-inline": ["scroll"],
  "color-gamut": ["srgb"],
  "dynamic-range": ["standard"],
  "video-dynamic-range": ["standard"],
  scripting: ["enabled"],
};

// Numeric features in px (lengths), plain numbers or dppx, for `min-`/`max-` and ranges.
function numericFeature(name: string): number | null {
  switch (name) {
    case "width":
    case "device-width":
      return SCREEN.width;
    case "height":
    case "device-height":
      return SCREEN.height;
    case "aspect-ratio":
    case "device-aspect-ratio":
      return SCREEN.width / SCREEN.height;
    case "resolution":
    case "-webkit-device-pixel-ratio":
      return 1;
    case "color":
      return 8;
    case "color-index":
    case "monochrome":
    case "grid":
      return 0;
    default:
      return null;
  }
}

const PX_PER: Record<string, number> = {
  px: 1,
  em: 16,
  rem: 16,
  pt: 4 / 3,
  pc: 16,
  in: 96,
  cm: 96 / 2.54,
  mm: 96 / 25.4,
  q: 96 / 101.6,
  vw: 12.8,
  vh: 8,
};
const DPPX_PER: Record<string, number> = { dppx: 1, x: 1, dpi: 1 / 96, dpcm: 2.54 / 96 };

// A numeric value in the feature's unit; null when it cannot be read.
function numberOf(node: CssNode | null, feature: string): number | null {
  if (node === null) return null;
  if (node.type === "Number") return Number(node.value);
  if (node.type === "Ratio") {
    const left = numberOf(node.left as CssNode, feature);
    const right = node.right === null ? 1 : numberOf(node.right as CssNode, feature);
    return left === null || right === null || right === 0 ? null : left / right;
  }
  if (node.type === "Dimension") {
    const unit = node.unit.toLowerCase();
    const factor = feature.endsWith("resolution") ? DPPX_PER[unit] : PX_PER[unit];
    return factor === undefined ? null : Number(node.value) * factor;
  }
  return null;
}

// null is "unknown" (an unknown feature or value): false, and not negated into true.
type Truth = boolean | null;

function feature(name: string, value: CssNode | null): Truth {
  const lower = name.toLowerCase();
  const prefix = lower.startsWith("min-") ? "min" : lower.startsWith("max-") ? "max" : null;
  const base = prefix === null ? lower : lower.slice(4);
  const keywords = KEYWORDS[base];
  if (keywords !== undefined) {
    if (prefix !== null) return null;
    if (value === null) return !["none", "no-preference"].includes(keywords[0] ?? "");
    return value.type === "Identifier" ? keywords.includes(value.name.toLowerCase()) : null;
  }
  const actual = numericFeature(base);
  if (actual === null) return null;
  if (value === null) return prefix === null ? actual !== 0 : null;
  const wanted = numberOf(value, base);
  if (wanted === null) return null;
  if (prefix === "min") return actual >= wanted;
  if (prefix === "max") return actual <= wanted;
  return Math.abs(actual - wanted) < 1e-9;
}

function compare(a: number, op: string, b: number): boolean {
  switch (op) {
    case "<":
      return a < b;
    case "<=":
      return a <= b;
    case ">":
      return a > b;
    case ">=":
      return a >= b;
    case "=":
      return Math.abs(a - b) < 1e-9;
    default:
      return false;
  }
}

// `(600px <= width)`, `(width < 700px)`, `(400px < width < 700px)`.
function range(node: CssNode & { type: "FeatureRange" }): Truth {
  const name = [node.left, node.middle].find((n) => n.type === "Identifier") as { name: string } | undefined;
  if (name === undefined) return null;
  const actual = numericFeature(name.name.toLowerCase());
  if (actual === null) return null;
  const sides: Array<[number | null, string, number | null]> = [];
  if (node.left.type === "Identifier") {
    sides.push([actual, node.leftComparison, numberOf(node.middle, name.name)]);
  } else {
    sides.push([numberOf(node.left, name.name), node.leftComparison, actual]);
    if (node.right !== null && node.rightComparison !== null) sides.push([actual, node.rightComparison, numberOf(node.right, name.name)]);
  }
  for (const [a, op, b] of sides) if (a === null || b === null || !compare(a, op, b)) return a === null || b === null ? null : false;
  return true;
}

// A condition's children: [not] term, then (and|or term)*.
function condition(children: Iterable<CssNode>, term: (n: CssNode) => Truth): Truth {
  let negate = false;
  let joiner: "and" | "or" | null = null;
  let result: Truth = null;
  let first = true;
  for (const child of children) {
    if (child.type === "Identifier") {
      const word = child.name.toLowerCase();
      if (word === "not") negate = true;
      else if (word === "and" || word === "or") joiner = word;
      else return null;
      continue;
    }
    let value = term(child);
    if (negate) value = value === null ? null : !value;
    negate = false;
    if (first) result = value;
    else if (joiner === "and") result = result === false || value === false ? false : result === null || value === null ? null : true;
    else if (joiner === "or") result = result === true || value === true ? true : result === null || value === null ? null : false;
    else return null;
    first = false;
  }
  return result;
}

function mediaTerm(node: CssNode): Truth {
  if (node.type === "Feature") return feature(node.name, node.value as CssNode | null);
  if (node.type === "FeatureRange") return range(node);
  if (node.type === "Condition") return condition(node.children, mediaTerm);
  return null;
}

const SCREEN_TYPES = new Set(["all", "screen"]);

/** Whether a @media prelude (css-tree's AtrulePrelude, or null for none) holds on the screen. */
export function mediaApplies(prelude: CssNode | null): boolean {
  if (prelude === null) return true;
  const list = prelude.type === "AtrulePrelude" ? prelude.children.first : null;
  if (list?.type !== "MediaQueryList") return false;
  if (list.children.isEmpty) return true;
  for (const query of list.children) {
    if (query.type !== "MediaQuery") continue;
    const typeMatches = query.mediaType === null || SCREEN_TYPES.has(query.mediaType.toLowerCase());
    const cond = query.condition === null ? true : condition(query.condition.children, mediaTerm);
    let result: Truth = cond === null ? null : typeMatches && cond;
    if (query.modifier?.toLowerCase() === "not") result = result === null ? null : !result;
    if (result === true) return true;
  }
  return false;
}

function supportsTerm(node: CssNode): Truth {
  if (node.type === "SupportsDeclaration") {
    const decl = node.declaration as CssNode;
    if (decl.type !== "Declaration") return false;
    if (decl.property.startsWith("--")) return true;
    const value = decl.value.type === "Raw" ? decl.value.value.trim() : decl.value;
    try {
      return lexer.matchProperty(decl.property.toLowerCase(), value as string).matched !== null;
    } catch {
      return false;
    }
  }
  if (node.type === "FeatureFunction") {
    if (node.feature.toLowerCase() !== "selector" || node.value.type !== "Selector") return false;
    const compiled = compileSelector(node.value);
    return compiled !== "invalid";
  }
  if (node.type === "Condition") return condition(node.children, supportsTerm);
  return false;
}

/** Whether a @supports prelude holds: the declaration tests as css-tree's grammar judges them. */
export function supportsApplies(prelude: CssNode | null): boolean {
  const cond = prelude?.type === "AtrulePrelude" ? prelude.children.first : null;
  if (cond?.type !== "Condition") return false;
  return condition(cond.children, supportsTerm) === true;
}
