// Verdicts on an element's own declarations. Layout hiding (display:none, opacity, off-screen,
// clipped away) is one no descendant can undo, so it removes the whole element; the weaker
// signals count only alongside aria-hidden.

import type { Declarations } from "./css-declarations.ts";
import { colorsBlend, lengthPx, parseAlpha } from "./css-values.ts";
import type { Element } from "./html-nodes.ts";
import type { InheritedStyle } from "./inherited-style.ts";
import { type StyleSheet, declarationsFor } from "./stylesheet.ts";

export type ComputedStyle = { decls: Declarations; hidden: boolean };
const MAX_CACHED_STYLES = 10_000;

// Mail repeats the same class and style attributes on thousands of elements: compute once
// per message. Without a stylesheet the style attribute alone decides, so it is the key.
export function makeComputedStyle(sheet: StyleSheet): (el: Element) => ComputedStyle {
  const cache = new Map<string, ComputedStyle>();
  return (el) => {
    const style = el.attribs.style ?? "";
    const key = sheet.byKey.size === 0 ? style : `${el.name}\0${el.attribs.class ?? ""}\0${el.attribs.id ?? ""}\0${style}`;
    let computed = cache.get(key);
    if (computed === undefined) {
      const decls = declarationsFor(el, sheet);
      computed = { decls, hidden: isHiddenByLayout(decls) };
      if (cache.size < MAX_CACHED_STYLES) cache.set(key, computed);
    }
    return computed;
  };
}

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
export function isWeaklyHidden(d: Declarations, ctx: InheritedStyle): boolean {
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
