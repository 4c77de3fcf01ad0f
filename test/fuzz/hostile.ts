// Hostile building blocks shared by the HTTP, MCP and SMTP fuzzers: strings a careless parser
// trips on, JSON values of every shape, and raw URL segments with invalid percent-encoding.
import fc from "fast-check";

const LONE_SURROGATES = ["\ud800", "\udbff", "\udc00", "\udfff", "a\ud800b", "\udc00\ud800"];

/** Single UTF-16 code units anywhere in 0..0xFFFF: lone surrogates and NUL included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));

/** Strings of every kind a client could send, weighted toward the troublesome ones. */
export function hostileString(extra: string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.string() },
    { weight: 2, arbitrary: fc.string({ unit: "binary" }) },
    { weight: 2, arbitrary: fc.string({ unit: codeUnit, maxLength: 40 }) },
    { weight: 1, arbitrary: fc.constantFrom(...LONE_SURROGATES) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "",
        " ",
        "\0",
        "a\0b",
        "\r\n",
        "a\r\nBcc: x@evil.example",
        "\u202e",
        "\ufeff",
        "\u0000\u0000",
        "😀",
        "\u{10ffff}",
        "%00",
        "%ff",
        "%",
        "../../etc/passwd",
        "' or 1=1 --",
        "<script>alert(1)</script>",
        "${jndi:ldap://x}",
        "null",
        "true",
        "0",
        "-1",
        "1e309",
        "NaN",
        "svc_",
        "svc_invalid",
        "mbx_",
        "msg_",
        "drf_",
        "draft:x",
        "a@b",
        "@",
        "a@b@c",
        "\t",
        "\\",
        "x".repeat(257),
        "x".repeat(999),
        "é".repeat(2000),
        "x".repeat(70_000),
      ),
    },
    ...(extra.length ? [{ weight: 3, arbitrary: fc.constantFrom(...extra) }] : []),
  );
}

/** Any JSON value, nested a little, with hostile strings in it. */
export function hostileJson(extra: string[] = []): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    hostileString(extra),
    fc.integer(),
    fc.double(),
    fc.constantFrom(0, -1, 1, 2 ** 53, -(2 ** 31), 1e308, 0.5),
    fc.boolean(),
    fc.constant(null),
  );
  return fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(hostileString(), tie("value"), { maxKeys: 4 }),
    ),
  })).value;
}

/** A raw URL path segment, already as it goes on the wire (percent-encoded or deliberately not). */
export function hostileSegment(ids: string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ids) },
    // Not empty, and no dot segment (nor %2e%2e, which URL parsers read as one): either would
    // name another route, not an odd id.
    {
      weight: 3,
      arbitrary: hostileString(ids)
        .map(encodeSegment)
        .filter((segment) => segment !== "" && !/^(\.|%2e){1,2}$/i.test(segment)),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "%",
        "%zz",
        "%ff%fe",
        "%c3",
        "%e2%82",
        "%00",
        "abc%",
        "%25",
        "%2f",
        "...",
        "%2e%2e%2e",
        "%ED%A0%80",
        "%ef%bf%bf",
        "%f4%90%80%80",
        "%u0000",
        "msg_a%00b",
        "drf_a%00",
        "%C0%AE",
        "%20",
        "+",
        "a;b",
        "a,b",
        "~",
        "x".repeat(6000),
      ),
    },
    { weight: 1, arbitrary: fc.stringMatching(/^(msg|drf|mbx|dom|att)_[0-9a-z]{24}$/) },
  );
}

/** encodeURIComponent, except that a lone surrogate (which it refuses) goes out as its CESU bytes. */
export function encodeSegment(text: string): string {
  let out = "";
  for (const char of text) {
    const unit = char.charCodeAt(0);
    if (char.length === 1 && unit >= 0xd800 && unit <= 0xdfff) {
      out += `%${(0xe0 | (unit >> 12)).toString(16)}%${(0x80 | ((unit >> 6) & 0x3f)).toString(16)}%${(0x80 | (unit & 0x3f)).toString(16)}`;
    } else {
      out += encodeURIComponent(char);
    }
  }
  return out;
}

/** JSON text nested `depth` levels deep, as an attacker writes it to exhaust a parser's stack. */
export const deeplyNested = (depth: number, open = "[", close = "]") => `${open.repeat(depth)}${close.repeat(depth)}`;
