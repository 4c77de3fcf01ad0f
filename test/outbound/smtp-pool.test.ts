// Reused sessions to the relay (src/delivery/smtp-pool.ts) against a real smtp-server over
// loopback: one session carries message after message, a failed transaction's session is not
// reused, a session the server dropped while idle is replaced without losing or doubling a message,
// and concurrent sends each get their own session. Direct MX delivery keeps a pool per server.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { SMTPServer } from "smtp-server";
import { makeMxTransport } from "../../src/delivery/mx.ts";
import { makeSmtpRelayTransport } from "../../src/delivery/smtp-relay.ts";

let server: SMTPServer;
let port = 0;
let connections = 0;
let received: string[] = [];
let rejectRcpt = false;

beforeAll(async () => {
  server = new SMTPServer({
    logger: false,
    authOptional: true,
    disabledCommands: ["AUTH", "STARTTLS"],
    disableReverseLookup: true,
    greetingDelay: 0,
    onConnect(_session, cb) {
      connections++;
      cb();
    },
    onRcptTo(_address, _session, cb) {
      if (rejectRcpt) return cb(Object.assign(new Error("No such user here"), { responseCode: 550 }));
      cb();
    },
    onData(stream, _session, cb) {
      const chunks: Buffer[] = [];
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () => {
        received.push(Buffer.concat(chunks).toString("latin1"));
        cb(null, `2.0.0 Ok: queued as Q${received.length}`);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  port = (server.server.address() as { port: number }).port;
});

afterEach(() => {
  connections = 0;
  received = [];
  rejectRcpt = false;
});

afterAll(
  () =>
    new Promise<void>((resolve) => {
      for (const c of (server as unknown as { connections: Set<{ _socket: { destroy(): void } }> }).connections) c._socket.destroy();
      server.close(() => resolve());
    }),
);

const envelope = { from: "agent@agents.example", to: "reader@example.org" };
const raw = (n: number) => new TextEncoder().encode(`Subject: pooled ${n}\r\nMessage-ID: <p${n}@agents.example>\r\n\r\nbody ${n}\r\n`);
const meta = (n: number) => ({ messageId: `p${n}@agents.example` });
const transport = () =>
  makeSmtpRelayTransport(`smtp://127.0.0.1:${port}?tls=opportunistic`, { ehloName: "mx.agents.example", timeoutMs: 2000 });

test("one session carries message after message", async () => {
  const relay = transport();
  for (let n = 1; n <= 5; n++) {
    const outcome = await relay.deliver(envelope, raw(n), meta(n));
    expect(outcome).toMatchObject({ kind: "sent", providerMessageId: `Q${n}` });
  }
  expect(connections).toBe(1);
  expect(received.map((m) => /Subject: (.*)\r\n/.exec(m)![1])).toEqual(["pooled 1", "pooled 2", "pooled 3", "pooled 4", "pooled 5"]);
  await relay.close!();
});

test("concurrent sends use a session each, then keep them for the next round", async () => {
  const relay = transport();
  await Promise.all([1, 2, 3].map((n) => relay.deliver(envelope, raw(n), meta(n))));
  expect(connections).toBe(3);
  const second = await Promise.all([4, 5, 6].map((n) => relay.deliver(envelope, raw(n), meta(n))));
  expect(second.map((o) => o.kind)).toEqual(["sent", "sent", "sent"]);
  expect(connections).toBe(3);
  expect(received).toHaveLength(6);
  await relay.close!();
});

test("after a refused transaction the session is closed, not reused", async () => {
  const relay = transport();
  rejectRcpt = true;
  expect(await relay.deliver(envelope, raw(1), meta(1))).toMatchObject({ kind: "permanent", responseCode: 550 });
  rejectRcpt = false;
  expect((await relay.deliver(envelope, raw(2), meta(2))).kind).toBe("sent");
  expect(connections).toBe(2);
  await relay.close!();
});

test("a session the server dropped while idle is replaced: the message goes out once", async () => {
  const relay = transport();
  expect((await relay.deliver(envelope, raw(1), meta(1))).kind).toBe("sent");
  // The server ends every session, as a relay does at its idle timeout.
  for (const c of (server as unknown as { connections: Set<{ _socket: { destroy(): void } }> }).connections) c._socket.destroy();
  await Bun.sleep(50);
  expect((await relay.deliver(envelope, raw(2), meta(2))).kind).toBe("sent");
  expect(connections).toBe(2);
  expect(received).toHaveLength(2);
  await relay.close!();
});

describe("direct MX delivery", () => {
  // Two domains whose MX records name the same server, and a third with a server of its own.
  const records: Record<string, string[] | { exchange: string; priority: number }[]> = {
    "example.org MX": [{ exchange: "mx.shared.example", priority: 10 }],
    "example.net MX": [{ exchange: "mx.shared.example", priority: 10 }],
    "example.com MX": [{ exchange: "mx.other.example", priority: 10 }],
    "mx.shared.example A": ["127.0.0.1"],
    // The same address under another name: a session is reused only for the name it was opened for (TLS SNI).
    "mx.other.example A": ["127.0.0.1"],
  };
  const resolve = async (name: string, rrtype: string) => {
    const found = records[`${name} ${rrtype}`];
    if (found) return found;
    throw Object.assign(new Error("no data"), { code: "ENODATA" });
  };
  const mx = () => makeMxTransport({ resolve, port, ehloName: "mx.agents.example", timeoutMs: 2000, allowPrivateNetworks: true });

  test("messages to one mail server share a session; another server gets its own", async () => {
    const transport = mx();
    for (const [n, to] of [
      [1, "a@example.org"],
      [2, "b@example.net"],
      [3, "c@example.org"],
    ] as const) {
      expect((await transport.deliver({ ...envelope, to }, raw(n), meta(n))).kind).toBe("sent");
    }
    expect(connections).toBe(1);
    expect((await transport.deliver({ ...envelope, to: "d@example.com" }, raw(4), meta(4))).kind).toBe("sent");
    expect(connections).toBe(2);
    expect(received).toHaveLength(4);
    await transport.close!();
  });

  test("a refused recipient closes that session; the next message opens a new one and goes out once", async () => {
    const transport = mx();
    rejectRcpt = true;
    expect((await transport.deliver({ ...envelope, to: "a@example.org" }, raw(1), meta(1))).kind).toBe("permanent");
    rejectRcpt = false;
    expect((await transport.deliver({ ...envelope, to: "a@example.org" }, raw(2), meta(2))).kind).toBe("sent");
    expect(connections).toBe(2);
    expect(received).toHaveLength(1);
    await transport.close!();
  });
});
