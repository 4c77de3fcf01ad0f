// The browser oracle: renders a generated document in headless Chromium on a 1280×800 screen
// and says, per token, whether a person sees its text. Computed from what Chromium laid out:
// the text's boxes (non-zero size, inside the page, not clipped away: hit-tested with
// elementsFromPoint, which honours overflow, clip and clip-path), visibility, the opacity
// compounded up the tree (filter: opacity() included) and the contrast of the text colour with
// the first painted background behind it. Then compared with the sanitizer's body_clean.

import type { Page } from "playwright-core";
import { sanitizeBody } from "../../src/mail/sanitize.ts";
import type { HeadlessBrowser } from "./browser.ts";
import type { GeneratedDoc } from "./hiding-corpus.ts";

export const VIEWPORT = { width: 1280, height: 800 };

export type Disagreement = { doc: number; token: string; technique: string; browser: boolean; sanitizer: boolean; html: string };
export type OracleResult = {
  docs: number;
  texts: number;
  hiddenByBrowser: number; // texts the browser does not show
  agreedTexts: number;
  agreedDocs: number;
  disagreements: Disagreement[];
  unintended: number; // texts where the browser differs from what the generator meant
};

export const CORPUS_TOKEN = "Q\\d{4}[A-Z]\\d{2}Z"; // as the generator writes them, one per text node

// Runs in the page: whether the text of each token (a regular expression) is seen.
function shownInPage(pattern: string): Record<string, boolean> {
  const TOKEN = new RegExp(pattern);
  const out: Record<string, boolean> = {};
  const parse = (c: string): [number, number, number, number] => {
    const m = /rgba?\(([^)]*)\)/.exec(c);
    if (m === null) return [0, 0, 0, c === "transparent" ? 0 : 1];
    const p = (m[1] ?? "")
      .split(/[\s,/]+/)
      .filter((x) => x !== "")
      .map(Number);
    return [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0, p[3] ?? 1];
  };
  const filterOpacity = (f: string): number => {
    const m = /opacity\(([\d.]+)(%?)\)/.exec(f);
    return m === null ? 1 : Number(m[1]) / (m[2] === "%" ? 100 : 1);
  };
  const pageWidth = window.innerWidth;
  const pageHeight = Math.max(document.documentElement.scrollHeight, window.innerHeight);
  // Each token's text is wrapped in an inline probe element (a name no stylesheet targets),
  // so hit-testing finds text even where it overflows a zero-height box.
  const probes: Array<[string, Element]> = [];
  const walker = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) texts.push(node as Text);
  for (const node of texts) {
    const token = TOKEN.exec(node.data)?.[0];
    if (token === undefined || node.parentElement === null) continue;
    const probe = document.createElement("x-probe");
    node.replaceWith(probe);
    probe.append(node);
    probes.push([token, probe]);
  }
  for (const [token, probe] of probes) {
    const el = probe.parentElement as Element;
    const style = getComputedStyle(el);
    let shown = style.visibility === "visible";
    let opacity = 1;
    for (let a: Element | null = el; a !== null; a = a.parentElement) {
      const s = getComputedStyle(a);
      opacity *= Number(s.opacity) * filterOpacity(s.filter);
    }
    if (opacity <= 0.05) shown = false;
    if (shown) {
      // Contrast: the colour text is painted in (-webkit-text-fill-color, which resolves to
      // color unless set) over the first background painted behind it.
      const [r, g, b, alpha] = parse(style.getPropertyValue("-webkit-text-fill-color") || style.color);
      let bg: [number, number, number] | null = [255, 255, 255];
      for (let a: Element | null = el; a !== null; a = a.parentElement) {
        const s = getComputedStyle(a);
        if (s.backgroundImage !== "none") {
          bg = null;
          break;
        }
        const [br, bgc, bb, ba] = parse(s.backgroundColor);
        if (ba >= 0.5) {
          bg = [br, bgc, bb];
          break;
        }
      }
      if (alpha <= 0.05) shown = false;
      else if (bg !== null) {
        const mix = (f: number, k: number) => Math.abs(f * alpha + k * (1 - alpha) - k);
        if (Math.max(mix(r, bg[0]), mix(g, bg[1]), mix(b, bg[2])) <= 8) shown = false;
      }
    }
    if (shown) {
      shown = false;
      for (const rect of Array.from(probe.getClientRects())) {
        const left = Math.max(rect.left + window.scrollX, 0);
        const right = Math.min(rect.right + window.scrollX, pageWidth);
        const top = Math.max(rect.top + window.scrollY, 0);
        const bottom = Math.min(rect.bottom + window.scrollY, pageHeight);
        if (right - left < 1 || bottom - top < 2) continue;
        // Hit-test a few points of the part inside the page: what is clipped is not hit.
        for (const [fx, fy] of [
          [0.5, 0.5],
          [0.2, 0.5],
          [0.8, 0.5],
          [0.5, 0.2],
          [0.5, 0.8],
        ] as const) {
          const x = left + (right - left) * fx;
          const y = top + (bottom - top) * fy;
          window.scrollTo(Math.max(0, x - pageWidth / 2), Math.max(0, y - window.innerHeight / 2));
          if (document.elementsFromPoint(x - window.scrollX, y - window.scrollY).includes(probe)) {
            shown = true;
            break;
          }
        }
        if (shown) break;
      }
      window.scrollTo(0, 0);
    }
    out[token] = shown;
  }
  return out;
}

const stale = new WeakSet<Page>();

export async function browserShown(page: Page, html: string, token = CORPUS_TOKEN): Promise<Record<string, boolean>> {
  // Chromium keeps <body text>'s colour (which quirks-mode tables take) in the document, and
  // setContent reuses it: a document with one, and the one after it, get a fresh document
  // (3x slower, so only they).
  const bodyText = /<body[^>]*\stext\s*=/i.test(html);
  if (bodyText || stale.has(page)) await page.goto("about:blank");
  if (bodyText) stale.add(page);
  else stale.delete(page);
  await page.setContent(html, { waitUntil: "domcontentloaded" });
  return page.evaluate(shownInPage, token);
}

export function sanitizerShown(doc: GeneratedDoc): Record<string, boolean> {
  const clean = sanitizeBody({ html: doc.html }, { maxChars: 1_000_000 }).body_clean ?? "";
  return Object.fromEntries(doc.texts.map((t) => [t.token, clean.includes(t.token)]));
}

export async function newOraclePage(headless: HeadlessBrowser): Promise<Page> {
  const context = await headless.browser.newContext({ viewport: VIEWPORT, javaScriptEnabled: false });
  return context.newPage();
}

export async function runOracle(page: Page, docs: GeneratedDoc[], onDoc?: (done: number) => void): Promise<OracleResult> {
  const result: OracleResult = {
    docs: docs.length,
    texts: 0,
    hiddenByBrowser: 0,
    agreedTexts: 0,
    agreedDocs: 0,
    disagreements: [],
    unintended: 0,
  };
  for (const doc of docs) {
    const browser = await browserShown(page, doc.html);
    const ours = sanitizerShown(doc);
    let agreed = true;
    for (const text of doc.texts) {
      result.texts++;
      const b = browser[text.token] ?? false;
      const s = ours[text.token] ?? false;
      if (!b) result.hiddenByBrowser++;
      if (b !== (text.intended === "shown")) result.unintended++;
      if (b === s) result.agreedTexts++;
      else {
        agreed = false;
        result.disagreements.push({ doc: doc.id, token: text.token, technique: text.technique, browser: b, sanitizer: s, html: doc.html });
      }
    }
    if (agreed) result.agreedDocs++;
    onDoc?.(result.docs);
  }
  return result;
}
