// A cookie-keeping HTTP client for the dashboard that does not follow redirects (a browser minus
// the rendering), with sign-in and the CSRF token of a page at hand.
import { createUser } from "../../src/core/accounts/users.ts";
import type { TestContext } from "./context.ts";

/** The password of the users signUp() creates. */
export const DASHBOARD_PASSWORD = "correct horse battery staple";

export type Reply = { status: number; text: string; headers: Headers; bytes: Uint8Array };

export class DashboardClient {
  cookies = new Map<string, string>();
  constructor(readonly origin: string) {}

  async send(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}): Promise<Reply> {
    const all: Record<string, string> = { ...headers };
    if (this.cookies.size) all.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    let body: string | undefined;
    if (form) {
      body = new URLSearchParams(form).toString();
      all["content-type"] = "application/x-www-form-urlencoded";
      all.origin ??= this.origin;
    }
    const response = await fetch(`${this.origin}${path}`, { method, headers: all, body, redirect: "manual" });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const [name, value] = pair!.split("=") as [string, string];
      if (/Max-Age=0/.test(cookie)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { status: response.status, text: new TextDecoder().decode(bytes), headers: response.headers, bytes };
  }
  /** A multipart POST (a form with a file), as a browser sends it. */
  async multipart(path: string, form: FormData, headers: Record<string, string> = {}): Promise<Reply> {
    const all: Record<string, string> = { origin: this.origin, ...headers };
    if (this.cookies.size) all.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const response = await fetch(`${this.origin}${path}`, { method: "POST", headers: all, body: form, redirect: "manual" });
    const bytes = new Uint8Array(await response.arrayBuffer());
    return { status: response.status, text: new TextDecoder().decode(bytes), headers: response.headers, bytes };
  }

  get = (path: string) => this.send("GET", path);
  post = (path: string, form: Record<string, string>, headers?: Record<string, string>) => this.send("POST", path, form, headers);

  /** POST with the CSRF token of the page just read. */
  async act(pagePath: string, path: string, form: Record<string, string> = {}): Promise<Reply> {
    const page = await this.get(pagePath);
    return this.post(path, { csrf: hiddenField(page.text, "csrf"), ...form });
  }

  static async signIn(origin: string, email: string, password: string): Promise<DashboardClient> {
    const client = new DashboardClient(origin);
    const form = await client.get("/dashboard/login");
    const reply = await client.post("/dashboard/login", { login_token: hiddenField(form.text, "login_token"), email, password });
    if (reply.status !== 303) throw new Error(`sign-in failed: ${reply.status}`);
    return client;
  }
}

export function hiddenField(text: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(text);
  if (!match) throw new Error(`no ${name} field in page:\n${text.slice(0, 500)}`);
  return match[1]!;
}

/** Creates a dashboard user of the account and signs them in at origin (the started HTTP server). */
export async function signUp(
  ctx: TestContext,
  origin: string,
  accountId: string,
  email: string,
): Promise<{ id: string; client: DashboardClient }> {
  const { id } = await createUser(ctx.sql, { accountId, email, password: DASHBOARD_PASSWORD });
  return { id, client: await DashboardClient.signIn(origin, email, DASHBOARD_PASSWORD) };
}
