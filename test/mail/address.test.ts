import { describe, expect, test } from "bun:test";
import { domainOf, parseList, parseSingleAddress, plainAddrSpec } from "../../src/mail/address.ts";

describe("parseSingleAddress accepts one mailbox", () => {
  const valid: [string, string][] = [
    ["alice@example.com", "alice@example.com"],
    ["  alice@example.com  ", "alice@example.com"],
    ["Alice@Example.COM", "Alice@example.com"],
    ["first.last+tag@sub.example.co.uk", "first.last+tag@sub.example.co.uk"],
    ["o'brien_x-y=z#!$%&*/?^`{|}~@example.com", "o'brien_x-y=z#!$%&*/?^`{|}~@example.com"],
    ["Alice <alice@example.com>", "alice@example.com"],
    ['"Alice Smith" <Alice.Smith@Example.org>', "Alice.Smith@example.org"],
    ['"Smith, Alice" <alice@example.org>', "alice@example.org"],
    ["Zoë Brontë <zoe@example.org>", "zoe@example.org"],
    ["<alice@example.com>", "alice@example.com"],
    ["alice@example.com (work)", "alice@example.com"],
    ['"alice"@example.com', "alice@example.com"],
    ["a@x-y.example", "a@x-y.example"],
    ["a@münchen.example", "a@xn--mnchen-3ya.example"],
    ["a@123.example", "a@123.example"],
  ];
  for (const [input, address] of valid) {
    test(JSON.stringify(input), () => {
      expect(parseSingleAddress(input)).toEqual({ ok: true, address });
    });
  }
});

describe("parseSingleAddress refuses anything else, with a clear message", () => {
  const invalid: [string, RegExp][] = [
    ["", /must not be empty/],
    ["   ", /must not be empty/],
    ["a@example.com, b@example.com", /exactly one email address/],
    ["Alice <a@example.com>, Bob <b@example.com>", /exactly one email address/],
    ["a@example.com; b@example.com", /exactly one email address/],
    ["friends: a@example.com, b@example.com;", /not a group/],
    ["undisclosed-recipients:;", /not a group/],
    ["a@example.com\r\nBcc: victim@example.net", /line breaks/],
    ["a@example.com\nBcc: victim@example.net", /line breaks/],
    ["a@example.com\r", /line breaks/],
    ["a\u0000@example.com", /control characters/],
    ["alice", /not a valid email address/],
    ["alice@", /not a valid email address/],
    ["@example.com", /not a valid email address/],
    ["alice@@example.com", /not a valid email address/],
    ["a..b@example.com", /not a valid email address/],
    [".a@example.com", /not a valid email address/],
    ["a b@example.com", /not a valid email address/],
    ["a@example.com,", /not a valid email address/],
    ["a@example.com.", /not a valid email address/],
    ["Alice <alice@example.com", /not a valid email address/],
    ["alice@localhost", /domain with a dot/],
    ["alice@example", /domain with a dot/],
    ["a@[192.0.2.1]", /not an IP address/],
    ["a@192.0.2.1", /valid domain name/],
    ["a@-bad.example", /valid domain name/],
    ["a@bad-.example", /valid domain name/],
    ["a@under_score.example", /valid domain name/],
    ['"john doe"@example.com', /quoted or non-ASCII local part/],
    ["jöhn@example.com", /quoted or non-ASCII local part/],
    [`${"a".repeat(65)}@example.com`, /local part longer than 64/],
    [`a@${"b".repeat(64)}.example`, /valid domain name/],
    [`a@${Array.from({ length: 50 }, () => "abcde").join(".")}.example`, /domain that is too long/],
    ["x".repeat(2000), /too long/],
  ];
  for (const [input, message] of invalid) {
    test(JSON.stringify(input.length > 60 ? input.slice(0, 60) + "…" : input), () => {
      const r = parseSingleAddress(input);
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error).toMatch(message);
        expect(r.error.startsWith("to ")).toBe(true);
      }
    });
  }

  test("names the field it was given", () => {
    expect(parseSingleAddress("", "from")).toEqual({ ok: false, error: "from must not be empty" });
  });

  test("a non-string is refused, not thrown on", () => {
    expect(parseSingleAddress(undefined as unknown as string).ok).toBe(false);
  });
});

describe("domainOf", () => {
  test("returns the lower-cased domain after the last @", () => {
    expect(domainOf("Alice@Example.COM")).toBe("example.com");
    expect(domainOf('"a@b"@c.example')).toBe("c.example");
    expect(domainOf("no-at-sign")).toBe("");
  });
});

describe("a plain addr-spec, answered without the parser", () => {
  // Every input the shortcut takes must be read by the RFC 5322 parser exactly as the shortcut reads it.
  const atext = "abcXYZ019!#$%&'*+/=?^_`{|}~-";
  const labelChars = "abzAZ09-";
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const run = (chars: string, max: number) => Array.from({ length: 1 + random(max) }, () => chars[random(chars.length)]).join("");
  const generated = Array.from({ length: 3000 }, () => {
    const local = Array.from({ length: 1 + random(3) }, () => run(atext, 8)).join(".");
    const domain = Array.from({ length: 1 + random(4) }, () => run(labelChars, 10)).join(".");
    return `${local}@${domain}`;
  });
  const fixed = ["reader@example.org", "A.B@Example.COM", "a@192.0.2.1", "a@-bad.example", "a@x", `${"a".repeat(70)}@example.com`];

  test("the parser reads every such input as one mailbox with the same local part and domain", () => {
    for (const input of [...fixed, ...generated]) {
      const fast = plainAddrSpec(input);
      expect(fast).not.toBeNull();
      const parsed = parseList(input, ",");
      expect(parsed?.length).toBe(1);
      const [only] = parsed as { type: string; local: string; domain: string }[];
      expect({ type: only!.type, local: only!.local, domain: only!.domain }).toEqual(fast![0]);
    }
  });

  test("anything else goes to the parser", () => {
    for (const input of [
      " a@example.com",
      "a@example.com ",
      "Alice <a@example.com>",
      '"a"@example.com',
      "a..b@example.com",
      ".a@example.com",
      "a@example.com.",
      "a@under_score.example",
      "a@[192.0.2.1]",
      "a@example.com (work)",
      "a@example.com,b@example.com",
      "jöhn@example.com",
      "a@münchen.example",
    ]) {
      expect(plainAddrSpec(input)).toBeNull();
    }
  });
});
