// Cross-site request forgery defences for every dashboard POST: the form's token must equal the
// one bound to the session (compared in constant time), and an Origin header, when the browser
// sends one, must be ours. SameSite=Strict cookies are a third layer, not the only one.
import type { Config } from "../config.ts";
import { constantTimeEqual } from "../secrets.ts";

export function tokenMatches(submitted: string | null, expected: string): boolean {
  if (!submitted || submitted.length > 200) return false;
  return constantTimeEqual(submitted, expected);
}

/** False when the request says it came from another site (Sec-Fetch-Site or Origin). */
export function sameOrigin(request: Request, config: Config): boolean {
  const fetchSite = request.headers.get("sec-fetch-site");
  if (fetchSite === "cross-site" || fetchSite === "same-site") return false;
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  // Our Referrer-Policy (no-referrer) makes Chromium send `Origin: null` on our own forms; it
  // is accepted only where the browser itself vouches that the request is same-origin.
  if (origin === "null") return fetchSite === "same-origin";
  const allowed = new Set([new URL(request.url).origin, new URL(config.publicBaseUrl).origin]);
  return allowed.has(origin);
}
