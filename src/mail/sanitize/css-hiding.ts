// Verdicts on an element's own declarations. Layout hiding (display:none, opacity, off-screen,
// clipped away) is one no descendant can undo, so it removes the whole element; the weaker
// signals count only alongside aria-hidden.

import type { Element } from "../html-nodes.ts";
import type { Declarations } from "./css-declarations.ts";
import { colorsBlend, lengthPx, parseAlpha } from "./css-values.ts";
import type { InheritedStyle } from "./inherited-style.ts";

// Elements laid out inline unless styled otherwise: width, height, overflow, text-indent and
// transforms do not apply to them, so `height:0;overflow:hidden` on a <span> hides nothing.
const INLINE = new Set([
  "a",
  "abbr",
  "acronym",
  "b",
  "bdi",
  "bdo",
  "big",
  "cite",
  "code",
  "data",
  "dfn",
  "em",
  "font",
  "i",
  "kbd",
  "label",
  "mark",
  "nobr",
  "q",
  "s",
  "samp",
  "small",
  "span",
  "strike",
  "strong",
  "sub",
  "sup",
  "time",
  "tt",
  "u",
  "var",
]);

const RESETS = new Set(["inherit", "initial", "unset", "revert", "revert-layer"]);

// How the element lays out, as far as hiding goes: an inline box takes no width, height,
// overflow, text-indent, transform or vertical margin; a table cell grows to its content
// whatever its height, width or max-height, and takes no margins.
export type BoxKind = "inline" | "cell" | "block";

export function boxKind(el: Element, d: Declarations): BoxKind {
  const position = d.get("position");
  if (position === "absolute" || position === "fixed") return "block";
  const float = d.get("float");
  if (float !== undefined && float !== "none") return "block";
  const display = d.get("display");
  if (display !== undefined && !RESETS.has(display)) {
    if (display === "inline" || display === "contents") return "inline";
    return display === "table-cell" ? "cell" : "block";
  }
  if (el.name === "td" || el.name === "th") return "cell";
  return INLINE.has(el.name) ? "inline" : "block";
}

const OFF_SCREEN_PX = -500;

/** Layout hiding no descendant can undo: display:none, transparent, off-screen, clipped away. */
export function isHiddenByLayout(d: Declarations, el: Element): boolean {
  if (d.size === 0) return false;
  if (d.get("display") === "none") return true;
  if (/opacity\(\s*0*\.?0*%?\s*\)/.test(d.get("filter") ?? "")) return true;
  const box = boxKind(el, d);
  if (box !== "inline" && (transformedAway(d) || d.get("content-visibility") === "hidden")) return true;
  return offsetBeyond(d, OFF_SCREEN_PX, box) || clippedAway(d, 1, box);
}

/** The element's own opacity, 1 when it sets none. */
export function opacityOf(d: Declarations): number {
  const opacity = parseAlpha(d.get("opacity"));
  return opacity === null ? 1 : Math.max(0, Math.min(1, opacity));
}

// aria-hidden alone hides nothing on screen; with a weaker visual signal it marks a hide.
export function isWeaklyHidden(d: Declarations, ctx: InheritedStyle, el: Element): boolean {
  const box = boxKind(el, d);
  return (
    ctx.opacity <= 0.3 ||
    ctx.fontPx < 6 ||
    colorsBlend(ctx.fill ?? ctx.color, ctx.background, 48) ||
    offsetBeyond(d, -100, box) ||
    clippedAway(d, 4, box)
  );
}

// Scaled to nothing or translated off the page, by `transform` or the individual properties.
function transformedAway(d: Declarations): boolean {
  if (!d.has("transform") && !d.has("scale") && !d.has("translate")) return false;
  const transform = d.get("transform") ?? "";
  if (/scale[xy]?\(\s*[+-]?0*\.?0*\s*[,)]/.test(transform)) return true;
  // Turned edge-on: rotateX(90deg), rotateY(-0.25turn) ...
  for (const m of transform.matchAll(/rotate[xy]\(\s*([+-]?[\d.]+)(deg|turn|rad|grad)\s*\)/g)) {
    const perTurn = { deg: 360, turn: 1, rad: 2 * Math.PI, grad: 400 }[m[2] as "deg"];
    const quarter = ((Number(m[1]) / perTurn) * 4) % 2;
    if (Math.abs(Math.abs(quarter) - 1) < 1e-6) return true;
  }
  const scale = d.get("scale");
  if (scale?.split(/\s+/).some((t) => /^[+-]?0*\.?0*%?$/.test(t))) return true;
  const shifts: Array<string | undefined> = (d.get("translate") ?? "").split(/\s+/);
  for (const m of transform.matchAll(/translate(3d|x|y)?\(([^)]*)\)/g)) shifts.push(...(m[2] ?? "").split(/\s*,\s*/));
  return shifts.some((v) => {
    const px = lengthPx(v);
    return px !== null && (px <= OFF_SCREEN_PX || px >= -OFF_SCREEN_PX * 10);
  });
}

function offsetBeyond(d: Declarations, limitPx: number, box: BoxKind): boolean {
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
  // Inline boxes take neither text-indent nor vertical margins; cells take no margins.
  const offsets = box === "inline" ? [marginLeft] : box === "cell" ? [d.get("text-indent")] : [d.get("text-indent"), marginTop, marginLeft];
  return offsets.some((v) => {
    const px = lengthPx(v);
    return px !== null && px <= limitPx;
  });
}

function clippedAway(d: Declarations, maxPx: number, box: BoxKind): boolean {
  const overflow = [d.get("overflow"), d.get("overflow-x"), d.get("overflow-y")];
  if (box === "block" && overflow.some((v) => v !== undefined && /\b(hidden|clip)\b/.test(v))) {
    // Lines of no height in a box that takes its height from them: nothing left inside.
    const lineHeight = d.get("line-height");
    const height = lengthPx(d.get("height"));
    if (lineHeight !== undefined && /^[+-]?0*\.?0*(px|em|rem|%)?$/.test(lineHeight) && (height === null || height <= maxPx)) return true;
    for (const prop of ["height", "width", "max-height", "max-width"]) {
      const px = lengthPx(d.get(prop));
      if (px !== null && px <= maxPx) return true;
    }
  }
  const position = d.get("position");
  const rect = /rect\(([^)]*)\)/.exec(d.get("clip") ?? "");
  if (rect && (position === "absolute" || position === "fixed")) {
    const [top, right, bottom, left] = (rect[1] ?? "")
      .trim()
      .split(/[\s,]+/)
      .map((v) => lengthPx(v));
    if (top != null && bottom != null && bottom - top <= maxPx) return true;
    if (left != null && right != null && right - left <= maxPx) return true;
  }
  const clipPath = d.get("clip-path") ?? "";
  const inset = /inset\(\s*([\d.]+)%/.exec(clipPath);
  return (inset !== null && Number(inset[1]) >= 50) || /circle\(\s*0*\.?0*(px|%)?\s*[)a]/.test(clipPath) || emptyPolygon(clipPath);
}

// A polygon() of no area (every point on one line), in px or % of the box alike.
function emptyPolygon(clipPath: string): boolean {
  const body = /polygon\(([^)]*)\)/.exec(clipPath)?.[1];
  if (body === undefined) return false;
  const points = body
    .replace(/^\s*(nonzero|evenodd)\s*,/, "")
    .split(",")
    .map((p) =>
      p
        .trim()
        .split(/\s+/)
        .map((v) => (v.endsWith("%") ? Number.parseFloat(v) : lengthPx(v))),
    );
  if (points.length > 100 || points.some((p) => p.length !== 2 || p.some((v) => v === null || !Number.isFinite(v)))) return false;
  let area = 0;
  for (let i = 0; i < points.length; i++) {
    const [x1, y1] = points[i] as [number, number];
    const [x2, y2] = points[(i + 1) % points.length] as [number, number];
    area += x1 * y2 - x2 * y1;
  }
  return Math.abs(area) < 1e-6;
}
