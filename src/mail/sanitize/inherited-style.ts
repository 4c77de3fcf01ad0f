// What a text node inherits from its ancestors that decides whether it can be read: colour,
// background, font size and visibility, each with the element that set it, so that a hide
// is blamed on (and removes) the element responsible.

import type { Element } from "../html-nodes.ts";
import type { CustomProperties } from "./css-custom-properties.ts";
import type { Declarations } from "./css-declarations.ts";
import { BLACK, colorsBlend, LINK_BLUE, parseColor, parseFontSize, type Rgba, splitTopLevel, WHITE } from "./css-values.ts";

export type InheritedStyle = {
  color: Rgba;
  colorFrom: Element | null;
  fill: Rgba | null; // -webkit-text-fill-color, which paints text instead of color; null: currentcolor
  fillFrom: Element | null;
  background: Rgba | null; // null: an image or unknown paint, so colour cannot be judged
  backgroundFrom: Element | null;
  fontPx: number;
  fontFrom: Element | null;
  invisibleFrom: Element | null; // the element whose visibility:hidden is in force
  opacity: number; // the product of the ancestors' opacities (not inherited, but compounding)
  vars: CustomProperties; // custom properties in scope
  // Quirks mode: a table takes the colour of <body text>, else black, not its parent's.
  quirksTable: { color: Rgba; from: Element | null } | null;
};

// <font size="1".."7"> (or "+1", "-2": from 3) as browsers map it to CSS sizes.
const LEGACY_FONT_PX = [10, 13, 16, 18, 24, 32, 48];

function legacyFontPx(size: string | undefined): number | null {
  const m = /^\s*([+-]?)(\d+)/.exec(size ?? "");
  if (m === null) return null;
  const n = Number(m[2]);
  const step = m[1] === "+" ? 3 + n : m[1] === "-" ? 3 - n : n;
  return LEGACY_FONT_PX[Math.max(1, Math.min(7, step)) - 1] ?? null;
}

// Elements the browser paints in its own text and background colours, not inherited ones.
const GREY: Rgba = { r: 239, g: 239, b: 239, a: 1 };
const UA_PAINT: Record<string, [Rgba, Rgba]> = {
  dialog: [BLACK, WHITE],
  mark: [BLACK, { r: 255, g: 255, b: 0, a: 1 }],
  button: [BLACK, GREY],
  select: [BLACK, WHITE],
  textarea: [BLACK, WHITE],
};

export function rootStyle(quirksMode: boolean, vars: CustomProperties, body: Element | null): InheritedStyle {
  const bodyText = body?.attribs.text === undefined ? null : parseColor(body.attribs.text, true);
  return {
    color: BLACK,
    colorFrom: null,
    fill: null,
    fillFrom: null,
    background: WHITE, // what clients paint behind a message
    backgroundFrom: null,
    fontPx: 16,
    fontFrom: null,
    invisibleFrom: null,
    opacity: 1,
    vars,
    quirksTable: quirksMode ? { color: bodyText ?? BLACK, from: bodyText === null ? null : body } : null,
  };
}

// The element to blame when inherited values hide a text node; null when it is visible.
export function hiddenTextOrigin(ctx: InheritedStyle): Element | null {
  if (ctx.invisibleFrom !== null) return ctx.invisibleFrom;
  if (ctx.fontPx < 2 && ctx.fontFrom !== null) return ctx.fontFrom;
  if (colorsBlend(ctx.fill ?? ctx.color, ctx.background, 8))
    return (ctx.fill === null ? ctx.colorFrom : ctx.fillFrom) ?? ctx.backgroundFrom;
  return null;
}

// The style `el`'s children inherit; the parent's own object when `el` changes nothing.
export function inherit(ctx: InheritedStyle, el: Element, decls: Declarations, vars: CustomProperties, opacity: number): InheritedStyle {
  const { attribs } = el;
  const legacyColor = el.name === "font" ? attribs.color : el.name === "body" ? attribs.text : undefined;
  const quirkyTable = ctx.quirksTable !== null && el.name === "table";
  const uaPaint = UA_PAINT[el.name];
  const plain =
    decls.size === 0 &&
    el.name !== "a" &&
    legacyColor === undefined &&
    attribs.size === undefined &&
    !quirkyTable &&
    opacity === 1 &&
    uaPaint === undefined;
  if (plain && attribs.bgcolor === undefined && attribs.background === undefined && vars === ctx.vars) return ctx;
  const next: InheritedStyle = { ...ctx, vars, opacity: ctx.opacity * opacity };
  if (ctx.quirksTable !== null && quirkyTable) {
    // Quirks mode: a table starts again from the default font size and the body's text colour.
    next.fontPx = 16;
    next.fontFrom = null;
    next.color = ctx.quirksTable.color;
    next.colorFrom = ctx.quirksTable.from;
  }
  const visibility = decls.get("visibility");
  if (visibility === "hidden" || visibility === "collapse") next.invisibleFrom = el;
  else if (visibility === "visible") next.invisibleFrom = null;

  const fontSize = decls.get("font-size");
  const font = fontSize ?? decls.get("font");
  const legacySize = el.name === "font" && font === undefined ? legacyFontPx(attribs.size) : null;
  const px = font === undefined ? legacySize : parseFontSize(font, ctx.fontPx, fontSize !== undefined);
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
  } else if (el.name === "a" && colorValue === undefined && attribs.href !== undefined) {
    // Clients draw links in their own colour, not the inherited one (an <a> without href is no link).
    next.color = LINK_BLUE;
    next.colorFrom = null;
  } else if (uaPaint !== undefined && colorValue === undefined) {
    next.color = uaPaint[0];
    next.colorFrom = null;
  }

  const fill = decls.get("-webkit-text-fill-color");
  if (fill === "currentcolor") {
    next.fill = null;
    next.fillFrom = null;
  } else if (fill !== undefined) {
    const painted = parseColor(fill, false);
    if (painted !== null) {
      next.fill = painted;
      next.fillFrom = el;
    }
  }

  const own = backgroundOf(el, decls); // null (an image: unknown) is an answer, undefined is none
  const background = own === undefined && uaPaint !== undefined ? uaPaint[1] : own;
  if (background !== undefined) {
    next.background = background;
    next.backgroundFrom = uaPaint !== undefined && background === uaPaint[1] ? null : el;
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
