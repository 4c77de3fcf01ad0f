import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { type DkimKeyPair, generateDkimKeyPair } from "../../src/mail/dkim-keys.ts";
import {
  checkDnsRecords,
  type DnsRecord,
  isValidDomainName,
  normalizeDomainName,
  requiredDnsRecords,
} from "../../src/mail/domain-records.ts";
import { makeResolver, type ResolveFn } from "../../src/mail/resolver.ts";
import { type DnsServer, startDnsServer, startSilentDnsServer } from "../support/dns-server.ts";

const MX_HOST = "mx.agents.test";
let dns: DnsServer;
let resolve: ResolveFn;
let keys: DkimKeyPair;
let records: DnsRecord[];

beforeAll(async () => {
  dns = await startDnsServer({});
  resolve = makeResolver({ servers: [dns.address], timeoutMs: 1000 });
  keys = await generateDkimKeyPair();
  records = requiredDnsRecords("customer.example", { mxHost: MX_HOST, dkimSelector: "am1", dkimPublicKey: keys.publicKeyBase64 });
});

afterAll(() => dns.close());

beforeEach(() => {
  for (const name of Object.keys(dns.zone)) delete dns.zone[name];
  dns.zone[MX_HOST] = { A: ["192.0.2.25"] };
});

// Publishes exactly what we ask customers to publish, the way a DNS host stores it.
function publishAll(): void {
  dns.zone["customer.example"] = {
    MX: [{ exchange: MX_HOST, priority: 10 }],
    TXT: [[`v=spf1 a:${MX_HOST} ~all`], ["google-site-verification=abc"]],
  };
  dns.zone["am1._domainkey.customer.example"] = { TXT: [[`v=DKIM1; k=rsa; p=${keys.publicKeyBase64}`]] };
  dns.zone["_dmarc.customer.example"] = { TXT: [["v=DMARC1; p=quarantine; adkim=r; aspf=r"]] };
}

function checkFor(result: Awaited<ReturnType<typeof checkDnsRecords>>, purpose: string) {
  return result.checks.find((c) => c.purpose === purpose)!;
}

describe("generateDkimKeyPair", () => {
  test("an RSA 2048 pair whose public half is the p= value for the private half", async () => {
    expect(keys.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n([A-Za-z0-9+/=]{1,64}\n)+-----END PRIVATE KEY-----\n$/);
    const spki = Uint8Array.from(atob(keys.publicKeyBase64), (c) => c.charCodeAt(0));
    const algorithm = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" };
    const publicKey = await crypto.subtle.importKey("spki", spki, algorithm, true, ["verify"]);
    expect((publicKey.algorithm as RsaHashedKeyAlgorithm).modulusLength).toBe(2048);
    const der = Uint8Array.from(atob(keys.privateKeyPem.replace(/-----[^-]+-----|\n/g, "")), (c) => c.charCodeAt(0));
    const privateKey = await crypto.subtle.importKey("pkcs8", der, algorithm, false, ["sign"]);
    const data = new TextEncoder().encode("signed by the domain");
    const signature = await crypto.subtle.sign(algorithm, privateKey, data);
    expect(await crypto.subtle.verify(algorithm, publicKey, signature, data)).toBe(true);
  });

  test("every call makes a new key", async () => {
    expect((await generateDkimKeyPair()).publicKeyBase64).not.toBe(keys.publicKeyBase64);
  });
});

describe("requiredDnsRecords", () => {
  test("MX, SPF, DKIM and DMARC for the domain", () => {
    expect(records).toEqual([
      { type: "MX", name: "customer.example", value: MX_HOST, priority: 10, purpose: "inbound" },
      { type: "TXT", name: "customer.example", value: "v=spf1 a:mx.agents.test ~all", purpose: "spf" },
      {
        type: "TXT",
        name: "am1._domainkey.customer.example",
        value: `v=DKIM1; k=rsa; p=${keys.publicKeyBase64}`,
        purpose: "dkim",
      },
      { type: "TXT", name: "_dmarc.customer.example", value: "v=DMARC1; p=quarantine; adkim=r; aspf=r", purpose: "dmarc" },
    ]);
  });
});

describe("isValidDomainName", () => {
  test.each(["example.com", "mail.example.co.uk", "a.b", "xn--bcher-kva.example", "my-company.io", "1password.com", "x.y1"])(
    "accepts %s",
    (name) => expect(isValidDomainName(name)).toBe(true),
  );

  test.each([
    ["no dot", "localhost"],
    ["upper case", "Example.com"],
    ["trailing dot", "example.com."],
    ["leading dot", ".example.com"],
    ["empty label", "example..com"],
    ["leading hyphen", "-example.com"],
    ["trailing hyphen", "example-.com"],
    ["underscore", "my_domain.com"],
    ["space", "exa mple.com"],
    ["numeric TLD", "192.168.1.1"],
    ["label of 64", `${"a".repeat(64)}.com`],
    ["longer than 253", `${"a".repeat(60)}.`.repeat(4) + "b".repeat(7) + ".com"],
    ["unicode", "bücher.example"],
    ["empty", ""],
  ])("rejects %s", (_why, name) => expect(isValidDomainName(name)).toBe(false));

  test("a label of 63 and a name of 253 are allowed", () => {
    expect(isValidDomainName(`${"a".repeat(63)}.com`)).toBe(true);
    const name = `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`;
    expect(name.length).toBe(253);
    expect(isValidDomainName(name)).toBe(true);
  });

  test("normalizeDomainName lower-cases, trims and drops one trailing dot", () => {
    expect(normalizeDomainName("  Example.COM. ")).toBe("example.com");
    expect(isValidDomainName(normalizeDomainName("Example.COM."))).toBe(true);
  });
});

describe("checkDnsRecords", () => {
  test("everything published: all found, no details", async () => {
    publishAll();
    const result = await checkDnsRecords(resolve, records);
    expect(result).toEqual({
      allFound: true,
      checks: [
        { purpose: "inbound", name: "customer.example", found: true },
        { purpose: "spf", name: "customer.example", found: true },
        { purpose: "dkim", name: "am1._domainkey.customer.example", found: true },
        { purpose: "dmarc", name: "_dmarc.customer.example", found: true },
      ],
    });
  });

  test("nothing published: each not found, with the DNS reason", async () => {
    const result = await checkDnsRecords(resolve, records);
    expect(result.allFound).toBe(false);
    expect(result.checks.map((c) => c.found)).toEqual([false, false, false, false]);
    for (const check of result.checks) expect(check.detail).toStartWith("ENOTFOUND");
  });

  test("a domain that exists but lacks a record type says ENODATA", async () => {
    dns.zone["customer.example"] = { A: ["192.0.2.80"] };
    const result = await checkDnsRecords(resolve, records);
    expect(checkFor(result, "inbound").detail).toBe("ENODATA: no MX records");
    expect(checkFor(result, "spf").detail).toBe("ENODATA: no TXT records");
  });

  test("MX matching ignores case and a trailing dot, and lists where it points otherwise", async () => {
    publishAll();
    dns.zone["customer.example"].MX = [{ exchange: "MX.Agents.Test.", priority: 5 }];
    expect(checkFor(await checkDnsRecords(resolve, records), "inbound").found).toBe(true);
    dns.zone["customer.example"].MX = [{ exchange: "aspmx.other.test", priority: 1 }];
    const result = await checkDnsRecords(resolve, records);
    expect(result.allFound).toBe(false);
    expect(checkFor(result, "inbound")).toEqual({
      purpose: "inbound",
      name: "customer.example",
      found: false,
      detail: "MX points to aspmx.other.test, not mx.agents.test",
    });
  });

  describe("SPF authorizes our host, wherever in the record", () => {
    const spfWith = async (...txt: string[][]) => {
      publishAll();
      dns.zone["customer.example"].TXT = txt;
      return checkFor(await checkDnsRecords(resolve, records), "spf");
    };

    // Another provider's include that does not cover us: evaluation goes on past it.
    const otherProvider = () => {
      dns.zone["_spf.other-provider.test"] = { TXT: [["v=spf1 ip4:198.51.100.0/24 -all"]] };
    };
    test("merged into an existing record", async () => {
      otherProvider();
      expect((await spfWith([`v=spf1 include:_spf.other-provider.test a:${MX_HOST} -all`])).found).toBe(true);
    });
    test("split over character-strings", async () => {
      otherProvider();
      expect((await spfWith(["v=spf1 include:_spf.other-provider.test ", `a:${MX_HOST.toUpperCase()} -all`])).found).toBe(true);
    });
    test("through a chain: include of a record whose ip4 range covers our MX address", async () => {
      dns.zone["_spf.customer.example"] = { TXT: [["v=spf1 ip4:192.0.2.0/24 -all"]] };
      const check = await spfWith(["v=spf1 include:_spf.customer.example ~all"]);
      expect(check).toEqual({ purpose: "spf", name: "customer.example", found: true });
      // The included record was really asked for: the answer came from the chain.
      expect(dns.queries.some((q) => q.name.toLowerCase() === "_spf.customer.example" && q.type === "TXT")).toBe(true);
    });
    test("through two levels of include and a redirect", async () => {
      dns.zone["_spf.customer.example"] = { TXT: [["v=spf1 include:_hosts.customer.example -all"]] };
      dns.zone["_hosts.customer.example"] = { TXT: [["v=spf1 redirect=_final.customer.example"]] };
      dns.zone["_final.customer.example"] = { TXT: [["v=spf1 ip4:192.0.2.25 -all"]] };
      expect((await spfWith(["v=spf1 include:_spf.customer.example ~all"])).found).toBe(true);
    });
    test("through ip6 when our host has an IPv6 address too (every address must pass)", async () => {
      dns.zone[MX_HOST] = { A: ["192.0.2.25"], AAAA: ["2001:db8:25::1"] };
      expect((await spfWith(["v=spf1 ip4:192.0.2.0/24 ip6:2001:db8:25::/48 -all"])).found).toBe(true);
      const v4Only = await spfWith(["v=spf1 ip4:192.0.2.0/24 -all"]);
      expect(v4Only).toMatchObject({ found: false, detail: "SPF record does not authorize mx.agents.test (2001:db8:25::1: fail)" });
    });
    test("through a macro (exists:%{i}._spf...)", async () => {
      dns.zone["192.0.2.25._ip.customer.example"] = { A: ["127.0.0.2"] };
      expect((await spfWith(["v=spf1 exists:%{i}._ip.%{d} -all"])).found).toBe(true);
    });
    test("not through include of a name without an SPF record (permerror, as receivers judge it)", async () => {
      const check = await spfWith([`v=spf1 include:${MX_HOST} ~all`]);
      expect(check).toMatchObject({ found: false, detail: "SPF record does not authorize mx.agents.test (192.0.2.25: permerror)" });
    });
    test("not past the void-lookup limit: three names that do not exist before our term", async () => {
      const check = await spfWith([`v=spf1 a:gone1.customer.example a:gone2.customer.example a:gone3.customer.example a:${MX_HOST} -all`]);
      expect(check).toMatchObject({ found: false, detail: "SPF record does not authorize mx.agents.test (192.0.2.25: permerror)" });
    });
    test("through mx when the domain's MX is us", async () => {
      expect((await spfWith(["v=spf1 mx -all"])).found).toBe(true);
    });
    test("through an ip4 range holding our host's address", async () => {
      expect((await spfWith(["v=spf1 ip4:192.0.2.0/24 -all"])).found).toBe(true);
    });
    test("not through mx when the MX is elsewhere", async () => {
      publishAll();
      dns.zone["customer.example"].MX = [{ exchange: "aspmx.other.test", priority: 1 }];
      dns.zone["customer.example"].TXT = [["v=spf1 mx -all"]];
      expect(checkFor(await checkDnsRecords(resolve, records), "spf")).toEqual({
        purpose: "spf",
        name: "customer.example",
        found: false,
        detail: "SPF record does not authorize mx.agents.test (192.0.2.25: fail)",
      });
    });
    test("not after all: a receiver never gets there", async () => {
      expect((await spfWith([`v=spf1 -all a:${MX_HOST}`])).found).toBe(false);
    });
    test("not with a fail or softfail qualifier", async () => {
      expect((await spfWith([`v=spf1 -a:${MX_HOST} ~all`])).found).toBe(false);
      expect((await spfWith([`v=spf1 ~a:${MX_HOST} -all`])).found).toBe(false);
    });
    test("not for a host that merely contains ours", async () => {
      expect((await spfWith([`v=spf1 a:${MX_HOST}.evil.test ~all`])).found).toBe(false);
      expect((await spfWith(["v=spf1 ip4:198.51.100.0/24 ~all"])).found).toBe(false);
    });
    test("not when two SPF records make every receiver return permerror", async () => {
      const check = await spfWith([`v=spf1 a:${MX_HOST} ~all`], ["v=spf1 include:other.test ~all"]);
      expect(check.found).toBe(false);
      expect(check.detail).toBe("more than one v=spf1 TXT record");
    });
    test("not when there is no v=spf1 record among the TXT records", async () => {
      const check = await spfWith(["spf1 a:mx.agents.test"], ["hello"]);
      expect(check).toMatchObject({ found: false, detail: "no v=spf1 TXT record" });
    });
  });

  test("DKIM: found when a record carries our key, even split in chunks with spaces", async () => {
    publishAll();
    const key = keys.publicKeyBase64;
    dns.zone["am1._domainkey.customer.example"].TXT = [["v=DKIM1; k=rsa; ", `p=${key.slice(0, 200)} `, key.slice(200)]];
    expect(checkFor(await checkDnsRecords(resolve, records), "dkim").found).toBe(true);
  });

  test("DKIM: not found when the published key is another one", async () => {
    publishAll();
    const other = await generateDkimKeyPair();
    dns.zone["am1._domainkey.customer.example"].TXT = [[`v=DKIM1; k=rsa; p=${other.publicKeyBase64}`]];
    const result = await checkDnsRecords(resolve, records);
    expect(checkFor(result, "dkim")).toMatchObject({ found: false, detail: "no TXT record with our DKIM public key (p=)" });
    expect(result.allFound).toBe(false);
  });

  test("DMARC: any v=DMARC1 policy counts, other TXT records do not", async () => {
    publishAll();
    dns.zone["_dmarc.customer.example"].TXT = [["v=DMARC1;p=none"]];
    expect(checkFor(await checkDnsRecords(resolve, records), "dmarc").found).toBe(true);
    dns.zone["_dmarc.customer.example"].TXT = [["v=DMARC2; p=reject"], ["dmarc please"]];
    expect(checkFor(await checkDnsRecords(resolve, records), "dmarc")).toMatchObject({
      found: false,
      detail: "no v=DMARC1 TXT record",
    });
  });

  test("a DNS server that never answers: not found with ETIMEOUT, and no exception", async () => {
    const silent = await startSilentDnsServer();
    try {
      const started = performance.now();
      const result = await checkDnsRecords(makeResolver({ servers: [silent.address], timeoutMs: 200 }), records);
      expect(performance.now() - started).toBeLessThan(10_000); // bounded by the resolver's timeout, never stalled
      expect(result.allFound).toBe(false);
      for (const check of result.checks) {
        expect(check).toMatchObject({ found: false, detail: "ETIMEOUT: DNS servers did not answer in time" });
      }
    } finally {
      await silent.close();
    }
  });

  test("a resolver that throws something unexpected is still just not found", async () => {
    const broken: ResolveFn = async () => {
      throw new Error("boom");
    };
    const result = await checkDnsRecords(broken, records);
    expect(result.allFound).toBe(false);
    expect(result.checks.every((c) => c.detail === "ERROR: DNS lookup failed")).toBe(true);
  });
});
