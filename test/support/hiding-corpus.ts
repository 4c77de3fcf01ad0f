// A seeded generator of HTML mail that hides text, and of look-alikes that do not: each
// document holds a few blocks, each block one text given a hiding (or harmless) declaration
// through one mechanism (style attribute, class, id, attribute and structural selectors,
// combinators, escapes, @media, @supports, @layer, nesting, var(), !important) or through a
// twist that makes it miss (a selector that does not match, a condition that does not hold, a
// later or stronger rule). Shared by the browser-oracle test and scripts/hidden-text-oracle.ts.
//
// Every text carries a token (`Q0012B03Z`) found in exactly one text node, so a text is
// "shown" by the sanitizer when its token is in body_clean, and by the browser when the
// oracle says so. `intended` is what the generator meant; the browser is the judge.

export type GeneratedText = { token: string; technique: string; intended: "hidden" | "shown" };
export type GeneratedDoc = { id: number; html: string; texts: GeneratedText[] };

type Rng = () => number;

// mulberry32: small, seeded, good enough to pick among templates.
function makeRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;

// Declarations that hide text, and look-alikes that do not. `block`: only hides on a box
// that is not inline (heights, overflow, transforms, text-indent do nothing on a <span>).
type Value = { css: string; hides: boolean; block?: boolean; name: string };

const HIDING: Value[] = [
  { name: "display-none", css: "display:none", hides: true },
  { name: "visibility-hidden", css: "visibility:hidden", hides: true },
  { name: "opacity-0", css: "opacity:0", hides: true },
  { name: "font-size-0", css: "font-size:0", hides: true },
  { name: "font-size-0px", css: "font-size:0px", hides: true },
  { name: "white-text", css: "color:#ffffff", hides: true },
  { name: "white-rgb", css: "color:rgb(255,255,255)", hides: true },
  { name: "near-white", css: "color:#fdfdfd", hides: true },
  { name: "same-colour-bg", css: "color:#3a6b8c;background-color:#3a6b8c", hides: true },
  { name: "transparent-text", css: "color:transparent", hides: true },
  { name: "rgba-0", css: "color:rgba(0,0,0,0)", hides: true },
  { name: "abs-left-9999", css: "position:absolute;left:-9999px", hides: true },
  { name: "abs-top-9999", css: "position:absolute;top:-9999px", hides: true },
  { name: "text-indent", css: "text-indent:-9999px", hides: true, block: true },
  { name: "height-0-overflow", css: "height:0;overflow:hidden", hides: true, block: true },
  { name: "max-height-0-overflow", css: "max-height:0;overflow:hidden", hides: true, block: true },
  { name: "width-0-overflow", css: "width:0;overflow:hidden", hides: true, block: true },
  { name: "clip-rect", css: "position:absolute;clip:rect(0 0 0 0)", hides: true },
  { name: "clip-path-inset", css: "clip-path:inset(50%)", hides: true },
  { name: "scale-0", css: "transform:scale(0)", hides: true, block: true },
  { name: "filter-opacity", css: "filter:opacity(0)", hides: true },
  { name: "margin-left", css: "margin-left:-9999px", hides: true, block: true },
  { name: "text-fill-transparent", css: "-webkit-text-fill-color:transparent", hides: true },
  { name: "text-fill-white", css: "-webkit-text-fill-color:#ffffff", hides: true },
  { name: "content-visibility", css: "content-visibility:hidden", hides: true, block: true },
  { name: "scale-property", css: "scale:0", hides: true, block: true },
  { name: "translate-off", css: "transform:translateX(-9999px)", hides: true, block: true },
  { name: "translate-property", css: "translate:-9999px 0", hides: true, block: true },
  { name: "line-height-0-overflow", css: "line-height:0;height:auto;overflow:hidden", hides: true, block: true },
  { name: "opacity-percent", css: "opacity:0%", hides: true },
  { name: "hex4-transparent", css: "color:#fff0", hides: true },
  { name: "rgb-space-white", css: "color:rgb(255 255 255)", hides: true },
  { name: "hwb-white", css: "color:hwb(0 100% 0%)", hides: true },
  { name: "named-white", css: "color:WHITE", hides: true },
  { name: "clip-path-circle", css: "clip-path:circle(0)", hides: true },
  { name: "rotate-edge-on", css: "transform:rotateX(90deg)", hides: true, block: true },
  { name: "clip-path-polygon-point", css: "clip-path:polygon(0 0, 0 0, 0 0)", hides: true },
  { name: "font-size-1px", css: "font-size:1px", hides: true },
  { name: "opacity-tiny", css: "opacity:0.04", hides: true },
  { name: "relative-top-9999", css: "position:relative;top:-9999px", hides: true },
  { name: "overflow-clip-height-0", css: "height:0;overflow:clip", hides: true, block: true },
  { name: "inline-block-zero", css: "display:inline-block;width:0;height:0;overflow:hidden", hides: true },
  { name: "sr-only", css: "position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0,0,0,0)", hides: true },
];

const HARMLESS: Value[] = [
  { name: "display-block", css: "display:block", hides: false },
  { name: "opacity-half", css: "opacity:0.6", hides: false },
  { name: "small-grey", css: "font-size:11px;color:#666666", hides: false },
  { name: "white-on-dark", css: "color:#ffffff;background-color:#202020", hides: false },
  { name: "relative-offset", css: "position:relative;left:-20px", hides: false },
  { name: "height-0-visible-overflow", css: "height:0", hides: false },
  { name: "indent", css: "text-indent:20px", hides: false },
  { name: "scale-up", css: "transform:scale(1.1)", hides: false },
  { name: "bold-red", css: "font-weight:bold;color:#cc0000", hides: false },
  { name: "max-height-no-overflow", css: "max-height:0", hides: false },
  { name: "small-translate", css: "transform:translateX(12px)", hides: false },
  { name: "text-fill-dark", css: "-webkit-text-fill-color:#222222", hides: false },
  { name: "line-height-small", css: "line-height:1", hides: false },
  { name: "content-visibility-auto", css: "content-visibility:visible", hides: false },
  { name: "hwb-dark", css: "color:hwb(200 10% 60%)", hides: false },
  { name: "rotate-slightly", css: "transform:rotate(5deg)", hides: false },
  { name: "font-size-3px", css: "font-size:3px", hides: false },
  { name: "line-height-0-no-overflow", css: "line-height:0", hides: false },
  { name: "inline-block-sized", css: "display:inline-block;width:200px;overflow:hidden", hides: false },
];

// On an inline element these hide nothing: the look-alike a naive reader gets wrong.
const INLINE_LOOKALIKES = HIDING.filter((v) => v.block);

type Block = { css: string[]; html: string; texts: GeneratedText[] };
type Ctx = { rng: Rng; doc: number; next: () => string; serial: () => number; quirks: boolean };

const tokenFor = (doc: number, k: number): string =>
  `Q${doc.toString().padStart(4, "0")}${String.fromCharCode(65 + (k % 26))}${Math.floor(k / 26)
    .toString()
    .padStart(2, "0")}Z`;

// A mechanism takes the declarations and says how an element gets (or seems to get) them.
type Mechanism = {
  name: string;
  applies: boolean; // false: a look-alike that must not reach the element
  build: (c: Ctx, decls: string, target: (attrs: string, tag?: string) => string) => { css: string[]; html: string };
};

const MECHANISMS: Mechanism[] = [
  { name: "inline", applies: true, build: (_c, d, t) => ({ css: [], html: t(`style="${d}"`) }) },
  {
    name: "class",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.c${n}{${d}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "id",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`#i${n}{${d}}`], html: t(`id="i${n}"`) };
    },
  },
  {
    name: "attribute",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`[data-h${n}]{${d}}`], html: t(`data-h${n}`) };
    },
  },
  {
    name: "attribute-value",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`[data-k="v${n}"]{${d}}`], html: t(`data-k="v${n}"`) };
    },
  },
  {
    name: "first-child",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.w${n} > :first-child{${d}}`], html: `<div class="w${n}">${t("")}<p>${c.next()}</p></div>` };
    },
  },
  {
    name: "nth-child",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.w${n} > :nth-child(2){${d}}`], html: `<div class="w${n}"><p>${c.next()}</p>${t("")}</div>` };
    },
  },
  {
    name: "child-combinator-tag",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`div.w${n} > span{${d}}`], html: `<div class="w${n}">${t("", "span")}</div>` };
    },
  },
  {
    name: "descendant",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.w${n} .x{${d}}`], html: `<div class="w${n}"><div>${t(`class="x"`)}</div></div>` };
    },
  },
  {
    name: "adjacent-sibling",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.m${n} + *{${d}}`], html: `<div><p class="m${n}">${c.next()}</p>${t("")}</div>` };
    },
  },
  {
    name: "escaped-class",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.h\\31 ${n}{${d}}`], html: t(`class="h1${n}"`) };
    },
  },
  {
    name: "media-screen",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@media screen{.c${n}{${d}}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "media-min-width",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@media only screen and (min-width:600px){.c${n}{${d}}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "media-range",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@media (600px <= width <= 1600px){.c${n}{${d}}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "supports",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@supports (display:flex){.c${n}{${d}}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "supports-not-nonsense",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@supports not (display:nonsense){.c${n}{${d}}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "layer",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@layer l${n}{.c${n}{${d}}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "nesting",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.w${n}{ .x{${d}} }`], html: `<div class="w${n}">${t(`class="x"`)}</div>` };
    },
  },
  {
    name: "where-is",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`:where(.w${n}) :is(p,div,span,td,li){${d}}`], html: `<div class="w${n}">${t("")}</div>` };
    },
  },
  {
    name: "not",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.w${n} > :not(.keep){${d}}`], html: `<div class="w${n}">${t("")}</div>` };
    },
  },
  {
    name: "is-forgiving",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`:is(.c${n}, :nonsense-${n}){${d}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "has",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.w${n}:has(.m${n}) .x{${d}}`], html: `<div class="w${n}"><b class="m${n}"></b>${t(`class="x"`)}</div>` };
    },
  },
  {
    name: "style-media-screen",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [], html: `<style media="screen">.c${n}{${d}}</style>${t(`class="c${n}"`)}` };
    },
  },
  {
    name: "uppercase-property",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return {
        css: [`.c${n}{${d.replace(/(^|;)([a-z-]+)/g, (_m, a: string, p: string) => `${a}${p.toUpperCase()}`)}}`],
        html: t(`class="c${n}"`),
      };
    },
  },
  {
    name: "important-beats-inline",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.c${n}{${important(d)}}`], html: t(`class="c${n}" style="${undo(d)}"`) };
    },
  },
  {
    name: "specificity-beats-later",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`div .c${n}.c${n}{${d}}`, `.c${n}{${undo(d)}}`], html: `<div>${t(`class="c${n}"`)}</div>` };
    },
  },
  {
    name: "unlayered-beats-layer",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.c${n}{${d}}`, `@layer l${n}{#i${n}.c${n}{${undo(d)}}}`], html: t(`class="c${n}" id="i${n}"`) };
    },
  },
  {
    name: "custom-property",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.w${n}{${viaVars(d, n)}}`, `.w${n} .x{${readVars(d, n)}}`], html: `<div class="w${n}">${t(`class="x"`)}</div>` };
    },
  },
  {
    name: "custom-property-fallback",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.c${n}{${withFallback(d, n)}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "comment-and-escape-in-value",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.c${n}{${obfuscate(d)}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "animation-forwards",
    applies: true,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@keyframes k${n}{to{${d}}}`, `.c${n}{animation:k${n} 0s forwards}`], html: t(`class="c${n}"`) };
    },
  },
  // Elements the browser does not display by default (the declarations come on top).
  {
    name: "closed-details",
    applies: true,
    build: (c, d, t) => ({ css: [], html: `<details><summary>${c.next()}</summary>${t(`style="${d}"`)}</details>` }),
  },
  { name: "noembed", applies: true, build: (_c, d, t) => ({ css: [], html: `<noembed>${t(`style="${d}"`)}</noembed>` }) },
  { name: "closed-dialog", applies: true, build: (_c, d, t) => ({ css: [], html: `<dialog>${t(`style="${d}"`)}</dialog>` }) },
  // Look-alikes: the declarations are written but must not reach the element.
  {
    name: "open-details",
    applies: false,
    build: (c, _d, t) => ({ css: [], html: `<details open><summary>${c.next()}</summary>${t("")}</details>` }),
  },
  { name: "open-dialog", applies: false, build: (_c, _d, t) => ({ css: [], html: `<dialog open>${t("")}</dialog>` }) },
  {
    name: "never-ancestor",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.never${n} .x{${d}}`], html: `<div>${t(`class="x"`)}</div>` };
    },
  },
  {
    name: "first-child-miss",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.w${n} > :first-child{${d}}`], html: `<div class="w${n}"><p>${c.next()}</p>${t("")}</div>` };
    },
  },
  {
    name: "child-combinator-miss",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`div.w${n} > span{${d}}`], html: `<div class="w${n}"><b>${t("", "span")}</b></div>` };
    },
  },
  {
    name: "attribute-value-miss",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`[data-k="other${n}"]{${d}}`], html: t(`data-k="v${n}"`) };
    },
  },
  {
    name: "media-print",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@media print{.c${n}{${d}}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "media-max-width",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@media screen and (max-width:600px){.c${n}{${d}}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "media-not-screen",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@media not screen{.c${n}{${d}}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "media-portrait",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@media (orientation:portrait){.c${n}{${d}}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "supports-nonsense",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@supports (display:nonsense){.c${n}{${d}}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "supports-not-flex",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@supports not (display:flex){.c${n}{${d}}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "overridden-by-later",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.c${n}{${d}}`, `.c${n}{${undo(d)}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "overridden-by-inline",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.c${n}{${d}}`], html: t(`class="c${n}" style="${undo(d)}"`) };
    },
  },
  {
    name: "overridden-by-id",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`#i${n}{${undo(d)}}`, `.c${n}{${d}}`], html: t(`class="c${n}" id="i${n}"`) };
    },
  },
  {
    name: "pseudo-element-only",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.c${n}::after{content:"";${d}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "hover-only",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.c${n}:focus{${d}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "undefined-var",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.c${n}{${readVars(d, n)}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "style-media-print",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [], html: `<style media="print">.c${n}{${d}}</style>${t(`class="c${n}"`)}` };
    },
  },
  {
    name: "has-miss",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.w${n}:has(.m${n}) .x{${d}}`], html: `<div class="w${n}">${t(`class="x"`)}</div>` };
    },
  },
  {
    name: "invalid-in-list",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.c${n}, .c${n}:nonsense{${d}}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "animation-no-fill",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`@keyframes k${n}{to{${d}}}`, `.c${n}{animation:k${n} 0s}`], html: t(`class="c${n}"`) };
    },
  },
  {
    name: "class-case-mismatch",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.Cx${n}{${d}}`], html: t(`class="cx${n}"`) };
    },
  },
  {
    name: "layer-loses-to-unlayered",
    applies: false,
    build: (c, d, t) => {
      const n = c.serial();
      return { css: [`.c${n}{${undo(d)}}`, `@layer l${n}{#i${n}.c${n}{${d}}}`], html: t(`class="c${n}" id="i${n}"`) };
    },
  },
];

// The declarations with every one !important.
const important = (d: string): string =>
  d
    .split(";")
    .map((x) => `${x} !important`)
    .join(";");

// Declarations that undo a hiding one (what a visible element would compute).
function undo(d: string): string {
  const props = d.split(";").map((x) => x.split(":")[0] ?? "");
  const reset: Record<string, string> = {
    display: "block",
    visibility: "visible",
    opacity: "1",
    "font-size": "16px",
    color: "#111111",
    "background-color": "#ffffff",
    position: "static",
    left: "auto",
    top: "auto",
    "text-indent": "0",
    height: "auto",
    "max-height": "none",
    width: "auto",
    overflow: "visible",
    clip: "auto",
    "clip-path": "none",
    transform: "none",
    filter: "none",
    "margin-left": "0",
    "font-weight": "normal",
  };
  return props.map((p) => `${p}:${reset[p] ?? "initial"}`).join(";");
}

// `color:#fff` → `--v1: #fff` on the wrapper, `color: var(--v1)` on the element.
function viaVars(d: string, n: number): string {
  return d
    .split(";")
    .map((x, i) => `--v${n}-${i}:${x.slice(x.indexOf(":") + 1)}`)
    .join(";");
}
function readVars(d: string, n: number): string {
  return d
    .split(";")
    .map((x, i) => `${x.slice(0, x.indexOf(":"))}:var(--v${n}-${i})`)
    .join(";");
}
function withFallback(d: string, n: number): string {
  return d
    .split(";")
    .map((x) => `${x.slice(0, x.indexOf(":"))}:var(--missing${n}, ${x.slice(x.indexOf(":") + 1)})`)
    .join(";");
}
// `display:none` → `disp\61 lay:/* x */none`.
function obfuscate(d: string): string {
  return d
    .split(";")
    .map((x) => {
      const [p = "", v = ""] = [x.slice(0, x.indexOf(":")), x.slice(x.indexOf(":") + 1)];
      return `${p.slice(0, 1)}\\${p.charCodeAt(1).toString(16)} ${p.slice(2)}:/* ${p} */${v}`;
    })
    .join(";");
}

// Ancestors that change what the target inherits: backgrounds that make white text readable,
// inherited hiding a descendant may undo, compounding opacity, and quirks-mode tables (which
// start again from the default colour and font size). `hides`: hides all it holds by itself.
type Wrapper = { name: string; open: string; close: string; hides?: boolean };
const WRAPPERS: Wrapper[] = [
  { name: "dark-bg", open: `<div style="background-color:#101010;color:#eeeeee">`, close: "</div>" },
  { name: "legacy-black-table", open: `<table bgcolor="#000000"><tr><td><font color="#ffffff">`, close: "</font></td></tr></table>" },
  { name: "gradient-bg", open: `<div style="background-image:linear-gradient(#000000,#333333);color:#ffffff">`, close: "</div>" },
  { name: "faint", open: `<div style="opacity:0.2">`, close: "</div>" },
  { name: "white-text-table", open: `<div style="color:#ffffff"><table><tr><td>`, close: "</td></tr></table></div>", hides: true },
  { name: "zero-font-table", open: `<div style="font-size:0"><table><tr><td>`, close: "</td></tr></table></div>", hides: true },
  { name: "invisible-parent", open: `<div style="visibility:hidden">`, close: "</div>", hides: true },
  { name: "zero-font-parent", open: `<div style="font-size:0">`, close: "</div>", hides: true },
  { name: "restored-visibility", open: `<div style="visibility:hidden"><div style="visibility:visible">`, close: "</div></div>" },
  { name: "legacy-font-size", open: `<div style="font-size:0"><font size="3">`, close: "</font></div>" },
  { name: "restored-font", open: `<div style="font-size:0"><div style="font-size:15px">`, close: "</div></div>" },
  { name: "white-link", open: `<div style="color:#ffffff"><a href="https://example.test/">`, close: "</a></div>" },
  { name: "white-on-white-class", open: `<div class="ww">`, close: "</div>", hides: true },
  { name: "dark-class", open: `<div class="dk">`, close: "</div>" },
];
const WRAPPER_CSS = `.ww{background-color:#ffffff;color:#ffffff}\n.dk{background:#111111;color:#f0f0f0}`;

const INLINE_TAGS = new Set(["span", "a", "b", "font"]);
const TAGS = ["div", "p", "span", "li", "td", "a", "b", "font", "h2", "blockquote", "center"] as const;

function wrapTag(tag: string, attrs: string, text: string): string {
  const extra = tag === "a" ? ` href="https://example.test/"` : "";
  const open = `<${tag}${extra}${attrs ? ` ${attrs}` : ""}>${text}</${tag}>`;
  if (tag === "li") return `<ul>${open}</ul>`;
  if (tag === "td") return `<table><tr>${open}</tr></table>`;
  return open;
}

function makeBlock(c: Ctx): Block {
  const rng = c.rng;
  const mechanism = pick(rng, MECHANISMS);
  const roll = rng();
  // Half the blocks hide, a third carry harmless styles, the rest an inline look-alike.
  let value: Value;
  if (roll < 0.5) value = pick(rng, HIDING);
  else if (roll < 0.83) value = pick(rng, HARMLESS);
  else value = pick(rng, INLINE_LOOKALIKES);
  const inlineLookalike = roll >= 0.83;
  const token = c.next();
  const texts: GeneratedText[] = [];
  let intendedHidden = false;
  const target = (attrs: string, forced?: string): string => {
    let tag: string = forced ?? pick(rng, TAGS);
    if (forced === undefined && inlineLookalike) tag = "span";
    else if (forced === undefined && value.block && INLINE_TAGS.has(tag)) tag = "div";
    // Inside structural wrappers the element must stay the wrapper's direct child.
    if (
      mechanism.name.includes("child") ||
      mechanism.name === "not" ||
      mechanism.name === "adjacent-sibling" ||
      mechanism.name === "where-is"
    ) {
      if (tag === "li" || tag === "td") tag = "p";
    }
    const isInline = INLINE_TAGS.has(tag);
    const applies = mechanism.applies || (c.quirks && mechanism.name === "class-case-mismatch");
    const byDefault = ["closed-details", "noembed", "closed-dialog"].includes(mechanism.name);
    intendedHidden = byDefault || (applies && value.hides && !(value.block && isInline));
    return wrapTag(tag, attrs, token);
  };
  const built = mechanism.build(c, value.css, target);
  const wrapper = rng() < 0.35 ? pick(rng, WRAPPERS) : null;
  if (wrapper !== null) {
    built.html = `${wrapper.open}${built.html}${wrapper.close}`;
    if (wrapper.hides) intendedHidden = true; // unless the target restores it: the browser decides
  }
  const technique = `${mechanism.name}/${value.name}${inlineLookalike ? "/on-span" : ""}${wrapper ? ` in ${wrapper.name}` : ""}`;
  texts.push({ token, technique, intended: intendedHidden ? "hidden" : "shown" });
  // Siblings a mechanism wrote beside the target (for :first-child and the like).
  for (const sibling of built.html.match(/Q\d{4}[A-Z]\d{2}Z/g) ?? []) {
    if (sibling !== token)
      texts.push({ token: sibling, technique: `sibling in ${technique}`, intended: wrapper?.hides ? "hidden" : "shown" });
  }
  const before = c.next();
  const after = c.next();
  texts.push({ token: before, technique: "plain", intended: "shown" }, { token: after, technique: "plain", intended: "shown" });
  return { css: built.css, html: `<p>${before}</p>${built.html}<p>${after}</p>`, texts };
}

export function generateDoc(seed: number, id: number): GeneratedDoc {
  const rng = makeRng(seed * 1_000_003 + id);
  let k = 0;
  let serial = 0;
  // Mail often has no doctype: quirks mode, where class names match whatever their case.
  const quirks = rng() < 0.3;
  const c: Ctx = { rng, doc: id, next: () => tokenFor(id, k++), serial: () => serial++, quirks };
  const blocks: Block[] = [];
  const count = 1 + Math.floor(rng() * 4);
  for (let i = 0; i < count; i++) blocks.push(makeBlock(c));
  const css = [WRAPPER_CSS, ...blocks.flatMap((b) => b.css)].join("\n");
  const body = blocks.map((b) => b.html).join("\n");
  // Some mail sets light text on a dark page through <body> attributes.
  const bodyAttributes = rng() < 0.1 ? ` text="#ffffff" bgcolor="#101010"` : "";
  const html = `${quirks ? "" : "<!DOCTYPE html>\n"}<html><head><meta charset="utf-8"><style>\n${css}\n</style></head><body${bodyAttributes}>\n${body}\n</body></html>`;
  return { id, html, texts: blocks.flatMap((b) => b.texts) };
}

export function generateCorpus(seed: number, count: number): GeneratedDoc[] {
  return Array.from({ length: count }, (_, i) => generateDoc(seed, i));
}
