// Walks an HTML body as a mail client would render it and keeps only what a human can see.
// Hiding that no descendant can undo (display:none, opacity, off-screen, clipped away)
// removes the whole element; hiding a descendant may override (visibility, font-size, text
// colour against its background) is judged per text node from the inherited values.
// Styles come from the style attribute and from simple rules in <style> blocks.

import { ElementType, parseDocument } from "htmlparser2";

type Document = ReturnType<typeof parseDocument>;
type AnyNode = Document | Document["children"][number];
type Element = Extract<AnyNode, { attribs: Record<string, string> }>;
type TextNode = Extract<AnyNode, { type: typeof ElementType.Text }>;
type CommentNode = Extract<AnyNode, { type: typeof ElementType.Comment }>;
type ParentNode = Extract<AnyNode, { children: unknown[] }>;

const isElement = (n: AnyNode): n is Element => "attribs" in n;
const isText = (n: AnyNode): n is TextNode => n.type === ElementType.Text;
const isComment = (n: AnyNode): n is CommentNode => n.type === ElementType.Comment;
const hasChildren = (n: AnyNode): n is ParentNode => "children" in n;

export type HiddenHtmlCounts = { hidden_elements: number; html_comments: number; scripts_styles: number };

export type VisibleHtml = {
  html: string; // well-formed HTML holding only what a human sees, for the text converter
  counts: HiddenHtmlCounts;
  hiddenText: string[]; // text of what was removed, one entry per hidden element or comment
};

// Elements whose content a mail client never renders as text.
const NOT_RENDERED = new Set([
  "script", "style", "noscript", "template", "object", "embed", "applet", "iframe", "frame",
  "frameset", "svg", "canvas", "audio", "video", "xml",
]);
// <head> itself stays a plain container: htmlparser2 keeps body content inside an unclosed head.
const METADATA = new Set(["title", "meta", "link", "base"]);
const HIDDEN_TEXT_BUDGET = 10_000;
// Beyond this depth tags are dropped and their content kept, so no recursive consumer
// (the text converter) can overflow its stack on hostile nesting.
const MAX_EMITTED_DEPTH = 400;
const VISIBLE_CONTENT = /[\p{L}\p{N}\p{S}\p{P}]/u;

type Rgba = { r: number; g: number; b: number; a: number };
const BLACK: Rgba = { r: 0, g: 0, b: 0, a: 1 };
const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };
const LINK_BLUE: Rgba = { r: 0, g: 0, b: 238, a: 1 };

type Context = {
  color: Rgba;
  colorFrom: Element | null;
  background: Rgba | null; // null: an image or unknown paint, so colour cannot be judged
  backgroundFrom: Element | null;
  fontPx: number;
  fontFrom: Element | null;
  invisibleFrom: Element | null; // the element whose visibility:hidden is in force
};

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
  const sheet = parseStyleSheet(collectStyleText(doc));
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

  const root: Context = {
    color: BLACK,
    colorFrom: null,
    // Clients paint white unless the stylesheet paints something we cannot place.
    background: sheet.paintsUnplacedBackground ? null : WHITE,
    backgroundFrom: null,
    fontPx: 16,
    fontFrom: null,
    invisibleFrom: null,
  };
  const stack: Array<[AnyNode, Context]> = [[doc, root]];
  while (stack.length > 0) {
    const [node, ctx] = stack.pop() as [AnyNode, Context];
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
      const { decls, hidden: hiddenByCss } = computedStyle(node, sheet);
      // The hidden attribute is a default style: an explicit display overrides it.
      if (hiddenByCss || (node.attribs.hidden !== undefined && !decls.has("display"))) {
        removeHidden(node);
        continue;
      }
      const inner = inherit(ctx, node, decls);
      if (node.attribs["aria-hidden"]?.trim().toLowerCase() === "true" && isWeaklyHidden(decls, inner)) {
        removeHidden(node);
        continue;
      }
      pushChildren(stack, node, inner);
    } else {
      pushChildren(stack, node, ctx);
    }
  }

  // An element whose text was all hidden goes too, so its links do not leak as bare URLs.
  for (const origin of origins) if (!hasVisible.has(origin)) removed.add(origin);

  return { html: serialize(doc, removed, hasVisible), counts, hiddenText: hidden.chunks };
}

// Outlook's conditional comments wrap markup in `[if mso]>` ... `<![endif]`.
const CONDITIONAL_MARKERS = /\[if [^\]]{0,100}\]>|<!\[endif\]|<!-->?/gi;
// Linear even on "<<<<" runs, unlike /<[^>]*>/.
const stripTags = (html: string): string => html.replace(/<[^<>]*>/g, " ");

// htmlparser2 keeps open elements in an array it unshifts on every open tag and searches on
// every close tag, so hostile nesting costs depth × tags: minutes for 5 MB. This scan
// over-estimates that cost (it reads every "<name" as a tag and knows few implied closes) in
// array-entry comparisons, and returns where parsing must stop to stay near half a second.
const PARSE_COST_BUDGET = 2e8;
const SHIFT_COST = 0.1; // moving an entry (unshift) against comparing one (indexOf)
const TAG_START = /<(\/?)([a-zA-Z][^\s/>]*)/y;
const SELF_CLOSING_SIBLINGS = new Set(["p", "li", "td", "th", "tr", "option", "dd", "dt"]);
const VOID_ELEMENTS = new Set([
  "area", "base", "basefont", "br", "col", "command", "embed", "frame", "hr", "image", "img",
  "input", "isindex", "keygen", "link", "meta", "param", "source", "track", "wbr",
]);

function affordableLength(html: string): number {
  const open: string[] = [];
  const openCount = new Map<string, number>();
  let cost = 0;
  for (let lt = html.indexOf("<"); lt >= 0; lt = html.indexOf("<", lt + 1)) {
    TAG_START.lastIndex = lt;
    const m = TAG_START.exec(html);
    if (m === null) continue;
    const name = (m[2] ?? "").toLowerCase();
    const closing = m[1] === "/";
    const searched = closing ? (openCount.get(name) ?? 0) === 0 : name === "form";
    // A search for a name that is not open scans the whole stack; a found one pops what it scans.
    cost += 1 + (searched ? open.length : closing ? 0 : open.length * SHIFT_COST);
    if (cost > PARSE_COST_BUDGET) return lt;
    if (closing) {
      if (searched) continue;
      for (let top = open.pop(); top !== undefined; top = open.pop()) {
        cost += 1 + open.length * SHIFT_COST;
        openCount.set(top, (openCount.get(top) ?? 1) - 1);
        if (top === name) break;
      }
      continue;
    }
    if (VOID_ELEMENTS.has(name)) continue;
    if (SELF_CLOSING_SIBLINGS.has(name) && open[open.length - 1] === name) continue;
    open.push(name);
    openCount.set(name, (openCount.get(name) ?? 0) + 1);
  }
  return html.length;
}

function pushChildren(stack: Array<[AnyNode, Context]>, node: AnyNode, ctx: Context): void {
  if (!hasChildren(node)) return;
  for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i] as AnyNode, ctx]);
}

function collectStyleText(doc: Document): string {
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

class HiddenText {
  readonly chunks: string[] = [];
  private used = 0;

  add(text: string): void {
    if (this.used >= HIDDEN_TEXT_BUDGET) return;
    const chunk = text.slice(0, HIDDEN_TEXT_BUDGET * 2).replace(/\s+/g, " ").trim();
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
        continue;
      } else if (hasChildren(node)) {
        for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i] as AnyNode);
      }
    }
    this.add(parts.join(" "));
  }
}

// The element to blame when inherited values hide a text node; null when it is visible.
function hiddenTextOrigin(ctx: Context): Element | null {
  if (ctx.invisibleFrom !== null) return ctx.invisibleFrom;
  if (ctx.fontPx < 2 && ctx.fontFrom !== null) return ctx.fontFrom;
  if (colorsBlend(ctx.color, ctx.background, 8)) return ctx.colorFrom ?? ctx.backgroundFrom;
  return null;
}

function inherit(ctx: Context, el: Element, decls: Declarations): Context {
  const { attribs } = el;
  const legacyColor = el.name === "font" ? attribs.color : el.name === "body" ? attribs.text : undefined;
  const plain = decls.size === 0 && el.name !== "a" && legacyColor === undefined;
  if (plain && attribs.bgcolor === undefined && attribs.background === undefined) return ctx;
  const next: Context = { ...ctx };
  const visibility = decls.get("visibility");
  if (visibility === "hidden" || visibility === "collapse") next.invisibleFrom = el;
  else if (visibility === "visible") next.invisibleFrom = null;

  const fontSize = decls.get("font-size");
  const font = fontSize ?? decls.get("font");
  const px = font === undefined ? null : parseFontSize(font, ctx.fontPx, fontSize !== undefined);
  if (px !== null) {
    next.fontPx = px;
    next.fontFrom = el;
  }

  const cssColor = decls.get("color");
  const colorValue = cssColor ?? legacyColor;
  const color = colorValue === undefined ? null : parseColor(colorValue, cssColor === undefined);
  if (color !== null) {
    next.color = color;
    next.colorFrom = el;
  } else if (el.name === "a" && colorValue === undefined) {
    // Clients draw links in their own colour, not the inherited one.
    next.color = LINK_BLUE;
    next.colorFrom = null;
  }

  const background = backgroundOf(el, decls);
  if (background !== undefined) {
    next.background = background;
    next.backgroundFrom = el;
  }
  return next;
}

// The element's own opaque background; null when it is an image or gradient (unknown);
// undefined when it paints none and the parent's shows through.
function backgroundOf(el: Element, decls: Declarations): Rgba | null | undefined {
  const shorthand = decls.get("background") ?? "";
  const image = decls.get("background-image");
  if ((image !== undefined && image !== "none") || /url\(|gradient\(/.test(shorthand) || (el.attribs.background ?? "").trim() !== "") {
    return null;
  }
  for (const value of [decls.get("background-color"), ...splitTopLevel(shorthand)]) {
    const color = value === undefined ? null : parseColor(value, false);
    if (color !== null) return color.a >= 0.5 ? color : undefined;
  }
  const legacy = el.attribs.bgcolor === undefined ? null : parseColor(el.attribs.bgcolor, true);
  return legacy !== null && legacy.a >= 0.5 ? legacy : undefined;
}

// Splits a CSS value on spaces outside parentheses: `#fff url(a b) no-repeat` → 3 parts.
function splitTopLevel(value: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= value.length; i++) {
    const c = value[i];
    if (c === "(") depth++;
    else if (c === ")") depth = Math.max(0, depth - 1);
    else if ((c === undefined || c === " " || c === "\t" || c === "\n") && depth === 0) {
      if (i > start) parts.push(value.slice(start, i));
      start = i + 1;
    }
  }
  return parts;
}

// ---- Hiding verdicts ----------------------------------------------------------------------

const OFF_SCREEN_PX = -500;

function isHiddenByLayout(d: Declarations): boolean {
  if (d.size === 0) return false;
  if (d.get("display") === "none") return true;
  const opacity = parseAlpha(d.get("opacity"));
  if (opacity !== null && opacity <= 0.05) return true;
  if (/opacity\(\s*0*\.?0*%?\s*\)/.test(d.get("filter") ?? "")) return true;
  if (/scale[xy]?\(\s*[+-]?0*\.?0*\s*[,)]/.test(d.get("transform") ?? "")) return true;
  return offsetBeyond(d, OFF_SCREEN_PX) || clippedAway(d, 1);
}

// aria-hidden alone hides nothing on screen; with a weaker visual signal it marks a hide.
function isWeaklyHidden(d: Declarations, ctx: Context): boolean {
  const opacity = parseAlpha(d.get("opacity"));
  return (
    (opacity !== null && opacity <= 0.3) ||
    ctx.fontPx < 6 ||
    colorsBlend(ctx.color, ctx.background, 48) ||
    offsetBeyond(d, -100) ||
    clippedAway(d, 4)
  );
}

function offsetBeyond(d: Declarations, limitPx: number): boolean {
  const position = d.get("position");
  if (position !== undefined && position !== "static") {
    for (const side of ["left", "top", "right", "bottom"]) {
      const px = lengthPx(d.get(side));
      if (px !== null && px <= limitPx) return true;
    }
    const left = lengthPx(d.get("left"));
    if (left !== null && left >= -limitPx * 10) return true;
  }
  const margins = (d.get("margin") ?? "").split(/\s+/);
  const marginTop = d.get("margin-top") ?? margins[0];
  const marginLeft = d.get("margin-left") ?? margins[3] ?? margins[1] ?? margins[0];
  return [d.get("text-indent"), marginTop, marginLeft].some((v) => {
    const px = lengthPx(v);
    return px !== null && px <= limitPx;
  });
}

function clippedAway(d: Declarations, maxPx: number): boolean {
  const overflow = [d.get("overflow"), d.get("overflow-x"), d.get("overflow-y")];
  if (overflow.some((v) => v !== undefined && /\b(hidden|clip)\b/.test(v))) {
    for (const prop of ["height", "width", "max-height", "max-width"]) {
      const px = lengthPx(d.get(prop));
      if (px !== null && px <= maxPx) return true;
    }
  }
  const position = d.get("position");
  const rect = /rect\(([^)]*)\)/.exec(d.get("clip") ?? "");
  if (rect && (position === "absolute" || position === "fixed")) {
    const [top, right, bottom, left] = (rect[1] ?? "").trim().split(/[\s,]+/).map((v) => lengthPx(v));
    if (top != null && bottom != null && bottom - top <= maxPx) return true;
    if (left != null && right != null && right - left <= maxPx) return true;
  }
  const clipPath = d.get("clip-path") ?? "";
  const inset = /inset\(\s*([\d.]+)%/.exec(clipPath);
  return (inset !== null && Number(inset[1]) >= 50) || /circle\(\s*0*\.?0*(px|%)?\s*[)a]/.test(clipPath);
}

// ---- Serialisation for the text converter -------------------------------------------------

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
const NEEDS_ESCAPE = /[&<>"]/;
const escapeHtml = (s: string): string => (NEEDS_ESCAPE.test(s) ? s.replace(/[&<>"]/g, (c) => ESCAPES[c] as string) : s);
const TAG_NAME = /^[a-z][a-z0-9]*$/;
const NUMERIC_ATTRIBUTES = ["colspan", "rowspan", "start"];
const SAFE_HREF = /^\s*(https?:|mailto:|tel:)/i;
// Void elements: only line breaks and rules matter to the converter.
const VOID = new Set(["br", "hr", "img", "input", "wbr", "col", "area", "source", "track", "param", "keygen"]);
// Unwrapped so the converter reads the whole document, as clients show text outside <body>.
const DOCUMENT_WRAPPERS = new Set(["html", "head", "body"]);

// Iterative so nesting depth cannot exhaust the stack. Emits only what the converter needs:
// tags, text and link targets (no images, no data: or javascript: URLs).
function serialize(doc: Document, removed: Set<AnyNode>, hasVisible: Set<AnyNode>): string {
  const out: string[] = [];
  const stack: Array<[AnyNode, number] | string> = [[doc, 0]];
  while (stack.length > 0) {
    const item = stack.pop() as [AnyNode, number] | string;
    if (typeof item === "string") {
      out.push(item);
      continue;
    }
    const [node, depth] = item;
    if (removed.has(node)) continue;
    if (isText(node)) {
      out.push(escapeHtml(node.data));
      continue;
    }
    if (isElement(node) && VOID.has(node.name)) {
      if (node.name === "br" || node.name === "hr") out.push(`<${node.name}>`);
      continue;
    }
    if (!hasChildren(node)) continue;
    let childDepth = depth;
    if (isElement(node) && !DOCUMENT_WRAPPERS.has(node.name)) {
      const linkWithoutText = node.name === "a" && !hasVisible.has(node);
      if (TAG_NAME.test(node.name) && depth < MAX_EMITTED_DEPTH && !linkWithoutText) {
        out.push(`<${node.name}${attributes(node)}>`);
        stack.push(`</${node.name}>`);
        childDepth = depth + 1;
      } else {
        out.push(" ");
        stack.push(" ");
      }
    }
    for (let i = node.children.length - 1; i >= 0; i--) stack.push([node.children[i] as AnyNode, childDepth]);
  }
  return out.join("");
}

function attributes(el: Element): string {
  let s = "";
  const href = el.attribs.href;
  if (el.name === "a" && href !== undefined && SAFE_HREF.test(href)) s += ` href="${escapeHtml(href.trim())}"`;
  for (const name of NUMERIC_ATTRIBUTES) {
    const value = el.attribs[name]?.trim();
    if (value !== undefined && /^\d{1,4}$/.test(value)) s += ` ${name}="${value}"`;
  }
  return s;
}

// ---- CSS values ---------------------------------------------------------------------------

type Declarations = Map<string, string>; // property → lower-cased value, !important removed
type Declaration = { value: string; important: boolean };
type Rule = { tag: string | null; classes: string[]; id: string | null; specificity: number; order: number; decls: Map<string, Declaration> };
type StyleSheet = { byKey: Map<string, Rule[]>; paintsUnplacedBackground: boolean; computed: Map<string, ComputedStyle> };

// Only what bears on visibility is kept.
const RELEVANT = new Set([
  "display", "visibility", "opacity", "filter", "transform", "font-size", "font", "color",
  "background", "background-color", "background-image", "position", "left", "top", "right",
  "bottom", "text-indent", "margin", "margin-left", "margin-top", "height", "width",
  "max-height", "max-width", "overflow", "overflow-x", "overflow-y", "clip", "clip-path",
]);
const MAX_RULES = 5_000;
const MAX_RULES_PER_KEY = 100; // bounds the work per element on a hostile stylesheet
const MAX_VALUE_LENGTH = 500;
const NO_DECLARATIONS: Declarations = new Map();

function parseDeclarations(text: string): Map<string, Declaration> {
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

// Browsers honour escapes such as `disp\61 lay`, so hiding must see through them.
function unescapeCss(css: string): string {
  return css.replace(/\\([0-9a-f]{1,6})\s?|\\([^\n])/gi, (_m, hex: string | undefined, ch: string | undefined) => {
    if (hex === undefined) return ch ?? "";
    const cp = Number.parseInt(hex, 16);
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : "\uFFFD";
  });
}

// Top-level rules with simple selectors (tag, .class, #id, compounds of these). Rules in
// @media and the like are skipped: they describe other screens than the default one.
function parseStyleSheet(source: string): StyleSheet {
  const sheet: StyleSheet = { byKey: new Map(), paintsUnplacedBackground: false, computed: new Map() };
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

type ComputedStyle = { decls: Declarations; hidden: boolean };
const MAX_CACHED_STYLES = 10_000;

// Mail repeats the same class and style attributes on thousands of elements: compute once.
function computedStyle(el: Element, sheet: StyleSheet): ComputedStyle {
  const style = el.attribs.style ?? "";
  const key = sheet.byKey.size === 0 ? style : `${el.name}\0${el.attribs.class ?? ""}\0${el.attribs.id ?? ""}\0${style}`;
  let computed = sheet.computed.get(key);
  if (computed === undefined) {
    const decls = declarationsFor(el, sheet);
    computed = { decls, hidden: isHiddenByLayout(decls) };
    if (sheet.computed.size < MAX_CACHED_STYLES) sheet.computed.set(key, computed);
  }
  return computed;
}

// The cascade, simplified: matching rules by specificity then order, the style attribute
// after them, and !important declarations over all normal ones.
function declarationsFor(el: Element, sheet: StyleSheet): Declarations {
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

const LENGTH = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)([a-z%]*)$/;
const PX_PER_UNIT: Record<string, number> = {
  px: 1, pt: 4 / 3, pc: 16, in: 96, cm: 96 / 2.54, mm: 96 / 25.4, q: 96 / 101.6, rem: 16,
  vw: 10, vh: 10, vmin: 10, vmax: 10, // as on a 1000px viewport
};

function lengthPx(raw: string | undefined, fontPx = 16): number | null {
  if (raw === undefined) return null;
  const m = LENGTH.exec(raw.trim());
  if (m === null) return null;
  const n = Number(m[1]);
  const unit = m[2] ?? "";
  if (!Number.isFinite(n)) return null;
  if (n === 0) return 0;
  if (unit === "em") return n * fontPx;
  if (unit === "ex" || unit === "ch") return (n * fontPx) / 2;
  const factor = PX_PER_UNIT[unit];
  return factor === undefined ? null : n * factor;
}

const FONT_KEYWORDS: Record<string, number> = {
  "xx-small": 9, "x-small": 10, small: 13, medium: 16, large: 18, "x-large": 24, "xx-large": 32,
  "xxx-large": 48, initial: 16,
};

// `font-size` value, or the size inside a `font` shorthand such as `0/0 a` or `bold 12px Arial`.
function parseFontSize(value: string, parentPx: number, isFontSize: boolean): number | null {
  const tokens = isFontSize ? [value] : value.split(/\s+/).map((t) => t.split("/")[0] ?? "");
  for (const token of tokens) {
    const keyword = FONT_KEYWORDS[token];
    if (keyword !== undefined) return keyword;
    if (token === "smaller") return parentPx / 1.2;
    if (token === "larger") return parentPx * 1.2;
    const percent = /^([\d.]+)%$/.exec(token);
    if (percent) return (parentPx * Number(percent[1])) / 100;
    const px = lengthPx(token, parentPx);
    if (px !== null && px >= 0) return px;
  }
  return null;
}

function parseAlpha(value: string | undefined): number | null {
  if (value === undefined) return null;
  const m = /^([+-]?[\d.]+)(%?)$/.exec(value.trim());
  if (m === null) return null;
  const n = Number(m[1]);
  if (!Number.isFinite(n)) return null;
  return m[2] === "%" ? n / 100 : n;
}

// True when text in `fg` cannot be told from `bg` (or is transparent on any background).
function colorsBlend(fg: Rgba, bg: Rgba | null, tolerance: number): boolean {
  if (fg.a <= 0.05) return true;
  if (bg === null) return false;
  const channel = (f: number, b: number) => Math.abs(f * fg.a + b * (1 - fg.a) - b);
  return Math.max(channel(fg.r, bg.r), channel(fg.g, bg.g), channel(fg.b, bg.b)) <= tolerance;
}

const colorCache = new Map<string, Rgba | null>();

function parseColor(raw: string, legacy: boolean): Rgba | null {
  if (raw.length > 100) return null;
  const key = legacy ? `L${raw}` : raw;
  let color = colorCache.get(key);
  if (color === undefined) {
    color = parseColorUncached(raw, legacy);
    if (colorCache.size < 1000) colorCache.set(key, color);
  }
  return color;
}

// CSS colours; `legacy` also accepts HTML attribute forms like bgcolor="FFFFFF".
function parseColorUncached(raw: string, legacy: boolean): Rgba | null {
  const v = raw.trim().toLowerCase();
  if (v === "transparent") return { r: 0, g: 0, b: 0, a: 0 };
  const hex = /^#?([0-9a-f]{3,8})$/.exec(v);
  if (hex && (v.startsWith("#") || (legacy && hex[1]?.length === 6))) return parseHex(hex[1] ?? "");
  const named = NAMED_COLORS.get(v);
  if (named !== undefined) return parseHex(named);
  const fn = /^(rgba?|hsla?)\(([^)]*)\)$/.exec(v);
  if (fn === null) return null;
  const args = (fn[2] ?? "").split(/[\s,/]+/).filter((s) => s !== "");
  if (args.length < 3 || args.length > 4) return null;
  const alphaArg = args[3];
  const a = alphaArg === undefined ? 1 : parseAlpha(alphaArg);
  if (a === null) return null;
  if (fn[1]?.startsWith("rgb")) {
    const [r, g, b] = args.slice(0, 3).map((s) => (s.endsWith("%") ? Number.parseFloat(s) * 2.55 : Number(s)));
    if ([r, g, b].some((n) => n === undefined || !Number.isFinite(n))) return null;
    return { r: clamp255(r as number), g: clamp255(g as number), b: clamp255(b as number), a };
  }
  const h = Number.parseFloat(args[0] ?? "");
  const s = Number.parseFloat(args[1] ?? "") / 100;
  const l = Number.parseFloat(args[2] ?? "") / 100;
  if (![h, s, l].every(Number.isFinite)) return null;
  const k = (n: number) => (n + h / 30) % 12;
  const chroma = s * Math.min(l, 1 - l);
  const f = (n: number) => clamp255(255 * (l - chroma * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
  return { r: f(0), g: f(8), b: f(4), a };
}

const clamp255 = (n: number): number => Math.max(0, Math.min(255, n));

function parseHex(hex: string): Rgba | null {
  const full = hex.length <= 4 ? [...hex].map((c) => c + c).join("") : hex;
  if (full.length !== 6 && full.length !== 8) return null;
  const byte = (i: number) => Number.parseInt(full.slice(i, i + 2), 16);
  return { r: byte(0), g: byte(2), b: byte(4), a: full.length === 8 ? byte(6) / 255 : 1 };
}

// The CSS named colours, as name:rrggbb.
const NAMED_COLORS = new Map(
  (
    "aliceblue:f0f8ff antiquewhite:faebd7 aqua:00ffff aquamarine:7fffd4 azure:f0ffff beige:f5f5dc " +
    "bisque:ffe4c4 black:000000 blanchedalmond:ffebcd blue:0000ff blueviolet:8a2be2 brown:a52a2a " +
    "burlywood:deb887 cadetblue:5f9ea0 chartreuse:7fff00 chocolate:d2691e coral:ff7f50 " +
    "cornflowerblue:6495ed cornsilk:fff8dc crimson:dc143c cyan:00ffff darkblue:00008b " +
    "darkcyan:008b8b darkgoldenrod:b8860b darkgray:a9a9a9 darkgreen:006400 darkgrey:a9a9a9 " +
    "darkkhaki:bdb76b darkmagenta:8b008b darkolivegreen:556b2f darkorange:ff8c00 darkorchid:9932cc " +
    "darkred:8b0000 darksalmon:e9967a darkseagreen:8fbc8f darkslateblue:483d8b darkslategray:2f4f4f " +
    "darkslategrey:2f4f4f darkturquoise:00ced1 darkviolet:9400d3 deeppink:ff1493 deepskyblue:00bfff " +
    "dimgray:696969 dimgrey:696969 dodgerblue:1e90ff firebrick:b22222 floralwhite:fffaf0 " +
    "forestgreen:228b22 fuchsia:ff00ff gainsboro:dcdcdc ghostwhite:f8f8ff gold:ffd700 " +
    "goldenrod:daa520 gray:808080 green:008000 greenyellow:adff2f grey:808080 honeydew:f0fff0 " +
    "hotpink:ff69b4 indianred:cd5c5c indigo:4b0082 ivory:fffff0 khaki:f0e68c lavender:e6e6fa " +
    "lavenderblush:fff0f5 lawngreen:7cfc00 lemonchiffon:fffacd lightblue:add8e6 lightcoral:f08080 " +
    "lightcyan:e0ffff lightgoldenrodyellow:fafad2 lightgray:d3d3d3 lightgreen:90ee90 lightgrey:d3d3d3 " +
    "lightpink:ffb6c1 lightsalmon:ffa07a lightseagreen:20b2aa lightskyblue:87cefa " +
    "lightslategray:778899 lightslategrey:778899 lightsteelblue:b0c4de lightyellow:ffffe0 " +
    "lime:00ff00 limegreen:32cd32 linen:faf0e6 magenta:ff00ff maroon:800000 mediumaquamarine:66cdaa " +
    "mediumblue:0000cd mediumorchid:ba55d3 mediumpurple:9370db mediumseagreen:3cb371 " +
    "mediumslateblue:7b68ee mediumspringgreen:00fa9a mediumturquoise:48d1cc mediumvioletred:c71585 " +
    "midnightblue:191970 mintcream:f5fffa mistyrose:ffe4e1 moccasin:ffe4b5 navajowhite:ffdead " +
    "navy:000080 oldlace:fdf5e6 olive:808000 olivedrab:6b8e23 orange:ffa500 orangered:ff4500 " +
    "orchid:da70d6 palegoldenrod:eee8aa palegreen:98fb98 paleturquoise:afeeee palevioletred:db7093 " +
    "papayawhip:ffefd5 peachpuff:ffdab9 peru:cd853f pink:ffc0cb plum:dda0dd powderblue:b0e0e6 " +
    "purple:800080 rebeccapurple:663399 red:ff0000 rosybrown:bc8f8f royalblue:4169e1 " +
    "saddlebrown:8b4513 salmon:fa8072 sandybrown:f4a460 seagreen:2e8b57 seashell:fff5ee " +
    "sienna:a0522d silver:c0c0c0 skyblue:87ceeb slateblue:6a5acd slategray:708090 " +
    "slategrey:708090 snow:fffafa springgreen:00ff7f steelblue:4682b4 tan:d2b48c teal:008080 " +
    "thistle:d8bfd8 tomato:ff6347 turquoise:40e0d0 violet:ee82ee wheat:f5deb3 white:ffffff " +
    "whitesmoke:f5f5f5 yellow:ffff00 yellowgreen:9acd32"
  )
    .split(" ")
    .map((pair) => pair.split(":") as [string, string]),
);
