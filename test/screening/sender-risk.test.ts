// Sender risk: each signal on its own, the hand-written corpus (test/fixtures/sender-risk/) at the
// targets, and the context screening reads from the database (known correspondents, mailboxes).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { evaluateSenderRisk } from "../../scripts/eval-sender-risk.ts";
import { assessSenderRisk, type SenderContext, type SenderRiskInput } from "../../src/comprehension/sender-risk/assess.ts";
import { domainOf, imitation, skeleton } from "../../src/comprehension/sender-risk/domains.ts";
import { acceptInbound } from "../../src/core/inbound/store.ts";
import { screenMessage } from "../../src/core/screening/screen.ts";
import { makeAccount, makeMailbox, makeTestContext, type TestContext } from "../support/context.ts";
import { mailboxRow } from "../support/mailbox-row.ts";

const context: SenderContext = {
  accountDomains: ["acme-robotics.com"],
  people: [{ name: null, email: "laura.becker@acme-robotics.com" }],
  mailboxes: [{ address: "ap@acme-robotics.com", displayName: "Acme Accounts Payable" }],
  correspondents: [{ address: "billing@northwind-supplies.com", name: "Karen Holt", messages: 9 }],
};
const base: SenderRiskInput = {
  fromHeader: "Karen Holt <billing@northwind-supplies.com>",
  fromAddr: "billing@northwind-supplies.com",
  replyTo: null,
  listId: null,
  subject: "Invoice NW-100",
  body: "Please find invoice NW-100 attached, payable to the account on file.",
  auth: { spf: "pass", dkim: "pass", dmarc: "pass" },
  context,
};
const names = (input: Partial<SenderRiskInput>) => assessSenderRisk({ ...base, ...input }).signals.map((s) => s.name);

describe("signals", () => {
  test("a known, authenticated correspondent's ordinary invoice is low with no signal", () => {
    expect(assessSenderRisk(base)).toEqual({ level: "low", score: 0, signals: [] });
  });

  test("lookalike domains: letters swapped, digits, other scripts, another suffix, a word added, a subdomain", () => {
    const known = domainOf("northwind-supplies.com")!;
    for (const host of [
      "northwind-suppIies.com",
      "n0rthwind-supplies.com",
      "nоrthwind-supplies.com",
      "northwind-supplies.co",
      "northwind-supplies-billing.com",
      "northwind-supplies.com.pay-center.net",
    ])
      expect(imitation(domainOf(host)!, known)).not.toBeNull();
    for (const host of ["northwind-supplies.com", "southwind-tools.com", "example.org"])
      expect(imitation(domainOf(host)!, known)).toBeNull();
    expect(skeleton("gl0bex")).toBe(skeleton("globex"));
    expect(names({ fromAddr: "billing@northwind-suppiies.com", fromHeader: "Karen Holt <billing@northwind-suppiies.com>" })).toContain(
      "lookalike_domain",
    );
  });

  test("DMARC failure of the From domain, and its weaker form on a mailing list", () => {
    expect(names({ auth: { spf: "fail", dkim: "none", dmarc: "fail" } })).toEqual(["dmarc_fail"]);
    expect(names({ auth: { spf: "fail", dkim: "fail", dmarc: "fail" }, listId: "<list.example.org>" })).toEqual(["dmarc_fail_list"]);
    expect(names({ auth: { spf: "none", dkim: "none", dmarc: "none" } })).toEqual(["not_authenticated_known_domain"]);
  });

  test("Reply-To elsewhere, to free mail, and to a known domain (no signal)", () => {
    expect(names({ replyTo: "someone@other-company.example" })).toEqual(["reply_to_elsewhere"]);
    expect(names({ replyTo: "northwind.billing@gmail.com" })).toEqual(["reply_to_freemail"]);
    expect(names({ replyTo: "ap@acme-robotics.com" })).toEqual([]);
  });

  test("display names borrowed from the account's people, mailboxes and correspondents", () => {
    const free = { fromAddr: "x.y@gmail.com" };
    expect(names({ ...free, fromHeader: "Laura Becker <x.y@gmail.com>" })).toContain("display_name_impersonation");
    expect(names({ ...free, fromHeader: "Acme Accounts Payable <x.y@gmail.com>" })).toContain("display_name_impersonation");
    expect(names({ ...free, fromHeader: "Karen Holt <x.y@gmail.com>" })).toContain("display_name_impersonation");
    expect(names({ ...free, fromHeader: "Someone Else <x.y@gmail.com>" })).toEqual(["first_contact"]);
  });

  test("payment wording: a change in several languages, with verification offered, pressure, money requests", () => {
    for (const body of [
      "Our bank details have changed, please use the new account below.",
      "Nos coordonnées bancaires ont changé, merci d'utiliser notre nouveau RIB.",
      "Unsere Bankverbindung hat sich geändert.",
      "Hemos cambiado de entidad bancaria.",
      "Le nostre coordinate bancarie sono variate.",
      "Onze bankgegevens zijn gewijzigd.",
      "振込先口座を変更いたしました。",
      "Banka hesap bilgilerimiz değişmiştir, yeni IBAN aşağıdadır.",
      "Наши банковские реквизиты изменились.",
      "我们的收款账户已变更。",
      "입금 계좌가 변경되었습니다.",
      "Oznamujeme změnu bankovního účtu.",
      "Vi har nytt bankgiro från och med 1 mars.",
      "Nomor rekening kami telah berubah.",
    ])
      expect(names({ body })).toContain("payment_change");
    expect(names({ body: "We changed banks. Please verify by calling us on the number you already have on file." })).toEqual([
      "payment_change_verified",
    ]);
    expect(names({ body: "Buy 5 Apple gift cards now and keep this between us." })).toEqual(["money_request", "pressure"]);
    expect(names({ body: "5 adet hediye kartı alın ve bunu gizli tutun." })).toEqual(["money_request", "pressure"]);
    expect(names({ body: "Купите подарочные карты, это конфиденциально." })).toEqual(["money_request", "pressure"]);
    const compromised = assessSenderRisk({
      ...base,
      body: "Our bank details have changed. IBAN: GB29 NWBK 6016 1331 9268 19. Do not call the office.",
    });
    // A compromised vendor mailbox: authenticated and known, but asking to skip the call back.
    expect(compromised.level).not.toBe("low");
    // The honest notice from the same sender, pointing back to the number on file, stays low.
    const honest = assessSenderRisk({
      ...base,
      body: "We changed banks. Please verify by calling us on the number you already have on file before the next payment.",
    });
    expect(honest.level).toBe("low");
  });

  test("an IBAN counts only with a valid ISO 13616 checksum; secrecy counts only about money", async () => {
    const { ibanValid } = await import("../../src/mail/payment-wording.ts");
    expect(ibanValid("GB29 NWBK 6016 1331 9268 19")).toBe(true);
    expect(ibanValid("DE89 3704 0044 0532 0130 00")).toBe(true);
    expect(ibanValid("GB29 NWBK 6016 1331 9268 18")).toBe(false);
    expect(names({ body: "Strictly confidential draft, don't mention it to the press yet." })).toEqual([]);
  });

  test("mailing lists: Reply-To to the list's domain, or any Reply-To from a stranger, is not a signal", () => {
    const stranger = { fromHeader: "Ann <ann@uni.example>", fromAddr: "ann@uni.example" };
    expect(names({ ...stranger, replyTo: "users@lists.example.org", listId: "<users.lists.example.org>" })).toEqual(["first_contact"]);
    expect(names({ ...stranger, replyTo: "users@other.example.org", listId: "<users.lists.example.org>" })).toEqual(["first_contact"]);
    // a known sender's domain on a "list" sending replies elsewhere still counts (a list header is the sender's to write)
    expect(names({ replyTo: "x@elsewhere.example", listId: "<users.lists.example.org>" })).toEqual(["reply_to_elsewhere"]);
  });

  test("link text naming a known site with a target elsewhere", () => {
    const body = "Pay here: https://portal.northwind-supplies.com/pay [https://northwind-pay.example.net/x]";
    expect(names({ body })).toContain("link_mismatch_known");
    expect(names({ body: "Read more www.northwind-supplies.com [https://click.northwind-supplies.com/t/1]" })).toEqual([]);
  });

  test("a correction: mail from an address the account reported as fraud", () => {
    expect(assessSenderRisk({ ...base, reportedFraud: true }).level).toBe("high");
  });
});

describe("corpus (test/fixtures/sender-risk)", () => {
  test("blind part: fraud recall ≥ 0.90 at ≤ 5% genuine flagged (the targets); tuning part likewise", async () => {
    for (const set of ["tuning", "blind"] as const) {
      const scores = await evaluateSenderRisk(set);
      expect(scores.fraud + scores.genuine).toBeGreaterThanOrEqual(50);
      expect(scores.recall).toBeGreaterThanOrEqual(0.9);
      expect(scores.genuineFlagged).toBeLessThanOrEqual(0.05);
    }
  });
});

describe("in screening, with the mailbox's correspondents from the database", () => {
  let ctx: TestContext;
  let inbox: { id: string; address: string };
  beforeAll(async () => {
    ctx = await makeTestContext({ DELIVERY_TRANSPORT: "local" });
    const owner = await makeAccount(ctx);
    inbox = await makeMailbox(ctx, owner, "payables");
    // The mailbox has written to its vendor: a known correspondent.
    const sent = await ctx.request("POST", "/api/v1/send", {
      key: owner.key,
      body: { mailbox_id: inbox.id, to: "billing@northwind-supplies.example", subject: "PO 1", text: "Please confirm." },
    });
    expect(sent.status).toBe(201);
  });
  afterAll(() => ctx.close());

  const screened = async (from: string, body: string) => {
    const raw = new TextEncoder().encode(
      `From: ${from}\r\nTo: ${inbox.address}\r\nSubject: Invoice\r\nMessage-ID: <${crypto.randomUUID()}@x.example>\r\nDate: ${new Date().toUTCString()}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${body}\r\n`,
    );
    const [id] = await acceptInbound(ctx.svc, raw, [(await mailboxRow(ctx, inbox.id))!], { remoteIp: null, helo: null, mailFrom: null });
    await screenMessage(ctx.svc, id!);
    return (await ctx.sql`select comprehension from messages where id = ${id}`)[0]!.comprehension;
  };

  test("a lookalike of the vendor the mailbox wrote to is high; the vendor itself is low; both in classification", async () => {
    const fake = await screened(
      "Northwind Billing <billing@northwind-suppIies.example>",
      "Hello,\r\n\r\nThanks for the order. The May deliveries went out this morning and the invoice follows next week.\r\n\r\nKind regards,\r\nNorthwind",
    );
    expect(fake.sender_risk.level).toBe("high");
    expect(fake.sender_risk.signals.map((s: { name: string }) => s.name)).toContain("lookalike_domain");
    expect(fake.classification.sender_risk.level).toBe("high");
    // The event payload (webhook and event log) carries it inside classification; the contract's field set is unchanged.
    const [event] = await ctx.sql`select payload from event_log where type = 'message.received' order by position desc limit 1`;
    const payload = typeof event!.payload === "string" ? JSON.parse(event!.payload) : event!.payload;
    expect(payload.classification.sender_risk.level).toBe("high");
    expect(Object.keys(payload)).not.toContain("sender_risk");
    const real = await screened(
      "Northwind Billing <billing@northwind-supplies.example>",
      "Hello,\r\n\r\nThanks for the order. The May deliveries went out this morning and the invoice follows next week.\r\n\r\nKind regards,\r\nNorthwind",
    );
    expect(real.sender_risk.level).toBe("low");
    expect(real.classification.sender_risk).toEqual({ level: "low", signals: [] });
  });

  test("a bank-change request from the lookalike: the injection detector's fraud family skips comprehension, sender risk still recorded", async () => {
    const fake = await screened(
      "Northwind Billing <billing@northwind-suppIies.example>",
      "Our bank details have changed. Please pay today to IBAN GB29 NWBK 6016 1331 9268 19 and do not call our office.",
    );
    expect(fake.sender_risk.level).toBe("high");
    if (fake.status === "skipped_injection_risk") {
      expect(fake.decided_by).toBe("injection");
      expect(fake.classification).toBeNull();
    }
  });
});
