import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import net from "node:net";
import { makeMxTransport } from "../../src/delivery/mx.ts";
import { makeSmtpRelayTransport, parseRelayUrl } from "../../src/delivery/smtp-relay.ts";
import { queueIdOf } from "../../src/delivery/smtp-session.ts";
import { composeMessage } from "../../src/mail/compose.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";

const EHLO = "mail.test.example";
const envelope = { from: "agent-x@mail.test.example", to: "bob@mx-test.example" };
const meta = { messageId: "msg_1@mail.test.example" };
let raw: Uint8Array;

beforeAll(async () => {
  raw = await composeMessage({
    from: envelope.from,
    to: envelope.to,
    subject: "Transport test",
    // A line starting with a dot must survive SMTP dot-stuffing.
    text: "Hello Bob,\n.this line starts with a dot\n.\nbye\n",
    messageId: meta.messageId,
  });
});

const relay = (sink: { port: number }, query = "", timeoutMs = 2000) =>
  makeSmtpRelayTransport(`smtp://127.0.0.1:${sink.port}${query}`, { ehloName: EHLO, timeoutMs });

/** A port nothing listens on: bind, note the port, close. */
async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * A TCP server speaking just enough SMTP for the cases smtp-server cannot play:
 * - no-greeting: accepts the connection and never says a word
 * - silent-after-data: takes the whole message, then never answers it
 * - broken-starttls: offers STARTTLS, answers 220, then answers the handshake in plain text;
 *   without STARTTLS it accepts messages normally
 */
async function scriptedServer(behaviour: "no-greeting" | "silent-after-data" | "broken-starttls") {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    if (behaviour === "no-greeting") return;
    socket.write("220 scripted ESMTP\r\n");
    let inData = false;
    let inTls = false;
    let buffer = "";
    socket.on("data", (chunk) => {
      if (inTls) {
        // Answers the TLS ClientHello with plain text: the handshake fails at once.
        socket.end("this is not TLS\r\n");
        return;
      }
      buffer += chunk.toString("latin1");
      if (inData) {
        const end = buffer.indexOf("\r\n.\r\n");
        if (end < 0) return;
        inData = false;
        buffer = buffer.slice(end + 5);
        if (behaviour === "silent-after-data") return;
        accepted++;
        socket.write(`250 ok queued as SCRIPTED${accepted}\r\n`);
      }
      let nl: number;
      while ((nl = buffer.indexOf("\r\n")) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 2);
        if (/^EHLO/i.test(line)) {
          socket.write(behaviour === "broken-starttls" ? "250-scripted\r\n250 STARTTLS\r\n" : "250 scripted\r\n");
        } else if (/^STARTTLS/i.test(line)) {
          inTls = true;
          socket.write("220 ready\r\n");
          return;
        } else if (/^DATA/i.test(line)) {
          inData = true;
          socket.write("354 go ahead\r\n");
          return;
        } else if (/^QUIT/i.test(line)) socket.end("221 bye\r\n");
        else socket.write("250 ok\r\n");
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return {
    port: (server.address() as net.AddressInfo).port,
    accepted: () => accepted,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

describe("SMTP relay transport against a local sink", () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  afterAll(() => sink.close());
  beforeEach(() => {
    sink.mode = "accept";
    sink.messages.length = 0;
  });

  test("accept → sent, with the queue id from the 250 reply", async () => {
    const outcome = await relay(sink).deliver(envelope, raw, meta);
    expect(outcome.kind).toBe("sent");
    if (outcome.kind !== "sent") return;
    const msg = sink.messages[0]!;
    expect(outcome.providerMessageId).toBe(msg.queueId);
    expect(outcome.response).toContain(`queued as ${msg.queueId}`);
    expect(msg.from).toBe(envelope.from);
    expect(msg.to).toEqual([envelope.to]);
    expect(msg.raw.toString().trimEnd()).toBe(Buffer.from(raw).toString().trimEnd());
  });

  test("550 after DATA → permanent", async () => {
    sink.mode = "reject550";
    const outcome = await relay(sink).deliver(envelope, raw, meta);
    expect(outcome).toMatchObject({ kind: "permanent", responseCode: 550 });
    expect(sink.messages).toHaveLength(0);
  });

  test("451 after DATA → transient", async () => {
    sink.mode = "defer451";
    const outcome = await relay(sink).deliver(envelope, raw, meta);
    expect(outcome).toMatchObject({ kind: "transient", responseCode: 451 });
  });

  test("550 at RCPT → permanent", async () => {
    sink.mode = "reject-rcpt-550";
    const outcome = await relay(sink).deliver(envelope, raw, meta);
    expect(outcome).toMatchObject({ kind: "permanent", responseCode: 550 });
    if (outcome.kind === "permanent") expect(outcome.error).toContain("rcpt");
  });

  test("451 at RCPT → transient", async () => {
    sink.mode = "defer-rcpt-451";
    const outcome = await relay(sink).deliver(envelope, raw, meta);
    expect(outcome).toMatchObject({ kind: "transient", responseCode: 451 });
  });

  test("connection dropped after the data, before the reply → unknown", async () => {
    sink.mode = "drop-after-data";
    const outcome = await relay(sink).deliver(envelope, raw, meta);
    expect(outcome.kind).toBe("unknown");
    // The ambiguity is real: the server did receive the whole message.
    expect(sink.messages).toHaveLength(1);
  });

  test("the final-dot mark is asked for once the server took DATA; a slow one still delivers the message once", async () => {
    let asked = 0;
    const slowMark = async () => {
      asked++;
      // The envelope was answered (DATA 354): nothing of the message has reached the sink yet,
      // nor while the mark is being written: a final dot sent before it commits would let the
      // sink take the message during this sleep.
      expect(sink.messages).toHaveLength(0);
      await Bun.sleep(50);
      expect(sink.messages).toHaveLength(0);
    };
    const outcome = await relay(sink).deliver(envelope, raw, { ...meta, beforeFinalDot: slowMark });
    expect(outcome).toMatchObject({ kind: "sent", stage: "final" });
    expect(asked).toBe(1);
    expect(sink.messages).toHaveLength(1);
    expect(sink.messages[0]!.raw.toString().trimEnd()).toBe(Buffer.from(raw).toString().trimEnd());
  });

  test("a final-dot mark that throws at once is refused like one that rejects", async () => {
    const t = relay(sink);
    const throwsAtOnce = (() => {
      throw new Error("no database connection");
    }) as unknown as () => Promise<void>;
    const outcome = await t.deliver(envelope, raw, { ...meta, beforeFinalDot: throwsAtOnce });
    expect(outcome).toMatchObject({ kind: "transient", stage: "content" });
    await Bun.sleep(50);
    expect(sink.messages).toHaveLength(0);
  });

  test("a refused final-dot mark sends no dot: transient at the content stage, nothing at the sink, the next send goes out", async () => {
    const t = relay(sink);
    const refused = async () => {
      throw new Error("the delivery was taken over by reconciliation");
    };
    const outcome = await t.deliver(envelope, raw, { ...meta, beforeFinalDot: refused });
    expect(outcome).toMatchObject({ kind: "transient", stage: "content" });
    await Bun.sleep(50);
    expect(sink.messages).toHaveLength(0);
    expect((await t.deliver(envelope, raw, meta)).kind).toBe("sent");
    expect(sink.messages).toHaveLength(1);
  });

  test("the same transport keeps working across sends", async () => {
    const t = relay(sink);
    expect((await t.deliver(envelope, raw, meta)).kind).toBe("sent");
    sink.mode = "defer451";
    expect((await t.deliver(envelope, raw, meta)).kind).toBe("transient");
    sink.mode = "accept";
    expect((await t.deliver(envelope, raw, meta)).kind).toBe("sent");
    expect(sink.messages).toHaveLength(2);
  });
});

describe("SMTP relay transport against broken servers", () => {
  test("connection refused → transient", async () => {
    const outcome = await relay({ port: await closedPort() }).deliver(envelope, raw, meta);
    expect(outcome.kind).toBe("transient");
  });

  test("a server that never greets → transient within the timeout", async () => {
    const server = await scriptedServer("no-greeting");
    try {
      const started = Date.now();
      const outcome = await relay(server, "", 500).deliver(envelope, raw, meta);
      expect(outcome.kind).toBe("transient");
      expect(Date.now() - started).toBeLessThan(10_000); // not nodemailer's 30 s greeting timeout
    } finally {
      await server.close();
    }
  });

  test("a server that goes silent after the data → unknown within the timeout", async () => {
    const server = await scriptedServer("silent-after-data");
    try {
      const started = Date.now();
      const outcome = await relay(server, "", 500).deliver(envelope, raw, meta);
      expect(outcome.kind).toBe("unknown");
      expect(Date.now() - started).toBeLessThan(10_000); // not nodemailer's 10 min socket timeout
    } finally {
      await server.close();
    }
  });
});

describe("SMTP relay transport: AUTH and STARTTLS", () => {
  test("logs in with the URL credentials", async () => {
    const sink = await startSmtpSink({ auth: { user: "relay user", pass: "p@ss:word" } });
    try {
      const url = `smtp://relay%20user:p%40ss%3Aword@127.0.0.1:${sink.port}?tls=opportunistic`;
      const outcome = await makeSmtpRelayTransport(url, { ehloName: EHLO, timeoutMs: 2000 }).deliver(envelope, raw, meta);
      expect(outcome.kind).toBe("sent");
      expect(sink.messages[0]?.user).toBe("relay user");
    } finally {
      await sink.close();
    }
  });

  test("wrong credentials → permanent 535", async () => {
    const sink = await startSmtpSink({ auth: { user: "u", pass: "right" } });
    try {
      const url = `smtp://u:wrong@127.0.0.1:${sink.port}?tls=opportunistic`;
      const outcome = await makeSmtpRelayTransport(url, { ehloName: EHLO, timeoutMs: 2000 }).deliver(envelope, raw, meta);
      expect(outcome).toMatchObject({ kind: "permanent", responseCode: 535 });
    } finally {
      await sink.close();
    }
  });

  test("with credentials, a server without STARTTLS never sees the password", async () => {
    const sink = await startSmtpSink({ auth: { user: "u", pass: "secret" } });
    try {
      const url = `smtp://u:secret@127.0.0.1:${sink.port}`;
      const outcome = await makeSmtpRelayTransport(url, { ehloName: EHLO, timeoutMs: 2000 }).deliver(envelope, raw, meta);
      expect(outcome.kind).not.toBe("sent");
      if (outcome.kind !== "sent") expect(outcome.error).toContain("starttls");
      expect(sink.messages).toHaveLength(0);
    } finally {
      await sink.close();
    }
  });

  test("upgrades with STARTTLS; a self-signed certificate needs rejectUnauthorized=false", async () => {
    const sink = await startSmtpSink({ starttls: true });
    try {
      const ok = await relay(sink, "?tls=required&rejectUnauthorized=false").deliver(envelope, raw, meta);
      expect(ok.kind).toBe("sent");
      expect(sink.messages[0]?.tls).toBe(true);

      const refused = await relay(sink, "?tls=required").deliver(envelope, raw, meta);
      expect(refused.kind).toBe("transient");
      if (refused.kind === "transient") expect(refused.error).toContain("starttls");
      expect(sink.messages).toHaveLength(1);
    } finally {
      await sink.close();
    }
  });
});

test("smtps: implicit TLS from the first byte", async () => {
  const sink = await startSmtpSink({ secure: true, auth: { user: "u", pass: "p" } });
  try {
    const url = `smtps://u:p@127.0.0.1:${sink.port}?rejectUnauthorized=false`;
    const outcome = await makeSmtpRelayTransport(url, { ehloName: EHLO, timeoutMs: 2000 }).deliver(envelope, raw, meta);
    expect(outcome.kind).toBe("sent");
    expect(sink.messages[0]).toMatchObject({ tls: true, user: "u" });
  } finally {
    await sink.close();
  }
});

describe("relay URL parsing", () => {
  test("smtp and smtps, ports, credentials and options", () => {
    expect(parseRelayUrl("smtp://a.example")).toEqual({
      host: "a.example",
      port: 587,
      secure: false,
      starttls: "opportunistic",
      rejectUnauthorized: true,
      auth: null,
    });
    expect(parseRelayUrl("smtps://u%40x:p%2Fw@a.example?rejectUnauthorized=false")).toMatchObject({
      port: 465,
      secure: true,
      rejectUnauthorized: false,
      auth: { user: "u@x", pass: "p/w" },
    });
    expect(parseRelayUrl("smtp://[::1]:2525?tls=required")).toMatchObject({ host: "::1", port: 2525, starttls: "required" });
    // Credentials make STARTTLS required unless the URL says otherwise.
    expect(parseRelayUrl("smtp://u:p@a.example")).toMatchObject({ starttls: "required" });
    expect(parseRelayUrl("smtp://u:p@a.example?tls=opportunistic")).toMatchObject({ starttls: "opportunistic" });
  });

  test("refuses what it does not understand", () => {
    expect(() => parseRelayUrl("http://a.example")).toThrow(/smtp/);
    expect(() => parseRelayUrl("smtp://a.example?tls=maybe")).toThrow(/unknown option/);
    expect(() => parseRelayUrl("not a url")).toThrow(/valid URL/);
  });

  test("queue ids from common 250 replies", () => {
    expect(queueIdOf("250 2.0.0 Ok: queued as 4XyZ12ABC")).toBe("4XyZ12ABC");
    expect(queueIdOf("250 OK id=1rAbCd-000123-XY")).toBe("1rAbCd-000123-XY");
    expect(queueIdOf("250 2.0.0 OK 1700000000 abc.123 - gsmtp")).toBeNull();
  });
});

// The sink listens on loopback, so these run with private networks allowed (test/outbound/mx-refusal.test.ts covers the refusals).
describe("MX transport", () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    sink = await startSmtpSink({ starttls: true });
  });
  afterAll(() => sink.close());
  beforeEach(() => {
    sink.mode = "accept";
    sink.messages.length = 0;
  });

  const dnsError = (code: string) => Object.assign(new Error(code), { code });
  /** A resolver over a fixed zone, recording every question. */
  const zone = (records: Record<string, unknown>) => {
    const asked: string[] = [];
    const resolve = async (name: string, rrtype: string) => {
      asked.push(`${rrtype} ${name}`);
      const value = records[`${rrtype} ${name}`];
      if (value instanceof Error) throw value;
      if (value === undefined) throw dnsError(records[`* ${name}`] ? "ENODATA" : "ENOTFOUND");
      return value;
    };
    return { resolve, asked };
  };
  const mx = (resolve: (n: string, t: string) => Promise<any>, timeoutMs = 2000) =>
    makeMxTransport({ resolve, port: sink.port, ehloName: EHLO, timeoutMs, allowPrivateNetworks: true });

  test("delivers to the MX host, over opportunistic STARTTLS", async () => {
    const { resolve } = zone({
      "MX mx-test.example": [{ exchange: "mx1.mx-test.example", priority: 10 }],
      "A mx1.mx-test.example": ["127.0.0.1"],
    });
    const outcome = await mx(resolve).deliver(envelope, raw, meta);
    expect(outcome).toMatchObject({ kind: "sent", providerMessageId: sink.messages[0]!.queueId });
    expect(sink.messages[0]?.tls).toBe(true);
  });

  test("an MX that is an IP address is used as is", async () => {
    const { resolve } = zone({ "MX mx-test.example": [{ exchange: "127.0.0.1", priority: 10 }] });
    expect((await mx(resolve).deliver(envelope, raw, meta)).kind).toBe("sent");
  });

  test("moves to the next MX in priority order when a host cannot be reached", async () => {
    const { resolve, asked } = zone({
      "MX mx-test.example": [
        { exchange: "backup.mx-test.example", priority: 20 },
        { exchange: "primary.mx-test.example", priority: 5 },
      ],
      // Nothing listens on 127.0.0.2: the sink is bound to 127.0.0.1 only.
      "A primary.mx-test.example": ["127.0.0.2"],
      "A backup.mx-test.example": ["127.0.0.1"],
    });
    const outcome = await mx(resolve).deliver(envelope, raw, meta);
    expect(outcome.kind).toBe("sent");
    expect(asked.indexOf("A primary.mx-test.example")).toBeLessThan(asked.indexOf("A backup.mx-test.example"));
  });

  test("no MX record → the domain itself is the implicit MX", async () => {
    const { resolve, asked } = zone({ "* mx-test.example": true, "A mx-test.example": ["127.0.0.1"] });
    expect((await mx(resolve).deliver(envelope, raw, meta)).kind).toBe("sent");
    expect(asked).toContain("A mx-test.example");
  });

  test("no MX and no address → permanent", async () => {
    const { resolve } = zone({ "* mx-test.example": true });
    expect((await mx(resolve).deliver(envelope, raw, meta)).kind).toBe("permanent");
  });

  test("NXDOMAIN → permanent", async () => {
    const { resolve } = zone({});
    const outcome = await mx(resolve).deliver(envelope, raw, meta);
    expect(outcome.kind).toBe("permanent");
    if (outcome.kind === "permanent") expect(outcome.error).toContain("does not exist");
  });

  test("null MX → permanent", async () => {
    const { resolve } = zone({ "MX mx-test.example": [{ exchange: "", priority: 0 }] });
    const outcome = await mx(resolve).deliver(envelope, raw, meta);
    expect(outcome.kind).toBe("permanent");
  });

  test("DNS timeout → transient, from a resolver error or a resolver that never answers", async () => {
    const { resolve } = zone({ "MX mx-test.example": dnsError("ETIMEOUT") });
    expect((await mx(resolve).deliver(envelope, raw, meta)).kind).toBe("transient");

    const started = Date.now();
    const silent = () => new Promise<never>(() => {});
    expect((await mx(silent, 300).deliver(envelope, raw, meta)).kind).toBe("transient");
    expect(Date.now() - started).toBeLessThan(10_000); // a resolver that never answers is cut off
  });

  test("a permanent answer stops: the backup MX is not tried", async () => {
    sink.mode = "reject-rcpt-550";
    const { resolve, asked } = zone({
      "MX mx-test.example": [
        { exchange: "primary.mx-test.example", priority: 5 },
        { exchange: "backup.mx-test.example", priority: 20 },
      ],
      "A primary.mx-test.example": ["127.0.0.1"],
      "A backup.mx-test.example": ["127.0.0.1"],
    });
    expect((await mx(resolve).deliver(envelope, raw, meta)).kind).toBe("permanent");
    expect(asked).not.toContain("A backup.mx-test.example");
  });

  test("an unknown outcome stops: a possibly delivered message is never sent to another host", async () => {
    sink.mode = "drop-after-data";
    const { resolve, asked } = zone({
      "MX mx-test.example": [
        { exchange: "primary.mx-test.example", priority: 5 },
        { exchange: "backup.mx-test.example", priority: 20 },
      ],
      "A primary.mx-test.example": ["127.0.0.1"],
      "A backup.mx-test.example": ["127.0.0.1"],
    });
    expect((await mx(resolve).deliver(envelope, raw, meta)).kind).toBe("unknown");
    expect(asked).not.toContain("A backup.mx-test.example");
    expect(sink.messages).toHaveLength(1);
  });

  test("every host deferring → transient", async () => {
    sink.mode = "defer451";
    const { resolve } = zone({
      "MX mx-test.example": [
        { exchange: "primary.mx-test.example", priority: 5 },
        { exchange: "backup.mx-test.example", priority: 20 },
      ],
      "A primary.mx-test.example": ["127.0.0.1"],
      "A backup.mx-test.example": ["127.0.0.2"],
    });
    expect((await mx(resolve).deliver(envelope, raw, meta)).kind).toBe("transient");
  });

  test("a broken STARTTLS falls back to plain text on the same host", async () => {
    const server = await scriptedServer("broken-starttls");
    try {
      const resolve = async (name: string, rrtype: string) => {
        if (rrtype === "MX" && name === "mx-test.example") return [{ exchange: "127.0.0.1", priority: 10 }];
        throw dnsError("ENOTFOUND");
      };
      const t = makeMxTransport({ resolve, port: server.port, ehloName: EHLO, timeoutMs: 2000, allowPrivateNetworks: true });
      const outcome = await t.deliver(envelope, raw, meta);
      expect(outcome).toMatchObject({ kind: "sent", providerMessageId: "SCRIPTED1" });
      expect(server.accepted()).toBe(1);
    } finally {
      await server.close();
    }
  });
});
