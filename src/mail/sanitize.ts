// Turns an inbound message body into the text a human would read in a mail client, so an
// agent is not steered by content the human sender's recipient could never see.
// Its internal parts (HTML tree walk, stylesheet, cascade, CSS hiding rules) live in sanitize/;
// this file is the public entry the rest of the project imports.

import { compile, type HtmlToTextOptions } from "html-to-text";
import { visibleHtml } from "./sanitize/hidden-html.ts";
import { emptyInvisibleCounts, stripInvisible } from "./sanitize/invisible-chars.ts";

export type SanitizationReport = {
  hidden_elements: number; // elements removed because a human would not see them
  html_comments: number;
  scripts_styles: number; // <script>, <style>, <noscript>, <template>, <object>, <iframe>, ...
  zero_width_chars: number;
  bidi_controls: number;
  unicode_tags: number;
  other_invisible: number;
  truncated_chars: number; // UTF-16 code units cut by the max length
};

export type SanitizedBody = {
  body_raw: string | null; // the text part, else the HTML; null when neither
  body_clean: string | null; // what an agent should read
  truncated: boolean;
  report: SanitizationReport;
  hidden_text: string; // text of removed hidden elements and comments, for injection scoring
};

const HIDDEN_TEXT_MAX = 10_000;

export const CONVERT_OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  // \u200b is not whitespace here: invisible characters are already stripped and counted.
  whitespaceCharacters: " \t\r\n\f",
  limits: { maxInputLength: Number.MAX_SAFE_INTEGER },
  selectors: [
    { selector: "img", format: "skip" },
    { selector: "a", options: { hideLinkHrefIfSameAsText: true, noAnchorUrl: true } },
    ...["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: { uppercase: false } })),
    // Mail layouts are tables: read them as rows of cells, not as ASCII-art grids.
    { selector: "table", format: "block", options: { leadingLineBreaks: 2, trailingLineBreaks: 2 } },
    { selector: "tr", format: "block", options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
    { selector: "td", format: "inlineSurround", options: { suffix: " " } },
    { selector: "th", format: "inlineSurround", options: { suffix: " " } },
  ],
};

// convert() compiles these options (selector decision trees) on every call: a sixth of the
// sanitizer's time on real mail (bench/sanitize-parse.ts). Compiled once instead.
const toText = compile(CONVERT_OPTIONS);

export function sanitizeBody(input: { text?: string | null; html?: string | null }, options: { maxChars: number }): SanitizedBody {
  const text = present(input.text);
  const html = present(input.html);
  const report = emptyReport();
  const source = text ?? html;
  if (source === null) return { body_raw: null, body_clean: null, truncated: false, report, hidden_text: "" };

  const limit = Number.isNaN(options.maxChars) ? 0 : Math.max(0, Math.floor(options.maxChars));
  let clean: string;
  let hiddenText = "";
  let unconverted = 0;
  try {
    ({ clean, hiddenText, unconverted } = cleanBody(text, html, limit, report));
  } catch {
    // Never fail a delivery over sanitization: read the text part, else a plain tag strip.
    Object.assign(report, emptyReport());
    clean = fallbackClean(text, html, report);
  }

  const kept = cutAt(clean, limit);
  report.truncated_chars = clean.length - kept.length + unconverted;
  return {
    // Postgres text cannot hold NUL; everything else of the original is kept for audit.
    body_raw: source.includes("\0") ? source.replaceAll("\0", "\uFFFD") : source,
    body_clean: kept,
    truncated: report.truncated_chars > 0,
    report,
    hidden_text: cutAt(stripInvisible(hiddenText), HIDDEN_TEXT_MAX),
  };
}

function fallbackClean(text: string | null, html: string | null, report: SanitizationReport): string {
  try {
    return normalizeWhitespace(stripInvisible(text ?? plainStrip(html ?? "", report), report));
  } catch {
    return "";
  }
}

type CleanBody = { clean: string; hiddenText: string; unconverted: number };

function cleanBody(text: string | null, html: string | null, maxChars: number, report: SanitizationReport): CleanBody {
  let clean = "";
  let hiddenText = "";
  let unconverted = 0;
  if (html !== null) {
    const visible = visibleHtml(html);
    Object.assign(report, visible.counts);
    hiddenText = visible.hiddenText.join("\n");
    const chars = emptyInvisibleCounts();
    ({ text: clean, unconverted } = convertEnough(stripInvisible(visible.html, chars), maxChars));
    // Characters are counted for the text the agent reads, which may be the text part instead.
    if (clean !== "" || text === null) Object.assign(report, chars);
  }
  if (clean === "" && text !== null) {
    clean = normalizeWhitespace(stripInvisible(text, report));
    unconverted = 0;
  }
  return { clean, hiddenText, unconverted };
}

// html-to-text costs a few microseconds per element, seconds on megabytes of markup that
// the length limit would cut anyway. Convert a growing prefix until it yields more than
// `maxChars`; the length of what was not converted is then estimated from its text.
const CONVERT_PREFIX = 512 * 1024;

function convertEnough(html: string, maxChars: number): { text: string; unconverted: number } {
  for (let size = Math.max(CONVERT_PREFIX, maxChars * 4); ; size *= 4) {
    const tagStart = html.lastIndexOf("<", size);
    const cut = html.length <= size ? html.length : tagStart > 0 ? tagStart : size;
    const text = normalizeWhitespace(toText(html.slice(0, cut)));
    if (cut === html.length) return { text, unconverted: 0 };
    if (text.length > maxChars) {
      return { text, unconverted: estimateTextLength(html.slice(cut)) };
    }
  }
}

function present(value: string | null | undefined): string | null {
  return typeof value === "string" && /\S/.test(value) ? value : null;
}

function emptyReport(): SanitizationReport {
  return { hidden_elements: 0, html_comments: 0, scripts_styles: 0, ...emptyInvisibleCounts(), truncated_chars: 0 };
}

// Trailing spaces go, runs of blank lines become one, leading and trailing blank lines go.
function normalizeWhitespace(text: string): string {
  const lines: string[] = [];
  let blank = true; // suppresses blank lines at the start
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (line === "") {
      if (!blank) lines.push("");
      blank = true;
    } else {
      lines.push(line);
      blank = false;
    }
  }
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines.join("\n");
}

// At most `max` UTF-16 units, never splitting a surrogate pair.
function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end--;
  return text.slice(0, end);
}

// Text length plus " [url]" per link, as the converter writes them.
function estimateTextLength(html: string): number {
  const links = html.replace(/<a href="([^"<>]*)">/g, " [$1] ");
  return links
    .replace(/<[^<>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim().length;
}

const SKIPPED_BLOCK = /<(script|style|title|noscript|template|object|iframe|svg)(?![\w-])/iy;

// Linear tag strip for when the DOM path fails: drops comments, tags and non-rendered blocks
// whole, and decodes the common entities.
function plainStrip(html: string, report: SanitizationReport): string {
  const out: string[] = [];
  let i = 0;
  while (i < html.length) {
    const lt = html.indexOf("<", i);
    if (lt < 0) {
      out.push(html.slice(i));
      break;
    }
    out.push(html.slice(i, lt), " ");
    if (html.startsWith("<!--", lt)) {
      report.html_comments++;
      const end = html.indexOf("-->", lt + 4);
      i = end < 0 ? html.length : end + 3;
      continue;
    }
    SKIPPED_BLOCK.lastIndex = lt;
    const block = SKIPPED_BLOCK.exec(html)?.[1];
    if (block !== undefined) {
      if (block.toLowerCase() !== "title") report.scripts_styles++;
      const closing = new RegExp(`</${block}`, "gi");
      closing.lastIndex = lt;
      const end = closing.exec(html)?.index ?? -1;
      const close = end < 0 ? -1 : html.indexOf(">", end);
      i = close < 0 ? html.length : close + 1;
      continue;
    }
    const gt = html.indexOf(">", lt);
    i = gt < 0 ? html.length : gt + 1;
  }
  return decodeCommonEntities(out.join(""))
    .replace(/[ \t]{2,}/g, " ")
    .replace(/^[ \t]+/gm, "");
}

const NAMED_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };

function decodeCommonEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (match, ref: string) => {
    if (ref[0] !== "#") return NAMED_ENTITIES[ref.toLowerCase()] ?? match;
    const cp = ref[1] === "x" || ref[1] === "X" ? Number.parseInt(ref.slice(2), 16) : Number(ref.slice(1));
    return cp > 0 && cp <= 0x10ffff ? String.fromCodePoint(cp) : "\uFFFD";
  });
}
