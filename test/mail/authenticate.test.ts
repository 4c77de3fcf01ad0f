import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import nodemailer from "nodemailer";
import { type AuthInput, authenticateInbound, parseAuthenticationResults } from "../../src/mail/authenticate.ts";
import { generateDkimKeyPair } from "../../src/mail/dkim-keys.ts";
import { makeResolver } from "../../src/mail/resolver.ts";
import { type DnsServer, startDnsServer, startSilentDnsServer } from "../support/dns-server.ts";

const SENDER_IP = "192.0.2.10";
let dns: DnsServer;
let signed: Buffer;
let base: AuthInput;

// A message as sender.example's own MTA would send it: DKIM-signed with a
// key published in (our local) DNS, from an IP its SPF record lists.
beforeAll(async () => {
  const keys = await generateDkimKeyPair();
  dns = await startDnsServer({
    "sender.example": { TXT: [[`v=spf1 ip4:${SENDER_IP} -all`]] },
    "s1._domainkey.sender.example": { TXT: [[`v=DKIM1; k=rsa; p=${keys.publicKeyBase64}`]] },
    "_dmarc.sender.example": { TXT: [["v=DMARC1; p=reject; rua=mailto:dmarc@sender.example"]] },
    "bounces.example": { TXT: [[`v=spf1 ip4:${SENDER_IP} -all`]] },
  });
  const transport = nodemailer.createTransport({
    streamTransport: true,
    buffer: true,
    dkim: { domainName: "sender.example", keySelector: "s1", privateKey: keys.privateKeyPem },
  });
  const info = await transport.sendMail({
    from: "Alice <alice@sender.example>",
    to: "agent-bot@agents.test",
    subject: "Quarterly numbers",
    text: "The numbers are attached in spirit.\n",
  });
  signed = info.message as Buffer;
  base = {
    raw: signed,
    remoteIp: SENDER_IP,
    helo: "mail.sender.example",
    mailFrom: "alice@sender.example",
    mode: "verify",
    trustedAuthservIds: [],
    resolver: makeResolver({ servers: [dns.address], timeoutMs: 1000 }),
    mtaHostname: "mx.agents.test",
  };
});

afterAll(() => dns.close());

function withHeaders(raw: Buffer, ...headers: string[]): Buffer {
  return Buffer.concat([Buffer.from(headers.map((h) => `${h}\r\n`).join("")), raw]);
}

describe("verify mode", () => {
  test("a signed message from an SPF-listed IP passes SPF, DKIM and DMARC", async () => {
    expect(signed.toString()).toStartWith("DKIM-Signature: v=1; a=rsa-sha256;");
    expect(await authenticateInbound(base)).toEqual({
      results: { spf: "pass", dkim: "pass", dmarc: "pass" },
      dmarcPolicy: "reject",
    });
  });

  test("a tampered body fails DKIM, and DMARC once SPF cannot rescue it", async () => {
    const tampered = Buffer.from(signed.toString().replace("attached in spirit", "attached in a zip"));
    // Envelope on another domain: SPF passes for bounces.example, which is not aligned with From.
    expect(await authenticateInbound({ ...base, raw: tampered, mailFrom: "b+1@bounces.example" })).toEqual({
      results: { spf: "pass", dkim: "fail", dmarc: "fail" },
      dmarcPolicy: "reject",
    });
    // Same envelope, untouched message: the aligned DKIM signature carries DMARC.
    expect((await authenticateInbound({ ...base, mailFrom: "b+1@bounces.example" })).results).toEqual({
      spf: "pass",
      dkim: "pass",
      dmarc: "pass",
    });
  });

  test("a tampered signed header fails DKIM", async () => {
    const tampered = Buffer.from(signed.toString().replace("Subject: Quarterly numbers", "Subject: Wire the money"));
    expect((await authenticateInbound({ ...base, raw: tampered })).results?.dkim).toBe("fail");
  });

  test("an IP outside an SPF -all record fails SPF; DKIM alone still passes DMARC", async () => {
    expect(await authenticateInbound({ ...base, remoteIp: "198.51.100.7" })).toEqual({
      results: { spf: "fail", dkim: "pass", dmarc: "pass" },
      dmarcPolicy: "reject",
    });
  });

  test("forged From of a DMARC domain, unsigned, from elsewhere: fail everywhere", async () => {
    const forged = Buffer.from("From: ceo@sender.example\r\nTo: agent-bot@agents.test\r\nSubject: urgent\r\n\r\nPay now.\r\n");
    expect(await authenticateInbound({ ...base, raw: forged, remoteIp: "203.0.113.9" })).toEqual({
      results: { spf: "fail", dkim: "none", dmarc: "fail" },
      dmarcPolicy: "reject",
    });
  });

  test("a domain with no SPF and no DMARC records gives none, and no policy", async () => {
    const plain = Buffer.from("From: bob@nowhere.example\r\nTo: agent-bot@agents.test\r\nSubject: hi\r\n\r\nhi\r\n");
    expect(await authenticateInbound({ ...base, raw: plain, mailFrom: "bob@nowhere.example" })).toEqual({
      results: { spf: "none", dkim: "none", dmarc: "none" },
      dmarcPolicy: null,
    });
  });

  test("two From addresses cannot dodge DMARC: permerror", async () => {
    const twoFroms = Buffer.from("From: ceo@sender.example, x@nowhere.example\r\nTo: agent-bot@agents.test\r\nSubject: hi\r\n\r\nhi\r\n");
    expect((await authenticateInbound({ ...base, raw: twoFroms })).results?.dmarc).toBe("permerror");
  });

  test("a signature by a key too short to trust (512-bit) is permerror, not a pass", async () => {
    const algorithm = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256", modulusLength: 512, publicExponent: new Uint8Array([1, 0, 1]) };
    const weak = await crypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
    const base64 = (der: ArrayBuffer) => Buffer.from(der).toString("base64");
    const pem = `-----BEGIN PRIVATE KEY-----\n${base64(await crypto.subtle.exportKey("pkcs8", weak.privateKey))}\n-----END PRIVATE KEY-----\n`;
    dns.zone["weak._domainkey.sender.example"] = {
      TXT: [[`v=DKIM1; k=rsa; p=${base64(await crypto.subtle.exportKey("spki", weak.publicKey))}`]],
    };
    const transport = nodemailer.createTransport({
      streamTransport: true,
      buffer: true,
      dkim: { domainName: "sender.example", keySelector: "weak", privateKey: pem },
    });
    const info = await transport.sendMail({ from: "alice@sender.example", to: "agent-bot@agents.test", subject: "s", text: "t" });
    expect(await authenticateInbound({ ...base, raw: info.message as Buffer, remoteIp: "203.0.113.9" })).toEqual({
      results: { spf: "fail", dkim: "permerror", dmarc: "fail" },
      dmarcPolicy: "reject",
    });
  });

  test("a DNS server that never answers gives temperror values within a few resolver timeouts", async () => {
    const silent = await startSilentDnsServer();
    try {
      const started = performance.now();
      const outcome = await authenticateInbound({ ...base, resolver: makeResolver({ servers: [silent.address], timeoutMs: 300 }) });
      const elapsed = performance.now() - started;
      expect(outcome).toEqual({ results: { spf: "temperror", dkim: "temperror", dmarc: "temperror" }, dmarcPolicy: null });
      // mailauth alone waits about 50 s on a silent server; a loaded machine only delays timers.
      expect(elapsed).toBeLessThan(10_000);
      expect(silent.received()).toBeGreaterThan(0);
    } finally {
      await silent.close();
    }
  });

  test("the overall deadline caps a message whose lookups would take too long", async () => {
    // Twenty signatures with a matching body hash, so each makes mailauth look
    // up its key: without the deadline that is twenty resolver timeouts (20 s).
    const bodyHash = /bh=([^;]+);/.exec(signed.toString())![1];
    const signatures = Array.from(
      { length: 20 },
      (_, i) => `DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=slow${i}.example; s=x; h=from; bh=${bodyHash}; b=AAAA`,
    );
    const silent = await startSilentDnsServer();
    try {
      const started = performance.now();
      const outcome = await authenticateInbound({
        ...base,
        raw: withHeaders(signed, ...signatures),
        resolver: makeResolver({ servers: [silent.address], timeoutMs: 1000 }),
        deadlineMs: 500,
      });
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(outcome).toEqual({ results: { spf: "temperror", dkim: "temperror", dmarc: "temperror" }, dmarcPolicy: null });
    } finally {
      await silent.close();
    }
  });
});

describe("trust mode", () => {
  const trust = (raw: Buffer, ids = ["mx.relay.test"]) => authenticateInbound({ ...base, raw, mode: "trust", trustedAuthservIds: ids });

  test("reads the header written by a trusted authserv-id, matched case-insensitively", async () => {
    const raw = withHeaders(
      signed,
      "Authentication-Results: MX.Relay.Test;",
      " spf=softfail (sender IP is 198.51.100.7) smtp.mailfrom=alice@sender.example;",
      " dkim=fail header.d=other.example; dkim=pass (2048-bit key) header.d=sender.example header.s=s1;",
      " dmarc=pass (p=REJECT) header.from=sender.example",
    );
    // The published policy is read from the dmarc clause's comment, as OpenDMARC and Gmail write it.
    expect(await trust(raw)).toEqual({ results: { spf: "softfail", dkim: "pass", dmarc: "pass" }, dmarcPolicy: "reject" });
  });

  test("does no DNS at all", async () => {
    const before = dns.queries.length;
    await trust(withHeaders(signed, "Authentication-Results: mx.relay.test; spf=pass smtp.mailfrom=a@b.example"));
    expect(dns.queries.length).toBe(before);
  });

  test("missing or unknown methods are none; the first dkim result counts when none passes", async () => {
    const raw = withHeaders(
      signed,
      "Authentication-Results: mx.relay.test; dkim=temperror header.d=a.example; dkim=fail header.d=b.example; arc=pass",
    );
    expect((await trust(raw)).results).toEqual({ spf: "none", dkim: "temperror", dmarc: "none" });
    // "policy" (valid signature refused here, e.g. a weak key) is not a pass and will not become one.
    const policy = withHeaders(signed, "Authentication-Results: mx.relay.test; spf=hardfail; dkim=policy; dmarc=bestguesspass");
    expect((await trust(policy)).results).toEqual({ spf: "fail", dkim: "permerror", dmarc: "permerror" });
    expect((await trust(withHeaders(signed, "Authentication-Results: mx.relay.test; none"))).results).toEqual({
      spf: "none",
      dkim: "none",
      dmarc: "none",
    });
  });

  test("an untrusted header is ignored: no results", async () => {
    const raw = withHeaders(signed, "Authentication-Results: mx.sender-chosen.test; spf=pass; dkim=pass; dmarc=pass");
    expect(await trust(raw)).toEqual({ results: null, dmarcPolicy: null });
  });

  test("no header at all: no results", async () => {
    expect(await trust(signed)).toEqual({ results: null, dmarcPolicy: null });
  });

  test("a forged header below the trusted one is ignored, even with the trusted id", async () => {
    const raw = withHeaders(
      signed,
      "Authentication-Results: mx.sender-chosen.test; spf=pass; dkim=pass; dmarc=pass",
      "Authentication-Results: mx.relay.test; spf=fail smtp.mailfrom=ceo@sender.example;",
      "\tdkim=none; dmarc=fail header.from=sender.example",
      "Authentication-Results: mx.relay.test; spf=pass; dkim=pass; dmarc=pass",
    );
    expect((await trust(raw)).results).toEqual({ spf: "fail", dkim: "none", dmarc: "fail" });
  });

  test("headers in the body are not headers", async () => {
    const raw = Buffer.from(
      "From: a@b.example\r\nSubject: x\r\n\r\nAuthentication-Results: mx.relay.test; spf=pass; dkim=pass; dmarc=pass\r\n",
    );
    expect((await trust(raw)).results).toBeNull();
  });
});

describe("off mode", () => {
  test("no results and no DNS", async () => {
    const before = dns.queries.length;
    expect(await authenticateInbound({ ...base, mode: "off" })).toEqual({ results: null, dmarcPolicy: null });
    expect(dns.queries.length).toBe(before);
  });
});

describe("parseAuthenticationResults (RFC 8601)", () => {
  test("comments, versions, quoted authserv-id and properties", () => {
    expect(
      parseAuthenticationResults(
        ' "mx.relay.test" 1 (our; gateway); spf (checked; twice) = pass smtp.mailfrom="a;b@x.example"; dkim/1=PASS header.i=@x.example',
      ),
    ).toEqual({
      authservId: "mx.relay.test",
      results: [
        { method: "spf", result: "pass" },
        { method: "dkim", result: "pass" },
      ],
    });
  });

  test("an empty value has no authserv-id", () => {
    expect(parseAuthenticationResults("   ")).toBeNull();
  });
});

describe("trust mode: the DMARC policy a trusted verifier wrote", () => {
  const trustOnly = (header: string) =>
    authenticateInbound({
      raw: Buffer.from(`${header}\r\nFrom: a@b.example\r\n\r\nhi\r\n`),
      remoteIp: "192.0.2.1",
      helo: "x",
      mailFrom: "a@b.example",
      mode: "trust",
      trustedAuthservIds: ["mx.relay.test"],
      resolver: async () => {
        throw Object.assign(new Error("no dns"), { code: "ENOTFOUND" });
      },
      mtaHostname: "mx.test",
    });

  test("policy.dmarc property and the p= comment are both understood; other clauses' p= are not", async () => {
    expect(
      (await trustOnly("Authentication-Results: mx.relay.test; dmarc=fail policy.dmarc=quarantine header.from=b.example")).dmarcPolicy,
    ).toBe("quarantine");
    expect((await trustOnly("Authentication-Results: mx.relay.test; dmarc=fail (p=none dis=none) header.from=b.example")).dmarcPolicy).toBe(
      "none",
    );
    expect(
      (
        await trustOnly(
          "Authentication-Results: mx.relay.test; spf=pass (p=reject) smtp.mailfrom=b.example; dmarc=fail header.from=b.example",
        )
      ).dmarcPolicy,
    ).toBe(null);
  });
});
