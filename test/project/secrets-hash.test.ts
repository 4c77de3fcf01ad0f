// The synchronous SHA-256 the inbound path uses (node:crypto) must give exactly the Web Crypto
// digest stored before it: dedupe compares the raw message's hash with earlier ones.
import { expect, test } from "bun:test";
import { hmacSha256Hex, hmacSha256HexNow, sha256Hex, sha256HexNow } from "../../src/secrets.ts";

test("sha256HexNow equals the Web Crypto sha256Hex for bytes and strings", async () => {
  const bytes = new Uint8Array(10_240).map((_, i) => (i * 31) & 0xff);
  expect(sha256HexNow(bytes)).toBe(await sha256Hex(bytes));
  expect(sha256HexNow("héllo\u0000wörld")).toBe(await sha256Hex("héllo\u0000wörld"));
  expect(sha256HexNow(new Uint8Array(0))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  // A view into a larger buffer hashes only its own bytes.
  expect(sha256HexNow(bytes.subarray(100, 200))).toBe(await sha256Hex(bytes.slice(100, 200)));
});

// Unsubscribe tokens signed before the switch to hmacSha256HexNow must still verify.
test("hmacSha256HexNow equals the Web Crypto hmacSha256Hex", async () => {
  for (const [secret, message] of [
    ["s3cret-base64url_value", "unsubscribe:abcdefghijklmnop"],
    ["x", ""],
    ["clé secrète ü", "message\u0000with ünïcode"],
    ["k".repeat(200), "m".repeat(5000)],
  ] as const) {
    expect(hmacSha256HexNow(secret, message)).toBe(await hmacSha256Hex(secret, message));
  }
});
