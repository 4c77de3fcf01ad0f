// Reads CSS declaration blocks (a style attribute or a rule body, parsed by css-tree, which
// sees through comments, strings and escapes as a browser does) into the properties that
// bear on visibility, and custom properties, which those may read through var().

import { type CssNode, parse } from "css-tree";

export type Declarations = Map<string, string>; // property → lower-cased value, var() resolved
export type Declaration = { value: string; important: boolean }; // value as written, unescaped
export const NO_DECLARATIONS: Declarations = new Map();

// Only what bears on visibility is kept (and custom properties, "--*").
const RELEVANT = new Set([
  "display",
  "visibility",
  "opacity",
  "filter",
  "transform",
  "font-size",
  "font",
  "color",
  "background",
  "background-color",
  "background-image",
  "position",
  "left",
  "top",
  "right",
  "bottom",
  "text-indent",
  "margin",
  "margin-left",
  "margin-top",
  "height",
  "width",
  "max-height",
  "max-width",
  "overflow",
  "overflow-x",
  "overflow-y",
  "clip",
  "clip-path",
  "float",
  "translate",
  "scale",
  "content-visibility",
  "line-height",
  "-webkit-text-fill-color",
  "animation",
  "animation-name",
  "animation-duration",
  "animation-fill-mode",
]);
const MAX_VALUE_LENGTH = 500;
const MAX_CUSTOM_PROPERTIES = 200; // per block: each one is copied to every descendant's scope

/** A style attribute's declarations. */
export function parseDeclarations(text: string): Map<string, Declaration> {
  let list: CssNode;
  try {
    list = parse(text, { context: "declarationList", parseValue: false, parseCustomProperty: false, positions: false });
  } catch {
    return new Map();
  }
  return declarationsOf(list);
}

/** The declarations of a parsed block or declaration list; later ones replace earlier ones
 * unless only the earlier is !important. */
export function declarationsOf(block: CssNode, everyProperty = false): Map<string, Declaration> {
  const result = new Map<string, Declaration>();
  if (block.type !== "Block" && block.type !== "DeclarationList") return result;
  let custom = 0;
  for (const node of block.children) {
    if (node.type !== "Declaration") continue;
    const raw = node.property.includes("\\") ? unescapeCss(node.property) : node.property;
    const isCustom = raw.startsWith("--");
    const property = isCustom ? raw : raw.toLowerCase();
    if (!isCustom && !everyProperty && !RELEVANT.has(property)) continue;
    if (isCustom && ++custom > MAX_CUSTOM_PROPERTIES) continue;
    const important = node.important !== false;
    const previous = result.get(property);
    if (previous?.important && !important) continue;
    result.set(property, { value: valueText(node.value), important });
  }
  return result;
}

function valueText(value: CssNode): string {
  // With parseValue off css-tree keeps the value as written (Raw), comments aside.
  let text = value.type === "Raw" ? value.value : "";
  if (text.length > MAX_VALUE_LENGTH * 4) text = text.slice(0, MAX_VALUE_LENGTH * 4);
  if (text.includes("/*")) text = stripCssComments(text);
  if (text.includes("\\")) text = unescapeCss(text);
  // Bounded so that no value regex can take long; the start is all a verdict needs.
  return text.trim().slice(0, MAX_VALUE_LENGTH);
}

// Linear scan rather than a regex, so an unclosed comment cannot cost quadratic time.
function stripCssComments(css: string): string {
  const parts: string[] = [];
  let i = 0;
  while (i < css.length) {
    const start = css.indexOf("/*", i);
    if (start < 0) break;
    parts.push(css.slice(i, start));
    const end = css.indexOf("*/", start + 2);
    i = end < 0 ? css.length : end + 2;
  }
  parts.push(css.slice(i));
  return parts.join(" ");
}

// Browsers honour escapes such as `disp\61 lay` or `n\6f ne`, so hiding must see through them.
function unescapeCss(css: string): string {
  return css.replace(/\\([0-9a-f]{1,6})\s?|\\([^\n])/gi, (_m, hex: string | undefined, ch: string | undefined) => {
    if (hex === undefined) return ch ?? "";
    const cp = Number.parseInt(hex, 16);
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : "\uFFFD";
  });
}
