// Reads a dashboard form: URL-encoded, small, every field length-limited. A form never needs
// more than a few kilobytes; anything larger is refused before it is parsed.

import { readBodyWithin } from "../request/body-limits.ts";

export const MAX_FORM_BYTES = 16 * 1024;

export class FormTooLarge extends Error {}

export type Form = {
  /** The trimmed value, or "" when absent; longer than `max` is treated as invalid (null). */
  text(name: string, max: number): string | null;
  /** The raw value for secrets such as passwords (not trimmed). */
  secret(name: string, max: number): string | null;
  has(name: string): boolean;
};

/**
 * `maxBytes` raises the limit for the one form that takes a file (an extraction schema); such a
 * form is multipart, and its file fields read as text like any other field.
 */
export async function readForm(request: Request, maxBytes = MAX_FORM_BYTES): Promise<Form> {
  const body = await readBodyWithin(request, maxBytes);
  if (body === null) throw new FormTooLarge();
  const params = await fieldsOf(body, request.headers.get("content-type") ?? "");
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

async function fieldsOf(body: string, contentType: string): Promise<URLSearchParams> {
  if (!/^multipart\/form-data;/i.test(contentType)) return new URLSearchParams(body);
  const params = new URLSearchParams();
  let parsed: FormData;
  try {
    parsed = await new Response(body, { headers: { "content-type": contentType } }).formData();
  } catch {
    return params; // a malformed body has no fields, so its CSRF check fails
  }
  for (const [name, value] of parsed) params.append(name, typeof value === "string" ? value : await value.text());
  return params;
}

/**
 * The mailbox a page's query names: `mailbox_id`, as in the API, or `mailbox` (the dashboard's own
 * older links). Empty or absent: null. A different id in each is a request we cannot honour.
 */
export function askedMailboxId(url: URL): string | null | "conflict" {
  const apiName = url.searchParams.get("mailbox_id") || null;
  const oldName = url.searchParams.get("mailbox") || null;
  if (apiName && oldName && apiName !== oldName) return "conflict";
  return apiName ?? oldName;
}
