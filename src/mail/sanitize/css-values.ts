// CSS values that decide whether text can be seen: colours (CSS and legacy HTML attribute
// forms), lengths in px, font sizes and alpha. Every parser returns null for what it cannot read.

export type Rgba = { r: number; g: number; b: number; a: number };
export const BLACK: Rgba = { r: 0, g: 0, b: 0, a: 1 };
export const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };
export const LINK_BLUE: Rgba = { r: 0, g: 0, b: 238, a: 1 };

const LENGTH = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?)([a-z%]*)$/;
const PX_PER_UNIT: Record<string, number> = {
  px: 1,
  pt: 4 / 3,
  pc: 16,
  in: 96,
  cm: 96 / 2.54,
  mm: 96 / 25.4,
  q: 96 / 101.6,
  rem: 16,
  vw: 10,
  vh: 10,
  vmin: 10,
  vmax: 10, // as on a 1000px viewport
};

export function lengthPx(raw: string | undefined, fontPx = 16): number | null {
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
  "xx-small": 9,
  "x-small": 10,
  small: 13,
  medium: 16,
  large: 18,
  "x-large": 24,
  "xx-large": 32,
  "xxx-large": 48,
  initial: 16,
};

// `font-size` value, or the size inside a `font` shorthand such as `0/0 a` or `bold 12px Arial`.
export function parseFontSize(value: string, parentPx: number, isFontSize: boolean): number | null {
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

export function parseAlpha(value: string | undefined): number | null {
  if (value === undefined) return null;
  const m = /^([+-]?[\d.]+)(%?)$/.exec(value.trim());
  if (m === null) return null;
  const n = Number(m[1]);
  if (!Number.isFinite(n)) return null;
  return m[2] === "%" ? n / 100 : n;
}

// Splits a CSS value on spaces outside parentheses: `#fff url(a b) no-repeat` → 3 parts.
export function splitTopLevel(value: string): string[] {
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

// True when text in `fg` cannot be told from `bg` (or is transparent on any background).
export function colorsBlend(fg: Rgba, bg: Rgba | null, tolerance: number): boolean {
  if (fg.a <= 0.05) return true;
  if (bg === null) return false;
  const channel = (f: number, b: number) => Math.abs(f * fg.a + b * (1 - fg.a) - b);
  return Math.max(channel(fg.r, bg.r), channel(fg.g, bg.g), channel(fg.b, bg.b)) <= tolerance;
}

// Shared across messages: mail reuses a handful of colours, and the size is bounded.
const colorCache = new Map<string, Rgba | null>();

export function parseColor(raw: string, legacy: boolean): Rgba | null {
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
  const fn = /^(rgba?|hsla?|hwb)\(([^)]*)\)$/.exec(v);
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
  if (fn[1] === "hwb") return hwb(args, a);
  const h = Number.parseFloat(args[0] ?? "");
  const s = Number.parseFloat(args[1] ?? "") / 100;
  const l = Number.parseFloat(args[2] ?? "") / 100;
  if (![h, s, l].every(Number.isFinite)) return null;
  const k = (n: number) => (n + h / 30) % 12;
  const chroma = s * Math.min(l, 1 - l);
  const f = (n: number) => clamp255(255 * (l - chroma * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1))));
  return { r: f(0), g: f(8), b: f(4), a };
}

// hwb(h w% b%): the pure hue, whitened and blackened; grey once w + b reach 100%.
function hwb(args: string[], a: number): Rgba | null {
  const [h, w, b] = args.slice(0, 3).map((s) => Number.parseFloat(s));
  if (h === undefined || w === undefined || b === undefined || ![h, w, b].every(Number.isFinite)) return null;
  let white = w / 100;
  let black = b / 100;
  if (white + black >= 1) {
    const grey = clamp255((255 * white) / (white + black));
    return { r: grey, g: grey, b: grey, a };
  }
  const k = (n: number) => (n + h / 30) % 12;
  const hue = (n: number) => 0.5 - 0.5 * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1));
  white = Math.max(0, white);
  black = Math.max(0, black);
  const f = (n: number) => clamp255(255 * (hue(n) * (1 - white - black) + white));
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
