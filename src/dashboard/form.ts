// Reads a dashboard form: URL-encoded, small, every field length-limited. A form never needs
// more than a few kilobytes; anything larger is refused before it is parsed.

import { readBodyWithin } from "../http/body-limits.ts";

export const MAX_FORM_BYTES = 16 * 1024;

export class FormTooLarge extends Error {}

export type Form = {
  /** The trimmed value, or "" when absent; longer than `max` is treated as invalid (null). */
  text(name: string, max: number): string | null;
  /** The raw value for secrets such as passwords (not trimmed). */
  secret(name: string, max: number): string | null;
  has(name: string): boolean;
};

export async function readForm(request: Request): Promise<Form> {
  const body = await readBodyWithin(request, MAX_FORM_BYTES);
  if (body === null) throw new FormTooLarge();
  const params = new URLSearchParams(body);
  const value = (name: string, max: number, trim: boolean): string | null => {
    const found = params.get(name) ?? "";
    const out = trim ? found.trim() : found;
    if (out.length > max || out.includes("\0")) return null;
    return out;
  };
  return {
    text: (name, max) => value(name, max, true),
    secret: (name, max) => value(name, max, false),
    has: (name) => params.has(name),
  };
}
