// The Web Crypto DKIM signer against mailauth's verifier (the one inbound authentication uses) and
// against nodemailer's signer, which it replaced: same canonical body hash, signatures that verify.
import { describe, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import DKIM from "nodemailer/lib/dkim";
import { dkimSignMessage } from "../../src/mail/dkim-sign.ts";

function keyPair(selector: string) {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: "spki", format: "der" }).toString("base64")}`;
  return { selector, pem, txt: [record.match(/.{1,255}/g)!] };
}

const keys = [keyPair("s1"), keyPair("s2")];
const resolver = async (name: string, rrtype: string) => {
  const key = keys.find((k) => name === `${k.selector}._domainkey.example.com`);
  if (rrtype === "TXT" && key) return key.txt;
  throw Object.assign(new Error("no record"), { code: "ENOTFOUND" });
};
const verify = async (raw: Uint8Array | string) => {
  const result = await dkimVerify(Buffer.from(raw as never), { resolver } as never);
  return result.results.map((r: { status: { result: string } }) => r.status.result);
};
const keyOf = (k: (typeof keys)[number]) => ({ domainName: "example.com", keySelector: k.selector, privateKey: k.pem });
const SIGNED = "From:To:Subject:Date:Message-ID:References:List-Unsubscribe";
const bytes = (text: string) => new Uint8Array(Buffer.from(text, "utf8"));

// Folded and repeated headers, tabs and runs of spaces, trailing whitespace and trailing empty lines:
// everything relaxed canonicalization has to get right.
const awkward = [
  "From: Agent <agent@example.com>",
  "To:   reader@example.org  ",
  "Subject: a\tsubject   with  runs",
  "References: <a@x.example>",
  "\t<b@x.example>",
  "Date: Wed, 01 May 2024 10:00:00 +0000",
  "Message-ID: <m1@example.com>",
  "X-Other: not signed",
  "",
  "Line one   ",
  "\tindented\t\tline",
  "",
  "",
  "",
].join("\r\n");

describe("dkimSignMessage", () => {
  test("an awkward message verifies with mailauth, and lists only the headers it has", async () => {
    const signed = await dkimSignMessage(bytes(awkward), keyOf(keys[0]!), SIGNED);
    expect(await verify(signed)).toEqual(["pass"]);
    const header = Buffer.from(signed)
      .toString("latin1")
      .split("\r\n\r\n")[0]!
      .replace(/\r\n[ \t]+/g, " ");
    expect(/ h=([^;]+);/.exec(header)?.[1]).toBe("from:to:subject:date:message-id:references");
    // Every line of the signature stays within 78 characters but h=.
    for (const line of Buffer.from(signed).toString("latin1").split("\r\n")) {
      if (!line.startsWith(" h=")) expect(line.length).toBeLessThanOrEqual(78);
    }
  });

  test("the body hash equals nodemailer's for the same message", async () => {
    const ours = Buffer.from(await dkimSignMessage(bytes(awkward), keyOf(keys[0]!), SIGNED)).toString("latin1");
    const signer = new DKIM({ ...keyOf(keys[0]!), headerFieldNames: SIGNED });
    const chunks: Buffer[] = [];
    for await (const chunk of signer.sign(Buffer.from(awkward))) chunks.push(chunk as Buffer);
    const theirs = Buffer.concat(chunks).toString("latin1");
    const bh = (text: string) => /bh=([^;]+);/.exec(text.replace(/\r\n[ \t]+/g, ""))?.[1];
    expect(bh(ours)).toBeDefined();
    expect(bh(ours)).toBe(bh(theirs));
  });

  test("a message without a body and a UTF-8 body both verify", async () => {
    const empty = "From: a@example.com\r\nTo: b@example.org\r\nSubject: none\r\n\r\n";
    expect(await verify(await dkimSignMessage(bytes(empty), keyOf(keys[0]!), SIGNED))).toEqual(["pass"]);
    const utf8 = "From: a@example.com\r\nTo: b@example.org\r\nSubject: hi\r\n\r\nÇa marche ✓  \r\n";
    expect(await verify(await dkimSignMessage(bytes(utf8), keyOf(keys[0]!), SIGNED))).toEqual(["pass"]);
  });

  test("a changed body or signed header fails; a changed unsigned header does not", async () => {
    const signed = Buffer.from(await dkimSignMessage(bytes(awkward), keyOf(keys[0]!), SIGNED)).toString("latin1");
    // mailauth calls a body hash mismatch "neutral" (RFC 8601 leaves it to the verifier): not a pass.
    expect(await verify(signed.replace("Line one", "Line 1"))).toEqual(["neutral"]);
    expect(await verify(signed.replace("a\tsubject", "another\tsubject"))).toEqual(["fail"]);
    expect(await verify(signed.replace("not signed", "changed"))).toEqual(["pass"]);
  });

  test("two keys used in turn each sign with their own (the imported-key cache is per key)", async () => {
    for (const key of [keys[0]!, keys[1]!, keys[0]!, keys[1]!]) {
      const signed = await dkimSignMessage(bytes(awkward), keyOf(key), SIGNED);
      expect(Buffer.from(signed).toString("latin1")).toContain(`s=${key.selector};`);
      expect(await verify(signed)).toEqual(["pass"]);
    }
  });

  test("a key that is not a PKCS#8 RSA key is an error, every time", async () => {
    const bad = {
      domainName: "example.com",
      keySelector: "s1",
      privateKey: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    };
    await expect(dkimSignMessage(bytes(awkward), bad, SIGNED)).rejects.toThrow(/DKIM signing failed/);
    await expect(dkimSignMessage(bytes(awkward), bad, SIGNED)).rejects.toThrow(/DKIM signing failed/);
  });
});
