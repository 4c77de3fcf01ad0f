import { describe, expect, test } from "bun:test";
import { HELD_OUT_GROUPS, loadCorpus } from "../../scripts/train-spam.ts";
import { classifySpam, loadSpamModel } from "../../src/comprehension/spam/classifier.ts";
import { spamFeatures } from "../../src/comprehension/spam/features.ts";
import { cpuMsSince } from "../support/cpu-time.ts";

// Every 15th held-out message (easy-ham-2, spam-2, hard-ham-1; never seen in training): 94
// easy ham, 16 hard ham, 90 spam. The shipped model scored F1 0.937 here with 3 ham flagged
// when this test was written; the bounds leave room for a retrained model, not for a broken one.
const SAMPLE_F1_MIN = 0.9;
const SAMPLE_HAM_FLAGGED_MAX = 6;

const obviousSpam = [
  'From: "BEST OFFERS" <offers7731@cheap-deals-4u.biz>',
  "To: undisclosed-recipients:;",
  "Subject: MAKE MONEY FAST!!! Guaranteed $$$ FREE",
  "Message-ID: <x8f7a6s5d4@mail.bulk-sender-88.com>",
  "Content-Type: text/html",
  "",
  "<html><body><font size=5><b>Dear Friend,</b></font><br>",
  "You have been selected to receive a FREE offer! Earn $5000 per week working from home.",
  "100% GUARANTEED. No risk, no cost. Lowest mortgage rates, cheap viagra, credit card debt relief.",
  '<a href="http://211.34.1.9/order.php?id=123">CLICK HERE</a> to order now! Limited time offer!',
  "To be removed from our mailing list, reply with REMOVE in the subject.",
  "</body></html>",
].join("\r\n");

const personalNote = [
  "From: Alice Martin <alice@example.org>",
  "To: Bob Stone <bob@example.net>",
  "Subject: Re: dinner on Thursday",
  "Date: Tue, 10 Sep 2002 18:04:11 +0100",
  "Message-ID: <20020910170411.GA1234@example.org>",
  "In-Reply-To: <3D7E1C2A.5060302@example.net>",
  "Content-Type: text/plain; charset=us-ascii",
  "",
  "Hi Bob,",
  "",
  "Thursday works for me, but I think I'll be a bit late because the build at work broke",
  "again and I want to find out why before I leave. Shall we say half seven at the usual place?",
  "I'll bring the book you lent me.",
  "",
  "Alice",
].join("\r\n");

describe("spam classifier", () => {
  test("scores a fixed held-out sample of the corpus in aggregate", async () => {
    const model = await loadSpamModel();
    const sample = (await loadCorpus(HELD_OUT_GROUPS, (i) => i % 15 === 0)).slice(0, 200);
    let tp = 0,
      fp = 0,
      fn = 0;
    const times: number[] = [];
    for (const message of sample) {
      const started = process.cpuUsage();
      const verdict = await classifySpam(message.raw, model);
      times.push(cpuMsSince(started));
      if (verdict.spam && message.spam) tp++;
      else if (verdict.spam) fp++;
      else if (message.spam) fn++;
    }
    const f1 = (2 * tp) / (2 * tp + fp + fn);
    expect(f1).toBeGreaterThanOrEqual(SAMPLE_F1_MIN);
    expect(fp).toBeLessThanOrEqual(SAMPLE_HAM_FLAGGED_MAX);
    times.sort((a, b) => a - b);
    // CPU time: a busy machine stretches the wall time of the same work, not this.
    expect(times[times.length >> 1]!).toBeLessThan(20);
  });

  test("obvious spam scores high", async () => {
    const verdict = await classifySpam(obviousSpam);
    expect(verdict.spam).toBe(true);
    expect(verdict.score).toBeGreaterThan(0.9);
  });

  test("a plain personal note scores low, as bytes or as a string", async () => {
    const fromString = await classifySpam(personalNote);
    const fromBytes = await classifySpam(new TextEncoder().encode(personalNote));
    expect(fromString.spam).toBe(false);
    expect(fromString.score).toBeLessThan(0.2);
    expect(fromBytes).toEqual(fromString);
  });

  test("an unreadable model path fails loudly", async () => {
    await expect(loadSpamModel("/nonexistent/spam-model.json")).rejects.toThrow();
  });

  describe("date and encoding facts", () => {
    const message = (date: string, extra: string[] = []) =>
      [`Date: ${date}`, "From: a@example.org", "To: b@example.net", "Subject: hi", ...extra, "", "hello there"].join("\r\n");
    const dateTokens = (tokens: Set<string>) => [...tokens].filter((t) => t.startsWith("date:") || t.startsWith("cte:")).sort();
    const arrival = new Date("2002-09-10T12:00:00Z");

    test("a Date hours ahead of arrival, a stale one, and one on time", async () => {
      expect(dateTokens(await spamFeatures(message("Tue, 10 Sep 2002 17:30:00 +0000"), { receivedAt: arrival }))).toEqual(["date:ahead"]);
      expect(dateTokens(await spamFeatures(message("Sat, 07 Sep 2002 09:00:00 +0000"), { receivedAt: arrival }))).toEqual(["date:stale"]);
      expect(dateTokens(await spamFeatures(message("Tue, 10 Sep 2002 13:59:00 +0200"), { receivedAt: arrival }))).toEqual(["date:on-time"]);
    });

    test("without an arrival time the newest Received header stands in; a zone name is noted", async () => {
      const received = "Received: from relay.example.net by mx.example.net; Tue, 10 Sep 2002 12:00:00 +0000";
      const older = "Received: from origin.example.org by relay.example.net; Mon, 09 Sep 2002 08:00:00 +0000";
      expect(dateTokens(await spamFeatures(message("Tue, 10 Sep 2002 20:00:00 GMT", [received, older])))).toEqual([
        "date:ahead",
        "date:no-numeric-tz",
      ]);
      expect(dateTokens(await spamFeatures(message("Tue, 10 Sep 2002 20:00:00 +0000")))).toEqual([]);
    });

    test("a single-part message's transfer encoding is a token", async () => {
      const tokens = await spamFeatures(message("Tue, 10 Sep 2002 12:00:00 +0000", ["Content-Transfer-Encoding: Quoted-Printable"]), {
        receivedAt: arrival,
      });
      expect(dateTokens(tokens)).toEqual(["cte:quoted-printable", "date:on-time"]);
    });
  });
});

describe("modern features (modern.ts)", () => {
  const mail = (headers: string[], body: string, html = false) =>
    [...headers, "To: b@example.net", "Subject: notice", `Content-Type: text/${html ? "html" : "plain"}; charset=utf-8`, "", body].join(
      "\r\n",
    );

  test("a brand on someone else's domain, link text naming another host, list headers", async () => {
    const phish = await spamFeatures(
      mail(
        ['From: "PayPal" <service@paypal-account-verify.top>'],
        '<p>Verify now: <a href="https://paypal.com.secure-login.top/x">https://www.paypal.com/signin</a></p>',
        true,
      ),
    );
    for (const t of [
      "from:brand-elsewhere",
      "fromhost:brand-elsewhere",
      "url:brand-elsewhere",
      "url:embedded-domain",
      "link:text-other-host",
      "url:risky-tld",
    ])
      expect({ t, present: phish.has(t) }).toEqual({ t, present: true });
    const genuine = await spamFeatures(
      mail(
        ['From: "PayPal" <service@paypal.com>', "List-Unsubscribe: <https://www.paypal.com/unsub>"],
        "Your receipt: https://www.paypal.com/activity",
      ),
    );
    for (const t of ["from:brand-elsewhere", "url:brand-elsewhere", "link:text-other-host"])
      expect({ t, present: genuine.has(t) }).toEqual({ t, present: false });
    expect(genuine.has("list:unsubscribe")).toBe(true);
    expect(genuine.has("url:all-from-domain")).toBe(true);
  });

  test("obfuscation and cue families, in more than one language", async () => {
    const tokens = await spamFeatures(
      mail(
        ["From: a@example.org"],
        "V\u200be\u200br\u200bi\u200bf\u200by now. W I N N E R crypto. Ϲlaim your wallet reward. Ihr Konto wurde gesperrt, bitte sofort bestätigen Sie Ihre Daten.",
      ),
    );
    for (const t of [
      "obf:spaced-letters",
      "obf:mixed-script",
      "cue:threat",
      "cue:urgency",
      "cue:credentials",
      "cue:prize",
      "cue:credentials+threat",
    ])
      expect({ t, present: tokens.has(t) }).toEqual({ t, present: true });
    expect([...tokens].some((t) => t.startsWith("obf:zero-width:"))).toBe(true);
    const plain = await spamFeatures(mail(["From: a@example.org"], "See you at lunch on Thursday."));
    expect([...plain].filter((t) => t.startsWith("obf:") || (t.startsWith("cue:") && !t.startsWith("cue:n:")))).toEqual([]);
  });

  test("scripts without spaces give character bigrams", async () => {
    const tokens = await spamFeatures(mail(["From: a@example.org"], "您的包裹无法派送"));
    expect(tokens.has("c2:包裹")).toBe(true);
  });

  test("character n-grams of words only when a model asks for them (its file's features)", async () => {
    const message = mail(["From: a@example.org", "Subject: Überweisung"], "Bitte bestätigen 您的包裹");
    const plain = await spamFeatures(message);
    expect([...plain].some((t) => t.startsWith("g:"))).toBe(false);
    const grams = await spamFeatures(message, {}, { wordGrams: 4 });
    for (const t of ["g:_bit", "g:itte", "g:tte_", "g:_übe", "g:ung_", "g:täti"]) expect(grams.has(t)).toBe(true);
    // Unspaced scripts keep their bigrams and give no word grams.
    expect(grams.has("c2:包裹")).toBe(true);
    expect([...grams].some((t) => t.startsWith("g:") && /\p{Script=Han}/u.test(t))).toBe(false);
  });

  test("one long run of digits, letters or look-alike letters costs linear work", async () => {
    // 100,000 characters on one line: the money cue and the mixed-script check each took
    // seconds of CPU (quadratic) before; linear, each is milliseconds.
    for (const line of ["7".repeat(100_000), "L".repeat(100_000), "\u0430a".repeat(50_000)]) {
      const started = process.cpuUsage();
      await spamFeatures(mail(["From: a@example.org"], line));
      expect(cpuMsSince(started)).toBeLessThan(1_000);
    }
  });

  test("a flagged verdict carries its reasons in words", async () => {
    const verdict = await classifySpam(
      mail(
        ['From: "DHL Express" <notice@dhl-parcel-redelivery.top>'],
        "Your parcel is on hold. A customs fee of 2.99 EUR is unpaid. Pay within 24 hours or it is returned to the sender: https://dhl-parcel-redelivery.top/pay",
      ),
    );
    expect(verdict.spam).toBe(true);
    expect(verdict.reasons.length).toBeGreaterThan(0);
    expect(verdict.reasons.every((r) => typeof r === "string" && r.length > 3)).toBe(true);
  });
});
