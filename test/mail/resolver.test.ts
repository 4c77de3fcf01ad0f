import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeResolver, parseServer } from "../../src/mail/resolver.ts";
import { type DnsServer, startDnsServer, startSilentDnsServer } from "../support/dns-server.ts";

let dns: DnsServer;
let silent: Awaited<ReturnType<typeof startSilentDnsServer>>;

beforeAll(async () => {
  dns = await startDnsServer({
    "Example.test": {
      A: ["192.0.2.1", "192.0.2.2"],
      AAAA: ["2001:db8:0:0:0:0:0:1", "0:0:0:0:0:0:0:1", "2001:db8:1:0:0:1:0:1"],
      MX: [
        { exchange: "mx1.example.test", priority: 10 },
        { exchange: "mx2.example.test", priority: 20 },
      ],
      TXT: [["v=spf1 ", "a -all"], ["second record"]],
    },
    "long.example.test": { TXT: [["k".repeat(3000)]] },
    "empty.example.test": {},
  });
  silent = await startSilentDnsServer();
});

afterAll(async () => {
  await dns.close();
  await silent.close();
});

async function failure(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the lookup to fail");
}

describe("answers in node's dns.promises.resolve shapes", () => {
  const resolve = () => makeResolver({ servers: [dns.address], timeoutMs: 2000 });

  test("A as string[]", async () => {
    expect(await resolve()("example.test", "A")).toEqual(["192.0.2.1", "192.0.2.2"]);
  });

  test("AAAA in RFC 5952 text form", async () => {
    expect(await resolve()("example.test", "AAAA")).toEqual(["2001:db8::1", "::1", "2001:db8:1::1:0:1"]);
  });

  test("MX as {exchange, priority}[] without trailing dots", async () => {
    const mx = await resolve()("example.test", "MX");
    expect(mx.map((r: any) => ({ exchange: r.exchange.toLowerCase(), priority: r.priority }))).toEqual([
      { exchange: "mx1.example.test", priority: 10 },
      { exchange: "mx2.example.test", priority: 20 },
    ]);
  });

  test("TXT as string[][]: character-strings of one record stay together", async () => {
    expect(await resolve()("example.test", "TXT")).toEqual([["v=spf1 ", "a -all"], ["second record"]]);
  });

  test("names are case-insensitive and a trailing dot is accepted", async () => {
    expect(await resolve()("EXAMPLE.TEST.", "a")).toEqual(["192.0.2.1", "192.0.2.2"]);
  });

  test("an answer too big for UDP is fetched again over TCP", async () => {
    const before = dns.queries.length;
    const txt = await resolve()("long.example.test", "TXT");
    expect(txt).toHaveLength(1);
    expect(txt[0].join("")).toBe("k".repeat(3000));
    expect(txt[0].length).toBe(12); // split into 255-byte character-strings on the wire
    expect(dns.queries.slice(before).map((q) => q.transport)).toEqual(["udp", "tcp"]);
  });

  test("edits to the zone show on the next query", async () => {
    dns.zone["late.example.test"] = { TXT: [["added later"]] };
    expect(await resolve()("late.example.test", "TXT")).toEqual([["added later"]]);
    delete dns.zone["late.example.test"];
    expect((await failure(resolve()("late.example.test", "TXT"))).code).toBe("ENOTFOUND");
  });
});

describe("errors carry node's codes", () => {
  const resolve = () => makeResolver({ servers: [dns.address], timeoutMs: 2000 });

  test("ENOTFOUND for a name that does not exist", async () => {
    const error = await failure(resolve()("nothing.example.test", "TXT"));
    expect(error.code).toBe("ENOTFOUND");
    expect(error.syscall).toBe("queryTxt");
    expect(error.hostname).toBe("nothing.example.test");
    expect(error.message).toBe("queryTxt ENOTFOUND nothing.example.test");
  });

  test("ENODATA for a name that exists without records of that type", async () => {
    expect((await failure(resolve()("empty.example.test", "MX"))).code).toBe("ENODATA");
    expect((await failure(resolve()("example.test", "CNAME"))).code).toBe("ENODATA");
  });

  test("ETIMEOUT when the server never answers, within timeoutMs", async () => {
    const before = silent.received();
    const started = performance.now();
    const error = await failure(makeResolver({ servers: [silent.address], timeoutMs: 300 })("example.test", "TXT"));
    const elapsed = performance.now() - started;
    expect(error.code).toBe("ETIMEOUT");
    expect(error.message).toBe("queryTxt ETIMEOUT example.test");
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(10_000); // a loaded machine delays timers; a missing timeout never returns
    expect(silent.received() - before).toBe(2); // asked twice: one lost datagram is survivable
  });

  test("a dead server is skipped for the next one in the list", async () => {
    const resolve = makeResolver({ servers: [silent.address, dns.address], timeoutMs: 1000 });
    expect(await resolve("example.test", "A")).toEqual(["192.0.2.1", "192.0.2.2"]);
  });

  test("ECONNREFUSED when nothing listens on the port", async () => {
    const gone = await startDnsServer({});
    await gone.close();
    const started = performance.now();
    const error = await failure(makeResolver({ servers: [gone.address], timeoutMs: 30_000 })("example.test", "A"));
    expect(error.code).toBe("ECONNREFUSED");
    expect(performance.now() - started).toBeLessThan(10_000); // refused at once, not after two 30 s timeouts
  });

  test("EBADNAME for a name that cannot be put in a query", async () => {
    expect((await failure(resolve()(`${"a".repeat(64)}.test`, "A"))).code).toBe("EBADNAME");
    expect((await failure(resolve()("a..test", "A"))).code).toBe("EBADNAME");
  });

  test("an unsupported record type is refused before any query", async () => {
    const before = dns.queries.length;
    expect((await failure(resolve()("example.test", "HINFO"))).code).toBe("ERR_INVALID_ARG_VALUE");
    expect(dns.queries.length).toBe(before);
  });
});

describe("server entries", () => {
  test("host:port, [ipv6]:port and bare addresses", () => {
    expect(parseServer("127.0.0.1:5353")).toEqual({ host: "127.0.0.1", port: 5353, family: 4 });
    expect(parseServer("[::1]:53")).toEqual({ host: "::1", port: 53, family: 6 });
    expect(parseServer("[2001:db8::53]")).toEqual({ host: "2001:db8::53", port: 53, family: 6 });
    expect(parseServer("2001:db8::53")).toEqual({ host: "2001:db8::53", port: 53, family: 6 });
    expect(parseServer("192.0.2.53")).toEqual({ host: "192.0.2.53", port: 53, family: 4 });
  });

  test("anything else is a configuration error at start-up", () => {
    expect(() => makeResolver({ servers: ["dns.example.test"], timeoutMs: 100 })).toThrow(/invalid DNS server/);
    expect(() => makeResolver({ servers: ["127.0.0.1:0"], timeoutMs: 100 })).toThrow(/invalid DNS server/);
    expect(() => makeResolver({ servers: ["127.0.0.1:99999"], timeoutMs: 100 })).toThrow(/invalid DNS server/);
  });

  test("an empty list means the system's resolvers", () => {
    expect(typeof makeResolver({ servers: [], timeoutMs: 100 })).toBe("function");
  });
});
