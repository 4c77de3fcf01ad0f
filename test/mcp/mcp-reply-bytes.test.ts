// successReplyBytes must be, byte for byte, the UTF-8 of successReplyJson's text for any tool
// body and notes: the escaping it does by hand is JSON.stringify's only for a JSON text.
import { expect, test } from "bun:test";
import { successReplyBytes, successReplyJson, toolSuccessOf } from "../../src/mcp/results.ts";

const CHARS = [
  "a",
  "Z",
  "0",
  '"',
  "\\",
  "/",
  "\n",
  "\t",
  "\u0000",
  "\u001f",
  "\u007f",
  "\u0080",
  "é",
  "€",
  "\u2028",
  "\u{1F600}",
  "\ud800",
  "\udfff",
  "\uffff",
  " ",
];
let seed = 11;
const random = (n: number) => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
};
const text = (max: number) => Array.from({ length: random(max) }, () => CHARS[random(CHARS.length)]).join("");
const asBytes = (reply: Uint8Array | string) => Buffer.from(typeof reply === "string" ? Buffer.from(reply) : reply);

test("the bytes are the UTF-8 of successReplyJson, for any body, notes and id", () => {
  for (let k = 0; k < 3000; k++) {
    const body = {
      items: Array.from({ length: random(4) }, () => ({
        id: text(12),
        [text(6)]: text(40),
        n: random(1000) - 500,
        at: new Date(random(2e12)),
        ok: random(2) === 1,
        none: null,
      })),
      nested: { list: [text(5), random(9)] },
    };
    const success = toolSuccessOf(
      body,
      Array.from({ length: random(3) }, () => text(30)),
    );
    const id = random(2) === 0 ? random(2 ** 40) : text(10);
    expect(asBytes(successReplyBytes(success, id)).equals(Buffer.from(successReplyJson(success, id)))).toBe(true);
  }
});

test("a larger reply grows the shared buffer and is still the same bytes", () => {
  const success = toolSuccessOf({ items: Array.from({ length: 2000 }, (_, i) => ({ id: `item_${i}`, note: 'a "quoted" \\ line é€' })) });
  const reply = successReplyBytes(success, "big");
  expect(typeof reply).not.toBe("string");
  expect(asBytes(reply).equals(Buffer.from(successReplyJson(success, "big")))).toBe(true);
});

test("a reply too long for the shared buffer comes back as the text itself", () => {
  const success = toolSuccessOf({ body: 'x"y'.repeat(40_000) });
  const reply = successReplyBytes(success, 1);
  expect(typeof reply).toBe("string");
  expect(reply).toBe(successReplyJson(success, 1));
});

test("a Response made from the bytes keeps them when the next reply reuses the buffer", async () => {
  const first = toolSuccessOf({ n: 1, s: "first" });
  const response = new Response(successReplyBytes(first, 1));
  successReplyBytes(toolSuccessOf({ n: 2, s: "the second, longer reply" }), 2);
  expect(await response.text()).toBe(successReplyJson(first, 1));
});
