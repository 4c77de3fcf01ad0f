// The original of a message, three ways, each account-scoped with the one 404:
// - the HTML as the sender wrote it, for the sandboxed <iframe> of the message page only. The
//   response carries its own CSP: `sandbox` (an opaque origin, no scripts, no forms, no popups,
//   even if opened directly), nothing loads from anywhere but data: URLs and inline styles, and
//   remote images only after the human asks for them (?images=1);
// - the raw message (.eml) as it arrived or left, as a download;
// - an attachment, as a download the browser neither renders nor sniffs (as the API serves it).
import { getAttachment } from "../../core/messages.ts";
import { parseInbound } from "../../mail/parse.ts";
import type { PageContext } from "../guard.ts";
import { html } from "../html.ts";
import { rawMessage } from "../mail-queries.ts";
import { dashboardPrincipal } from "../principal.ts";

function frameCsp(remoteImages: boolean): string {
  return [
    "sandbox",
    "default-src 'none'",
    `img-src data:${remoteImages ? " https: http:" : ""}`,
    "style-src 'unsafe-inline'",
    "font-src data:",
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'self'",
  ].join("; ");
}

// A refresh would navigate the frame to the sender's page, which CSP cannot stop; a meta CSP
// from the sender could only tighten ours, but removing it keeps the page's rules ours alone.
const META_HTTP_EQUIV = /<meta\b[^>]*http-equiv[^>]*>/gi;

function frameResponse(body: string, remoteImages: boolean): Response {
  return new Response(body, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": frameCsp(remoteImages),
      "x-content-type-options": "nosniff",
      "x-frame-options": "SAMEORIGIN",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
    },
  });
}

function download(content: Uint8Array, contentType: string, filename: string): Response {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, "_");
  return new Response(content as Uint8Array<ArrayBuffer>, {
    headers: {
      "content-type": /^[\w.+-]+\/[\w.+-]+$/.test(contentType) ? contentType : "application/octet-stream",
      "content-disposition": `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`,
      "x-content-type-options": "nosniff",
      "content-security-policy": "sandbox; default-src 'none'",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
    },
  });
}

export const originalPages = {
  async frame(c: PageContext): Promise<Response> {
    const raw = await rawMessage(c.svc, c.session.accountId, c.params.id ?? "");
    const parsed = await parseInbound(raw);
    const remoteImages = c.url.searchParams.get("images") === "1";
    if (parsed.html !== null) return frameResponse(parsed.html.replace(META_HTTP_EQUIV, ""), remoteImages);
    const text = parsed.text ?? "";
    const page = html`<!doctype html><meta charset="utf-8"><p style="font: 13px system-ui; color: #555">This message has no HTML part; its text part follows.</p><pre style="white-space: pre-wrap">${text}</pre>`;
    return frameResponse(page.value, false);
  },

  async raw(c: PageContext): Promise<Response> {
    const id = c.params.id ?? "";
    const raw = await rawMessage(c.svc, c.session.accountId, id);
    return download(raw, "message/rfc822", `${id}.eml`);
  },

  async attachment(c: PageContext): Promise<Response> {
    const principal = await dashboardPrincipal(c.svc.sql, c.session);
    const attachment = await getAttachment(c.svc, principal, c.params.id ?? "", c.params.attachment ?? "");
    return download(attachment.content, attachment.content_type, attachment.filename ?? "attachment");
  },
};
