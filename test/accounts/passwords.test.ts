// Dashboard passwords: argon2id (hash-wasm) at the OWASP minimum (m=19456 KiB, t=2, p=1);
// PBKDF2 hashes from before still verify and are upgraded at the next successful sign-in.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { argon2id, argon2Verify } from "hash-wasm";
import { ARGON2, hashPassword, verifyPassword } from "../../src/core/accounts/passwords.ts";
import { createUser } from "../../src/core/accounts/users.ts";
import { makeCredentialCheck } from "../../src/dashboard/credentials.ts";
import { type HttpServer, startHttpServer } from "../../src/http/server.ts";
import { base64url, randomBytes } from "../../src/secrets.ts";
import { type Fixture, makeAccount, makeTestContext, type TestContext } from "../support/context.ts";

const PASSWORD = "correct horse battery staple";

/** A hash exactly as releases before argon2id stored it: PBKDF2-SHA256, 210,000 iterations, base64url. */
async function legacyHash(password: string, iterations = 210_000): Promise<string> {
  const salt = randomBytes(16);
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt: salt as Uint8Array<ArrayBuffer>, iterations },
    key,
    256,
  );
  return `pbkdf2$${iterations}$${base64url(salt)}$${base64url(new Uint8Array(bits))}`;
}

describe("hashPassword / verifyPassword", () => {
  test("argon2id with the OWASP parameters, in the PHC string format another argon2 reader accepts", async () => {
    const stored = await hashPassword(PASSWORD);
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    expect(ARGON2).toMatchObject({ memoryKiB: 19_456, iterations: 2, parallelism: 1 });
    expect(await argon2Verify({ password: PASSWORD, hash: stored })).toBe(true);
    expect(await argon2Verify({ password: `${PASSWORD}!`, hash: stored })).toBe(false);
    expect(await verifyPassword(PASSWORD, stored)).toEqual({ ok: true, needsRehash: false });
    expect(await verifyPassword(`${PASSWORD} `, stored)).toEqual({ ok: false, needsRehash: false });
    // A fresh salt each time.
    expect(await hashPassword(PASSWORD)).not.toBe(stored);
  });

  test("a hash written by another argon2id writer verifies", async () => {
    const salt = randomBytes(16);
    const foreign = await argon2id({
      password: PASSWORD,
      salt,
      parallelism: 1,
      iterations: 2,
      memorySize: 19_456,
      hashLength: 32,
      outputType: "encoded",
    });
    expect(await verifyPassword(PASSWORD, foreign)).toEqual({ ok: true, needsRehash: false });
  });

  test("a PBKDF2 hash from before verifies, and asks to be upgraded only when the password is right", async () => {
    const stored = await legacyHash(PASSWORD);
    expect(await verifyPassword(PASSWORD, stored)).toEqual({ ok: true, needsRehash: true });
    expect(await verifyPassword("not the password", stored)).toEqual({ ok: false, needsRehash: false });
  });

  test("an argon2id hash with weaker parameters verifies and asks to be upgraded", async () => {
    const weak = await argon2id({
      password: PASSWORD,
      salt: randomBytes(16),
      parallelism: 1,
      iterations: 1,
      memorySize: 4096,
      hashLength: 32,
      outputType: "encoded",
    });
    expect(await verifyPassword(PASSWORD, weak)).toEqual({ ok: true, needsRehash: true });
  });

  test("unknown formats and out-of-bounds parameters are false, after a full derivation", async () => {
    const huge = (await hashPassword(PASSWORD)).replace("m=19456", "m=4194304");
    for (const stored of [
      "",
      "plain text",
      "pbkdf2$0$x$y",
      "$argon2i$v=19$m=19456,t=2,p=1$c29tZXNhbHQ$aGFzaGhhc2hoYXNoaGFzaA",
      huge,
      "pbkdf2$99999999$c2FsdA$aGFzaA",
    ]) {
      const started = performance.now();
      expect({ stored, check: await verifyPassword(PASSWORD, stored) }).toEqual({ stored, check: { ok: false, needsRehash: false } });
      // One argon2id run at today's parameters, never an instant answer (and never gigabytes).
      expect(performance.now() - started).toBeGreaterThan(5);
    }
  });
});

describe("off the main thread", () => {
  test("four derivations at once leave the event loop free (hash-wasm alone held it ~580 ms)", async () => {
    await hashPassword(PASSWORD); // the worker is started
    let last = performance.now();
    let worst = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last);
      last = now;
    }, 1);
    const hashes = await Promise.all([1, 2, 3, 4].map((n) => hashPassword(`${PASSWORD} ${n}`)));
    clearInterval(timer);
    expect(new Set(hashes).size).toBe(4);
    expect(worst).toBeLessThan(100);
  });
});

describe("upgrade at sign-in", () => {
  let ctx: TestContext;
  let owner: Fixture;
  let server: HttpServer;
  beforeAll(async () => {
    ctx = await makeTestContext({ HTTP_PORT: "0" });
    owner = await makeAccount(ctx);
    server = startHttpServer(ctx.svc, ctx.app);
  });
  afterAll(async () => {
    await server?.stop();
    await ctx?.close();
  });

  const storedHash = async (email: string) =>
    (await ctx.sql`select password_hash from dashboard_users where email = ${email}`)[0]!.password_hash as string;

  test("a PBKDF2 user's wrong password changes nothing; the right one signs in and the row becomes argon2id", async () => {
    const email = "legacy@example.com";
    await createUser(ctx.sql, { accountId: owner.accountId, email, password: PASSWORD });
    const legacy = await legacyHash(PASSWORD);
    await ctx.sql`update dashboard_users set password_hash = ${legacy} where email = ${email}`;
    const check = makeCredentialCheck(ctx.sql);

    expect(await check(email, "wrong password here")).toBeNull();
    expect(await storedHash(email)).toBe(legacy);

    expect(await check(email, PASSWORD)).toMatchObject({ email, accountId: owner.accountId });
    const upgraded = await storedHash(email);
    expect(upgraded).toStartWith("$argon2id$v=19$m=19456,t=2,p=1$");
    expect(await argon2Verify({ password: PASSWORD, hash: upgraded })).toBe(true);

    // Next time: argon2id verifies, nothing is rewritten.
    expect(await check(email, PASSWORD)).toMatchObject({ email });
    expect(await storedHash(email)).toBe(upgraded);
  });

  test("through the dashboard's sign-in form over HTTP", async () => {
    const email = "legacy-http@example.com";
    await createUser(ctx.sql, { accountId: owner.accountId, email, password: PASSWORD });
    await ctx.sql`update dashboard_users set password_hash = ${await legacyHash(PASSWORD)} where email = ${email}`;
    const base = `http://127.0.0.1:${server.port}`;
    const page = await fetch(`${base}/dashboard/login`);
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const token = /name="login_token" value="([^"]*)"/.exec(await page.text())![1]!;
    const reply = await fetch(`${base}/dashboard/login`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie, origin: base },
      body: new URLSearchParams({ login_token: token, email, password: PASSWORD }).toString(),
    });
    expect(reply.status).toBe(303);
    expect(reply.headers.getSetCookie().some((c) => c.startsWith("dashboard_session="))).toBe(true);
    expect(await storedHash(email)).toStartWith("$argon2id$");
  });
});
