// Reads a CSS declaration block (a style attribute or a rule body) into the properties that
// bear on visibility, seeing through comments and escapes as a browser does.

export type Declarations = Map<string, string>; // property → lower-cased value, !important removed
export type Declaration = { value: string; important: boolean };
export const NO_DECLARATIONS: Declarations = new Map();

// Only what bears on visibility is kept.
const RELEVANT = new Set([
  "display", "visibility", "opacity", "filter", "transform", "font-size", "font", "color",
  "background", "background-color", "background-image", "position", "left", "top", "right",
  "bottom", "text-indent", "margin", "margin-left", "margin-top", "height", "width",
  "max-height", "max-width", "overflow", "overflow-x", "overflow-y", "clip", "clip-path",
]);
const MAX_VALUE_LENGTH = 500;

export function parseDeclarations(text: string): Map<string, Declaration> {
  const result = new Map<string, Declaration>();
  let css = text.includes("/*") ? stripCssComments(text) : text;
  if (css.includes("\\")) css = unescapeCss(css);
  for (const part of css.split(";")) {
    const colon = part.indexOf(":");
    if (colon < 0) continue;
    const property = part.slice(0, colon).trim().toLowerCase();
    if (!RELEVANT.has(property)) continue;
    // Bounded so that no value regex can take long; the start is all a verdict needs.
    let value = part.slice(colon + 1, colon + 1 + MAX_VALUE_LENGTH).trim().toLowerCase();
    const important = /!\s*important$/.test(value);
    if (important) value = value.replace(/!\s*important$/, "").trim();
    result.set(property, { value, important });
  }
  return result;
}

// Linear scan rather than a regex, so an unclosed comment cannot cost quadratic time.
export function stripCssComments(css: string): string {
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

// Browsers honour escapes such as `disp\61 lay`, so hiding must see through them.
function unescapeCss(css: string): string {
  return css.replace(/\\([0-9a-f]{1,6})\s?|\\([^\n])/gi, (_m, hex: string | undefined, ch: string | undefined) => {
    if (hex === undefined) return ch ?? "";
    const cp = Number.parseInt(hex, 16);
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : "\uFFFD";
  });
}
