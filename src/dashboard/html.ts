// HTML building for the dashboard. `html` escapes every interpolated value unless it is already
// Html (built by `html` itself or wrapped with raw() by code that vouches for it), so a value
// from the database or a form can never become markup by accident.
import { escapeHtml, revealHidden } from "../html-escape.ts";

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** Trusted markup only: a constant of our own, never a value that came from outside. */
export function raw(markup: string): Html {
  return new Html(markup);
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/**
 * Text a human must judge (what an agent wants to send), escaped, with every invisible or
 * direction-changing character shown as a visible `U+XXXX` marker instead of taking effect.
 */
export function reveal(value: string): Html {
  return new Html(revealHidden(value));
}

/** A dashboard path with each dynamic segment percent-encoded (then escaped by `html`). */
export function path(...segments: string[]): string {
  return "/dashboard" + segments.map((segment) => `/${encodeURIComponent(segment)}`).join("");
}

/** Timestamps as stored (ISO, UTC), shortened for a table cell. */
export function when(value: string | null | undefined): string {
  return value ? value.replace("T", " ").replace(/\.\d+Z$/, "Z") : "—";
}
