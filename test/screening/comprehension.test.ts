import { describe, expect, test } from "bun:test";
import { builtinEngine, chooseEngine } from "../../src/comprehension/engine.ts";
import { classifyMessage } from "../../src/comprehension/understanding/classify.ts";
import { type ComprehensionInput, extractFacts } from "../../src/comprehension/understanding/extract.ts";
import { isLabel, LABEL_NAMES, LABELS } from "../../src/comprehension/understanding/labels.ts";
import { fillSchema } from "../../src/comprehension/understanding/schema-fill.ts";
import { validate } from "../../src/comprehension/understanding/schema-validate.ts";
import { DEV, HELD_OUT, type Labelled, message } from "../fixtures/comprehension-messages.ts";
import { cpuMsSince } from "../support/cpu-time.ts";

const mail = (body: string, subject = "", extra: Partial<ComprehensionInput> = {}): ComprehensionInput => ({
  ...message({ subject, from: "someone@example.com", body }),
  ...extra,
});
const facts = (body: string, subject = "", extra: Partial<ComprehensionInput> = {}) => extractFacts(mail(body, subject, extra));

function score(set: Labelled[]) {
  const results = set.map(({ label, input }) => ({ want: label, got: classifyMessage(input) }));
  const right = results.filter((r) => r.got.label === r.want);
  const wrong = results.filter((r) => r.got.label !== r.want);
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return {
    accuracy: right.length / set.length,
    confidenceRight: mean(right.map((r) => r.got.confidence)),
    confidenceWrong: mean(wrong.map((r) => r.got.confidence)),
    results,
    misses: wrong.map((r) => `${r.want} → ${r.got.label} (${r.got.confidence})`),
  };
}

describe("labels", () => {
  test("a fixed documented set", () => {
    expect(new Set(LABEL_NAMES).size).toBe(LABELS.length);
    for (const l of LABELS) expect(l.description.length).toBeGreaterThan(10);
    expect(isLabel("newsletter")).toBe(true);
    expect(isLabel("spam")).toBe(false);
  });
});

describe("classification", () => {
  test("the labelled sets cover every label", () => {
    expect(DEV.length + HELD_OUT.length).toBeGreaterThanOrEqual(40);
    for (const label of LABEL_NAMES) {
      expect([...DEV, ...HELD_OUT].filter((m) => m.label === label).length).toBeGreaterThanOrEqual(3);
    }
  });

  test("accuracy on the development and held-out sets", () => {
    const dev = score(DEV);
    const held = score(HELD_OUT);
    console.log(
      `classification accuracy: dev ${dev.accuracy.toFixed(3)} (${DEV.length}), held-out ${held.accuracy.toFixed(3)} (${HELD_OUT.length})`,
    );
    console.log(`held-out misses: ${held.misses.join("; ") || "none"}`);
    expect(dev.accuracy).toBeGreaterThanOrEqual(0.9);
    expect(held.accuracy).toBeGreaterThanOrEqual(0.85);
  });

  test("confidence is a probability that tracks correctness, not a constant", () => {
    const all = score([...DEV, ...HELD_OUT]);
    for (const r of all.results) {
      expect(r.got.confidence).toBeGreaterThanOrEqual(0);
      expect(r.got.confidence).toBeLessThanOrEqual(1);
      expect(r.got.signals.length).toBeGreaterThan(0);
    }
    expect(new Set(all.results.map((r) => r.got.confidence)).size).toBeGreaterThan(10);
    expect(all.confidenceRight).toBeGreaterThan(all.confidenceWrong + 0.2);
  });

  test("header and structure signals outweigh friendly content", () => {
    const friendly = "Hi! Hope you are well. We have some news for you this week, read more below.";
    const listed = classifyMessage(
      mail(friendly, "News", { headers: { "list-id": "<news.example>", "list-unsubscribe": "<https://x.example/u>" } }),
    );
    expect(listed.label).toBe("newsletter");
    expect(listed.signals).toContain("header:list-id");
    const report = classifyMessage(mail("Hi, thanks!", "hello", { contentTypes: ["multipart/report", "message/delivery-status"] }));
    expect(report.label).toBe("bounce");
    const ics = classifyMessage(
      mail("see you there", "lunch", { attachments: [{ filename: "lunch.ics", contentType: "application/octet-stream" }] }),
    );
    expect(ics.label).toBe("calendar");
    const ooo = classifyMessage(mail("Thanks for your mail.", "Re: lunch", { headers: { "auto-submitted": "auto-replied" } }));
    expect(ooo.label).toBe("auto_reply");
  });

  test("nothing to go on is 'other' with low confidence", () => {
    const c = classifyMessage(mail("", "", { fromAddr: "noreply@x.example", headers: { "auto-submitted": "auto-generated" } }));
    expect(["other", "notification"]).toContain(c.label);
    expect(c.confidence).toBeLessThan(0.5);
  });
});

describe("verification codes", () => {
  test.each([
    ["Your verification code is 482913.", "482913"],
    ["482913 is your Acme code", "482913"],
    ["Enter this code to sign in:\n\n   739201\n\nIt expires in 10 minutes.", "739201"],
    ["Your 2FA code: 551 204", "551204"],
    ["G-318204 is your verification code.", "318204"],
    ["Your login code: X7KQ2P", "X7KQ2P"],
    ["One-time password (OTP): 8841", "8841"],
  ])("%p yields %p", (body, code) => {
    expect(facts(body).verification_codes).toEqual([code]);
  });

  test.each([
    ["no trigger word", "Meeting moved to room 4821 on floor 3."],
    ["a year", "Your verification code policy changed in 2026."],
    ["an amount", "Verification fee: $1500 due today."],
    ["a phone number", "Call 555-123-4567 if you did not request this code."],
    ["a promo code", "Get 25% off this week. Use code BLOOM25 at checkout."],
    ["an error code", "The app shows error code 5003 when I open it."],
    ["an order number", "Order #123456 confirmed. Use the code on your receipt."],
    ["digits in a link", "Your code is in the app: https://x.example/verify/123456"],
    ["a long number", "Verification reference 12345678901234"],
    ["a ZIP code", "Ship to Portland, OR zip code 97201"],
  ])("none for %s", (_why, body) => {
    expect(facts(body).verification_codes).toEqual([]);
  });
});

describe("links", () => {
  test("sign-in, reset and unsubscribe links are told apart", () => {
    const f = facts(
      [
        "Sign in to Notely [https://notely.example/auth/magic?token=abc]",
        "Reset your password [https://notely.example/reset?t=1]",
        "Read our blog (https://notely.example/blog/post-1).",
        "Unsubscribe [https://notely.example/prefs?id=9]",
      ].join("\n"),
      "",
      { headers: { "list-unsubscribe": "<mailto:u@notely.example>, <https://notely.example/u/9>" } },
    );
    expect(f.sign_in_links).toEqual(["https://notely.example/auth/magic?token=abc"]);
    expect(f.password_reset_links).toEqual(["https://notely.example/reset?t=1"]);
    expect(f.unsubscribe_links).toEqual(["https://notely.example/u/9", "https://notely.example/prefs?id=9"]);
    expect(f.links).toContain("https://notely.example/blog/post-1");
  });

  test("path hints alone: /login, /verify, /magic", () => {
    expect(facts("Continue here: https://a.example/login?next=/").sign_in_links).toHaveLength(1);
    expect(facts("https://a.example/email/verify/77?sig=1").sign_in_links).toHaveLength(1);
    expect(facts("Read the story https://a.example/news/how-we-verify-facts").sign_in_links).toEqual([]);
    expect(facts("Docs: https://login.example.com/docs/intro").sign_in_links).toEqual([]);
  });

  test("links are capped and trimmed of punctuation", () => {
    const many = Array.from({ length: 50 }, (_, i) => `https://x.example/${i}`).join(" ");
    expect(facts(many).links).toHaveLength(20);
    expect(facts("See https://x.example/a_(b)).").links).toEqual(["https://x.example/a_(b)"]);
  });
});

describe("dates, amounts, orders, tracking, phones", () => {
  test("dates in common formats", () => {
    const f = facts(
      "Due March 3, 2026. Starts 2026-04-01. Paid 03/15/2026 and 25.12.2026. Call tomorrow at 3pm. Ends 14 July 2026 at 9:30 am. Sometime in May 5.",
    );
    expect(f.dates).toEqual(["2026-03-03", "2026-04-01", "2026-03-15", "2026-12-25", "tomorrow at 3pm", "2026-07-14T09:30", "May 5"]);
  });

  test("impossible dates are not dates", () => {
    expect(facts("Version 2026-13-45 and 02/30/2026 and 99/99/2026").dates).toEqual([]);
  });

  test("amounts with symbols and codes", () => {
    const f = facts("Total $1,234.56, fee €12,50, refund 15.00 EUR, rent USD 1,450, tip £3 and ¥500.");
    expect(f.amounts.map((a) => [a.value, a.currency])).toEqual([
      [1234.56, "USD"],
      [12.5, "EUR"],
      [15, "EUR"],
      [1450, "USD"],
      [3, "GBP"],
      [500, "JPY"],
    ]);
    expect(facts("We have 1,234 users and 50 percent growth.").amounts).toEqual([]);
  });

  test("order numbers", () => {
    expect(facts("Order #12345 has shipped").order_numbers).toEqual(["12345"]);
    expect(facts("order number: AB-1234").order_numbers).toEqual(["AB-1234"]);
    expect(facts("Order ID 112-1234567-1234567").order_numbers).toEqual(["112-1234567-1234567"]);
    expect(facts("Your order has shipped. Order now and save. In order to 2026").order_numbers).toEqual([]);
  });

  test("tracking numbers with carriers", () => {
    expect(facts("UPS: 1Z999AA10123456784").tracking_numbers).toEqual([{ carrier: "UPS", number: "1Z999AA10123456784" }]);
    expect(facts("USPS Tracking 9400 1000 0000 0000 0000 00").tracking_numbers).toEqual([
      { carrier: "USPS", number: "9400100000000000000000" },
    ]);
    expect(facts("Your FedEx tracking: 123456789012").tracking_numbers).toEqual([{ carrier: "FedEx", number: "123456789012" }]);
    expect(facts("DHL shipment 1234567890 is on its way").tracking_numbers).toEqual([{ carrier: "DHL", number: "1234567890" }]);
    expect(facts("Registered mail EA123456789US").tracking_numbers).toEqual([{ carrier: "USPS", number: "EA123456789US" }]);
    expect(facts("Tracking number: ZX81234567 (GLS)").tracking_numbers).toEqual([{ carrier: "GLS", number: "ZX81234567" }]);
    expect(facts("Account 123456789012 balance and ticket 1234567890").tracking_numbers).toEqual([]);
  });

  test("phone numbers", () => {
    expect(facts("Call +1 (555) 123-4567 or +44 20 7946 0958.").phone_numbers).toEqual(["+1 (555) 123-4567", "+44 20 7946 0958"]);
    expect(facts("Dated 2026-03-03, build 4.2.1, order 123-45").phone_numbers).toEqual([]);
  });
});

describe("linear time on hostile input", () => {
  const MB = 1_000_000;
  const fill = (unit: string) => unit.repeat(Math.ceil(MB / unit.length)).slice(0, MB);
  const hostile: Record<string, string> = {
    digits: fill("1"),
    letters: fill("a"),
    spaces: fill(" "),
    "code triggers": fill("code 1234 "),
    "digit groups": fill("12 "),
    "url start": fill("https://"),
    "url parens": `https://x.example/${fill(")")}`,
    "url punctuation": `https://x.example/${fill(".")}a`,
    emails: fill("a.b+c@"),
    order: fill("order # "),
    amounts: fill("$1,"),
    months: fill("March "),
    weekdays: fill("next Monday at "),
    tracking: fill("9400 "),
    carriers: fill("fedex 123456789012 "),
    "label lines": fill("Order number: value\n"),
    dashes: fill("-"),
  };
  const schema = {
    type: "object",
    properties: {
      order_number: { type: "string" },
      total: { type: "number" },
      due_date: { type: "string" },
      is_urgent: { type: "boolean" },
      priority: { enum: ["low", "high"] },
    },
  };
  test.each(Object.keys(hostile))("%s (1 MB)", (name) => {
    const input = mail(hostile[name]!, "subject", { schema });
    const start = process.cpuUsage();
    const f = extractFacts(input);
    classifyMessage(input, f);
    fillSchema(schema, input, f);
    expect(cpuMsSince(start)).toBeLessThan(3000);
  });
});

describe("schema fill", () => {
  const receipt = mail(
    "Thanks for your order!\nOrder number: AB-99120\nSubtotal: £32.99\nTotal: £35.98\nPayment due by April 2, 2026.\nPriority: High\nCustomer: Ada Lovelace\nItems: book, pen, ink\nThis is URGENT, please ship asap.",
    "Order confirmation",
    { fromAddr: "orders@bookshop.example" },
  );
  const schema = {
    type: "object",
    required: ["order_number", "total"],
    properties: {
      order_number: { type: "string" },
      total: { type: "number", description: "grand total" },
      currency: { type: "string" },
      due_date: { type: "string" },
      priority: { type: "string", enum: ["low", "normal", "high"] },
      is_urgent: { type: "boolean" },
      customer: { type: "string", title: "Customer" },
      items: { type: "array", items: { type: "string" } },
      sender: { type: "string" },
      subject: { type: "string" },
      quantity: { type: "integer" },
    },
  };

  test("fills properties from facts, label lines and keywords, coerced to their types", () => {
    const r = fillSchema(schema, receipt, extractFacts(receipt));
    expect(r.values).toEqual({
      order_number: "AB-99120",
      total: 35.98,
      currency: "GBP",
      due_date: "2026-04-02",
      priority: "high",
      is_urgent: true,
      customer: "Ada Lovelace",
      items: ["book", "pen", "ink"],
      sender: "orders@bookshop.example",
      subject: "Order confirmation",
    });
    expect(r.missing_required).toEqual([]);
    expect(validate(schema, r.values)).toEqual([]);
  });

  test("a missing required property makes the builtin result partial and is named", async () => {
    const input = {
      ...mail("Hello, just checking in about next week.", "hi"),
      schema: {
        ...schema,
        required: ["order_number", "tracking_number"],
        properties: { ...schema.properties, tracking_number: { type: "string" } },
      },
    };
    const result = await builtinEngine.comprehend(input);
    expect(result.status).toBe("partial");
    expect(result.engine).toBe("builtin");
    expect(result.extraction_error?.missing_required).toEqual(["order_number", "tracking_number"]);
    expect(result.extraction_error?.message).toContain("order_number");
    expect(result.classification).not.toBeNull();
  });

  test("all required found → complete, with facts and schema_fields", async () => {
    const result = await builtinEngine.comprehend({ ...receipt, schema });
    expect(result.status).toBe("complete");
    expect(result.extraction_error).toBeNull();
    expect(result.extraction?.schema_fields?.order_number).toBe("AB-99120");
    expect(result.extraction?.facts.order_numbers).toEqual(["AB-99120"]);
    expect(result.confidence).toBe(result.classification!.confidence);
  });

  test("coercion: enum, boolean, number, integer; values that do not fit are dropped", () => {
    const input = mail(
      "Status: In Progress\nApproved: yes\nSeats: 12\nScore: 7.5\nCode: abc\nCount: 3.5\nLevel: extreme\nAmount: 1.234,50 EUR",
      "x",
    );
    const s = {
      type: "object",
      required: ["level"],
      properties: {
        status: { enum: ["open", "in_progress", "closed"] },
        approved: { type: "boolean" },
        seats: { type: "integer", minimum: 1, maximum: 100 },
        score: { type: "number" },
        count: { type: "integer" },
        level: { type: "string", enum: ["low", "high"] },
        amount: { type: "number" },
      },
    };
    const r = fillSchema(s, input, extractFacts(input));
    expect(r.values).toEqual({ status: "in_progress", approved: true, seats: 12, score: 7.5, amount: 1234.5 });
    expect(r.missing_required).toEqual(["level"]);
  });

  test("a found value that breaks the schema is rejected, not forced", () => {
    const input = mail("Reference: ABC", "x");
    const s = { type: "object", required: ["reference"], properties: { reference: { type: "string", pattern: "^[0-9]+$" } } };
    const r = fillSchema(s, input, extractFacts(input));
    expect(r.values).toEqual({});
    expect(r.missing_required).toEqual(["reference"]);
    expect(r.errors[0]).toContain("/reference");
  });

  test("a labelled line that does not fit gives way to the text", () => {
    const input = mail("Priority: whenever you can\nThe server is down, this is high priority for us.", "x");
    const s = { type: "object", properties: { priority: { enum: ["low", "high"] } } };
    expect(fillSchema(s, input, extractFacts(input)).values).toEqual({ priority: "high" });
  });

  test("category-like enums take the classification label", () => {
    const input = mail("Your verification code is 482913", "Your code");
    const s = { type: "object", properties: { category: { enum: ["verification_code", "newsletter"] }, code: { type: "string" } } };
    const r = fillSchema(s, input, extractFacts(input), classifyMessage(input).label);
    expect(r.values).toEqual({ category: "verification_code", code: "482913" });
  });
});

describe("validator (Ajv, draft-07; more in extraction-schema.test.ts)", () => {
  const s = {
    type: "object",
    required: ["a"],
    properties: {
      a: { type: "string", minLength: 2, maxLength: 4, pattern: "^x" },
      b: { type: ["integer", "null"], minimum: 0, maximum: 9 },
      c: { type: "array", items: { enum: ["p", "q"] } },
      d: { type: "string", format: "email", "x-custom": true },
    },
  };
  test("accepts what fits, rejects what does not, with the path of each problem; vendor keywords are ignored", () => {
    expect(validate(s, { a: "xy", b: null, c: ["p"], d: "pat@example.com" })).toEqual([]);
    expect(validate(s, { a: "xy", d: "not an email" })).toEqual(['/d: must match format "email"']);
    expect(validate(s, { b: 1.5 })).toEqual(["/a: required", "/b: must be integer,null"]);
    expect(validate(s, { a: "y" })).toEqual(["/a: must NOT have fewer than 2 characters", "/a: does not match pattern"]);
    expect(validate(s, { a: "xyzzy", b: 10, c: ["r"] })).toEqual([
      "/a: must NOT have more than 4 characters",
      "/b: must be <= 9",
      '/c/0: must be one of "p", "q"',
    ]);
  });
  test("nested quantifier patterns are not run", () => {
    expect(validate({ type: "string", pattern: "^(a+)+$" }, `${"a".repeat(40)}!`)).toEqual([]);
  });
});

describe("engine choice", () => {
  test("builtin without a URL and model; llm with both", () => {
    expect(chooseEngine({ llmUrl: null, llmModel: null, llmApiKey: null, llmTimeoutMs: 1000 }).name).toBe("builtin");
    expect(chooseEngine({ llmUrl: "http://127.0.0.1:1/v1", llmModel: null, llmApiKey: null, llmTimeoutMs: 1000 }).name).toBe("builtin");
    expect(chooseEngine({ llmUrl: "http://127.0.0.1:1/v1", llmModel: "m", llmApiKey: null, llmTimeoutMs: 1000 }).name).toBe("llm");
  });
});

describe("classification weights are data", () => {
  test("every rule has its weight in classify-weights.json, and the file names no rule that is gone", async () => {
    const { CLASSIFY_WEIGHTS, WEIGHTED_RULES, ruleKey } = await import("../../src/comprehension/understanding/classify.ts");
    const keys = WEIGHTED_RULES.map(ruleKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(Object.keys(CLASSIFY_WEIGHTS.rules).sort()).toEqual([...keys].sort());
    for (const r of WEIGHTED_RULES) expect(r.weight).toBeGreaterThan(0);
  });
  test("classify.ts writes no weight into a rule", async () => {
    const text = await Bun.file(new URL("../../src/comprehension/understanding/classify.ts", import.meta.url)).text();
    expect(text).not.toMatch(/\bweight: \d/);
    expect(text).not.toMatch(/\* 0\.\d|>= \d\b/);
  });
});
