// The dashboard's cookies: HttpOnly, SameSite=Strict, scoped to /dashboard, and Secure whenever
// the request or the service's public URL is https.
import type { Config } from "../config.ts";

export const SESSION_COOKIE = "dashboard_session";
export const LOGIN_COOKIE = "dashboard_login";

export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  for (const part of header.split(";")) {
    const index = part.indexOf("=");
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) {
      const value = part.slice(index + 1).trim();
      // Our values are base64url; anything else was not set by us.
      return /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : null;
    }
  }
  return null;
}

function isSecure(request: Request, config: Config): boolean {
  return new URL(request.url).protocol === "https:" || config.publicBaseUrl.startsWith("https:");
}

export function setCookie(request: Request, config: Config, name: string, value: string, maxAgeSeconds: number): string {
  const attributes = [`${name}=${value}`, "Path=/dashboard", "HttpOnly", "SameSite=Strict", `Max-Age=${maxAgeSeconds}`];
  if (isSecure(request, config)) attributes.push("Secure");
  return attributes.join("; ");
}

export function clearCookie(request: Request, config: Config, name: string): string {
  return setCookie(request, config, name, "", 0);
}
