// Answers at the edges of HTTP, over a real socket: a Host of three characters or fewer still
// reaches its route, an API path with a trailing slash is 404 (not the route without it), and the
// answers Bun gives itself before the app sees a request (431, 413 past the backstop, 400 for a
// malformed request) are what docs/api.md says they are.
import { afterAll, beforeAll, expect, test } from "bun:test";
import net from "node:net";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { type Fixture, makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";

let ctx: TestContext;
let server: HttpServer;
let account: Fixture;
let mailboxId: string;

beforeAll(async () => {
  ctx = await makeTestContext({ HTTP_PORT: "0" });
  server = startHttpServer(ctx.svc, ctx.app);
  account = await makeAccount(ctx);
  mailboxId = (await makeMailbox(ctx, account, "edges")).id;
});
afterAll(async () => {
  await server.stop();
  await ctx.close();
});

/** One request written by hand; the whole answer as text. */
function raw(text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(server.port, "127.0.0.1");
    let out = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (out += chunk));
    socket.on("close", () => resolve(out));
    socket.on("error", () => resolve(out));
    socket.write(text);
  });
}

const status = (answer: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
const body = (answer: string) => answer.slice(answer.indexOf("\r\n\r\n") + 4);

test("a Host of one to three characters reaches its route", async () => {
  for (const host of ["a", "ab", "api"]) {
    const answer = await raw(
      `GET /api/v1/mailboxes HTTP/1.1\r\nhost: ${host}\r\nauthorization: Bearer ${account.key}\r\nconnection: close\r\n\r\n`,
    );
    expect({ host, status: status(answer) }).toEqual({ host, status: 200 });
    expect(JSON.parse(body(answer)).mailboxes.map((m: { id: string }) => m.id)).toEqual([mailboxId]);
  }
  const health = await raw("GET /healthz HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
  expect(status(health)).toBe(200);
});

test("an API path with a trailing slash is 404, not the route without it", async () => {
  const slashed = await ctx.request("GET", `/api/v1/messages/?mailbox_id=${mailboxId}`, { key: account.key });
  expect(slashed.status).toBe(404);
  expect(slashed.body).toEqual({ error: "not found" });
  expect((await ctx.request("GET", `/api/v1/messages?mailbox_id=${mailboxId}`, { key: account.key })).status).toBe(200);
});

test("what Bun answers itself, before the app: 431, 413 past the backstop, 400 (no body to shape)", async () => {
  const longUrl = await raw(`GET /api/v1/mailboxes?x=${"a".repeat(20_000)} HTTP/1.1\r\nhost: localhost\r\nconnection: close\r\n\r\n`);
  expect(status(longUrl)).toBe(431);
  const huge = await raw("POST /api/v1/mailboxes HTTP/1.1\r\nhost: localhost\r\ncontent-length: 99999999999\r\nconnection: close\r\n\r\n");
  expect(status(huge)).toBe(413);
  const malformed = await raw("GARBAGE\r\n\r\n");
  expect(status(malformed)).toBe(400);
  // Under the backstop, the app answers the declared size itself, as JSON.
  const declared = await raw(
    `POST /api/v1/mailboxes HTTP/1.1\r\nhost: localhost\r\nauthorization: Bearer ${account.key}\r\ncontent-type: application/json\r\n` +
      `content-length: ${ctx.config.maxRequestBytes + 1}\r\nconnection: close\r\n\r\n`,
  );
  expect(status(declared)).toBe(413);
  expect(JSON.parse(body(declared))).toEqual({ error: "request body too large" });
});
