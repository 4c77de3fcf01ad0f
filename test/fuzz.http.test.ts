// Fuzzes every operation the OpenAPI document lists, over real HTTP: generated requests must never
// get a 500 or hang, and every answer must be a status the document lists for the operation with
// the body its schema describes. Ids of another account must get the one 404 an unknown id gets.
// Fast profile here; `npm run fuzz` for the long one (see test/fuzz/settings.ts to replay a seed).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import fc from "fast-check";
import { makeContractChecker, send } from "./fuzz/contract.ts";
import { encodeSegment } from "./fuzz/hostile.ts";
import { type Operation, operationsOf, requestsFor } from "./fuzz/openapi-requests.ts";
import { check, reportStats, resetStats, runs, stats } from "./fuzz/settings.ts";
import { makeWorld, type World } from "./fuzz/world.ts";

let world: World;
let doc: Record<string, any>;
let operations: Operation[];
let problems: ReturnType<typeof makeContractChecker>;

beforeAll(async () => {
  resetStats();
  world = await makeWorld();
  doc = await (await fetch(`${world.base}/openapi.json`)).json();
  operations = operationsOf(doc);
  problems = makeContractChecker(doc);
}, 60_000);

afterAll(async () => {
  reportStats("fuzz.http");
  await world?.close();
});

describe("every operation of /openapi.json", () => {
  test("the document lists operations to fuzz, each with its responses", () => {
    expect(operations.length).toBeGreaterThanOrEqual(15);
    for (const operation of operations) expect(Object.keys(operation.op.responses ?? {}).length).toBeGreaterThan(0);
  });

  test("generated requests: no 5xx, no hang, documented status and body", async () => {
    // One property over all operations, so operations added to the document are fuzzed as well.
    const perOperation = runs(25, 600);
    const byKey = new Map(operations.map((operation) => [`${operation.method} ${operation.path}`, operation]));
    const requests = fc.oneof(
      ...[...byKey].map(([key, operation]) => requestsFor(doc, operation, world).map((request) => ({ key, request }))),
    );
    await check(
      "openapi requests",
      fc.asyncProperty(requests, async ({ key, request }) => {
        const operation = byKey.get(key)!;
        stats.requests++;
        const answer = await send(world.base, request);
        const found = problems(operation, answer, request);
        if (found.length) {
          throw new Error(
            `${request.note}\n${request.method} ${request.target.slice(0, 300)}\nheaders ${JSON.stringify(request.headers).slice(0, 300)}\nbody ${String(request.body).slice(0, 300)}\n→ ${answer.status} ${answer.text.slice(0, 300)}\n${found.join("\n")}`,
          );
        }
      }),
      perOperation * operations.length,
    );
  }, 600_000);
});

describe("findings of the fuzzer, kept as fixed cases", () => {
  const operation = (key: string) => operations.find((candidate) => `${candidate.method} ${candidate.path}` === key)!;

  test("a message not screened yet (spam_risk and virus_risk null) matches the documented schema", async () => {
    const request = {
      method: "GET",
      target: `/api/v1/messages/${world.ids.message[0]}`,
      headers: { authorization: `Bearer ${world.keys.owner}` },
      note: "",
    };
    const answer = await send(world.base, request);
    expect(JSON.parse(answer.text)).toMatchObject({ spam_risk: null, virus_risk: null });
    expect(problems(operation("GET /api/v1/messages/{id}"), answer, request)).toEqual([]);
  });

  test("a body sent to a route that takes none gets a documented 400", async () => {
    for (const key of ["POST /api/v1/drafts/{id}/send", "POST /api/v1/domains/{id}/verify", "DELETE /api/v1/drafts/{id}"]) {
      const target = operation(key).path.replace(/\{[^}]+\}/g, "zz_unknown");
      const request = {
        method: key.split(" ")[0]!,
        target,
        headers: { authorization: `Bearer ${world.keys.owner}`, "content-type": "application/json" },
        body: "{",
        note: "",
      };
      const answer = await send(world.base, request);
      expect(answer.status).toBe(400);
      expect(problems(operation(key), answer, request)).toEqual([]);
    }
  });
});

/** One HTTP/1.1 request written byte for byte, for targets no URL parser would let through. */
function rawRequest(port: number, head: Buffer): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => (socket.destroy(), reject(new Error("no answer within 10 s"))), 10_000);
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("latin1");
      resolve({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
    socket.write(head);
  });
}

describe("raw request targets (bytes a URL parser would never send)", () => {
  test("NUL, 8-bit and control bytes in the path or query: the app never answers 5xx", async () => {
    const port = Number(new URL(world.base).port);
    // Not the routes that hold the connection open by design (the stream, the long poll): with a
    // valid target they answer at once but never end, and this reads each answer to its end.
    const holding = new Set(["/api/v1/events/stream", "/api/v1/messages/wait"]);
    const withIds = operations.filter((operation) => operation.method === "GET" && !holding.has(operation.path));
    const bytes = fc
      .uint8Array({ minLength: 1, maxLength: 40 })
      .map((array) => Buffer.from(array.filter((byte) => byte !== 0x20 && byte !== 0x0a && byte !== 0x0d)));
    await check(
      "raw targets",
      fc.asyncProperty(fc.constantFrom(...withIds), bytes, fc.boolean(), async (operation, junk, inQuery) => {
        stats.requests++;
        const path = operation.path.replace(/\{[^}]+\}/g, "x");
        const target = inQuery
          ? Buffer.concat([Buffer.from(`${path}?mailbox_id=`), junk])
          : Buffer.concat([Buffer.from(path.replace(/x$/, "")), junk]);
        const head = Buffer.concat([
          Buffer.from("GET "),
          target,
          Buffer.from(` HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${world.keys.owner}\r\nConnection: close\r\n\r\n`),
        ]);
        const answer = await rawRequest(port, head);
        // The app stamps every answer with x-request-id; without it, Bun's HTTP parser refused the
        // request line itself (a bare 400 or 505) before the app saw it: a transport matter.
        const fromApp = /\r\nx-request-id: /i.test(answer.text);
        const ok = fromApp
          ? answer.status >= 200 && answer.status < 500 && /\r\ncontent-type: application\/json/i.test(answer.text)
          : answer.status >= 400;
        expect({ target: target.toString("latin1"), ok, answer: answer.text.slice(0, 300) }).toMatchObject({
          target: target.toString("latin1"),
          ok: true,
        });
      }),
      runs(30, 500),
    );
  }, 600_000);
});

describe("anti-enumeration under fuzzing", () => {
  test("another account's id gets exactly the answer of an id that exists nowhere", async () => {
    // Path parameters that are ids (a consumer's {name} is the caller's own word, not an id).
    const withIds = operations.filter((operation) => /\{(id|[a-z_]+_id)\}/.test(operation.path));
    expect(withIds.length).toBeGreaterThan(0);
    const cases = fc.record({
      operation: fc.constantFrom(...withIds),
      foreign: fc.constantFrom(...world.ids.strangers),
      unknown: fc.stringMatching(/^[a-z]{3}_[0-9a-z]{24}$/),
    });
    await check(
      "cross-account ids",
      fc.asyncProperty(cases, async ({ operation, foreign, unknown }) => {
        const target = (id: string) => operation.path.replace(/\{[^}]+\}/g, encodeSegment(id));
        const request = (id: string) => ({
          method: operation.method,
          target: target(id),
          headers: { authorization: `Bearer ${world.keys.owner}` },
          note: "",
        });
        stats.requests += 2;
        const [theirs, nobody] = [await send(world.base, request(foreign)), await send(world.base, request(unknown))];
        expect({ status: theirs.status, text: theirs.text }).toEqual({ status: nobody.status, text: nobody.text });
        // An operation that requires a body answers its 400 first, the same for both ids.
        if (!operation.op.requestBody?.required) expect(theirs.status).toBe(404);
      }),
      runs(30, 400),
    );
  }, 600_000);
});
