// Direct MX delivery refuses addresses a recipient domain must not make us connect to: loopback,
// private, link-local and cloud metadata, however the DNS spells them. The MX records come from a
// real DNS server on loopback; a tripwire listener counts any connection that got through.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import net from "node:net";
import { loadConfig } from "../../src/config.ts";
import { makeMxTransport } from "../../src/delivery/mx.ts";
import { composeMessage } from "../../src/mail/compose.ts";
import { makeResolver } from "../../src/mail/resolver.ts";
import { type DnsServer, startDnsServer } from "../support/dns-server.ts";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink.ts";

const EHLO = "mail.test.example";
const meta = { messageId: "msg_mx_refusal@mail.test.example" };
let raw: Uint8Array;
let dns: DnsServer;
let sink: SmtpSink;
let tripwire: net.Server;
let tripwirePort: number;
let connections = 0;

beforeAll(async () => {
  raw = await composeMessage({
    from: "agent-x@mail.test.example",
    to: "bob@loopback.test",
    subject: "Hi",
    text: "Hello",
    messageId: meta.messageId,
  });
  sink = await startSmtpSink();
  tripwire = net.createServer((socket) => {
    connections++;
    socket.end("554 tripwire: nothing should connect here\r\n");
  });
  await new Promise<void>((done) => tripwire.listen(0, "127.0.0.1", () => done()));
  tripwirePort = (tripwire.address() as net.AddressInfo).port;
  const mxTo = (host: string) => ({ MX: [{ exchange: host, priority: 10 }] });
  dns = await startDnsServer({
    "loopback.test": mxTo("mx.loopback.test"),
    "mx.loopback.test": { A: ["127.0.0.1"] },
    "private.test": mxTo("mx.private.test"),
    "mx.private.test": { A: ["10.0.0.25"] },
    "metadata.test": mxTo("mx.metadata.test"),
    "mx.metadata.test": { A: ["169.254.169.254"] },
    "metadata6.test": mxTo("mx.metadata6.test"),
    "mx.metadata6.test": { AAAA: ["fd00:ec2::254"] },
    "linklocal.test": mxTo("mx.linklocal.test"),
    "mx.linklocal.test": { AAAA: ["fe80::25"] },
    "mapped.test": mxTo("mx.mapped.test"),
    "mx.mapped.test": { AAAA: ["::ffff:7f00:1"] },
    "literal.test": mxTo("127.0.0.1"),
    // No MX: the domain itself is the mail host (RFC 5321 §5.1), and it is loopback.
    "implicit.test": { A: ["127.0.0.1"] },
    // A metadata primary and a loopback backup: with private networks allowed, only the backup is used.
    "backup.test": {
      MX: [
        { exchange: "mx.metadata.test", priority: 5 },
        { exchange: "mx.loopback.test", priority: 20 },
      ],
    },
  });
});

afterAll(async () => {
  await dns.close();
  await sink.close();
  await new Promise<void>((done) => tripwire.close(() => done()));
});

const transport = (allowPrivateNetworks: boolean, port = tripwirePort) =>
  makeMxTransport({
    resolve: makeResolver({ servers: [dns.address], timeoutMs: 1000 }),
    port,
    ehloName: EHLO,
    timeoutMs: 2000,
    allowPrivateNetworks,
  });
const to = (domain: string) => ({ from: "agent-x@mail.test.example", to: `bob@${domain}` });

describe("private networks not allowed (production)", () => {
  test.each([
    ["loopback.test", "mx.loopback.test: refused, 127.0.0.1 is a loopback address"],
    ["private.test", "mx.private.test: refused, 10.0.0.25 is a private-network address"],
    ["metadata.test", "mx.metadata.test: refused, 169.254.169.254 is a cloud metadata address"],
    ["metadata6.test", "mx.metadata6.test: refused, fd00:ec2::254 is a cloud metadata address"],
    ["linklocal.test", "mx.linklocal.test: refused, fe80::25 is a link-local address"],
    ["mapped.test", "mx.mapped.test: refused, ::ffff:7f00:1 is a loopback address"],
    ["literal.test", "127.0.0.1: refused, 127.0.0.1 is a loopback address"],
    ["implicit.test", "implicit.test: refused, 127.0.0.1 is a loopback address"],
  ])("MX of %s is refused as a permanent failure, without connecting", async (domain, error) => {
    const before = connections;
    const outcome = await transport(false).deliver(to(domain), raw, meta);
    expect(outcome).toEqual({ kind: "permanent", error });
    expect(connections).toBe(before);
  });
});

describe("MX_DELIVERY_ALLOW_PRIVATE_NETWORKS=true (local tests)", () => {
  test("loopback is delivered to", async () => {
    const outcome = await transport(true, sink.port).deliver(to("loopback.test"), raw, meta);
    expect(outcome.kind).toBe("sent");
    expect(sink.messages.at(-1)?.to).toEqual(["bob@loopback.test"]);
  });

  test("metadata and link-local stay refused, and a loopback backup is used instead of a metadata primary", async () => {
    const before = connections;
    expect(await transport(true).deliver(to("metadata.test"), raw, meta)).toEqual({
      kind: "permanent",
      error: "mx.metadata.test: refused, 169.254.169.254 is a cloud metadata address",
    });
    expect(await transport(true).deliver(to("linklocal.test"), raw, meta)).toEqual({
      kind: "permanent",
      error: "mx.linklocal.test: refused, fe80::25 is a link-local address",
    });
    expect(connections).toBe(before);
    const count = sink.messages.length;
    expect((await transport(true, sink.port).deliver(to("backup.test"), raw, meta)).kind).toBe("sent");
    expect(sink.messages).toHaveLength(count + 1);
  });

  test("the setting is read from the environment, off unless set", () => {
    expect(loadConfig({}).mxAllowPrivateNetworks).toBe(false);
    expect(loadConfig({ MX_DELIVERY_ALLOW_PRIVATE_NETWORKS: "true" }).mxAllowPrivateNetworks).toBe(true);
  });
});
