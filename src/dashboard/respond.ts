// Every dashboard response goes out through here, so each one carries the security headers:
// a CSP that allows only our own stylesheet and forms (no scripts, no framing), nosniff, no
// referrer, and no caching (pages show secrets once, and lists that change under the user).
import type { Html } from "./html.ts";

const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": "default-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
  "cache-control": "no-store",
};

export function withSecurityHeaders(headers: Record<string, string> = {}): Headers {
  const out = new Headers(SECURITY_HEADERS);
  for (const [name, value] of Object.entries(headers)) out.set(name, value);
  return out;
}

export function htmlResponse(body: Html, status = 200, cookies: string[] = []): Response {
  const headers = withSecurityHeaders({ "content-type": "text/html; charset=utf-8" });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(body.value, { status, headers });
}

/** 303: after a POST the browser follows with a GET, so a reload never repeats the action. */
export function redirect(location: string, cookies: string[] = []): Response {
  const headers = withSecurityHeaders({ location });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}
