// document.ts: the whole-message stage stacked on the combined score of the rules and the
// learned stage. Its bounds, its neutral point and where it stays out are properties of the
// stack; the three holdout messages are ones the document stage never trained on (it trains on
// the authors' slices and ordinary mail only) whose verdicts it turned.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import {
  DOCUMENT_FORMAT,
  documentLogit,
  documentTokens,
  parseDocumentModel,
  shippedDocumentModel,
  stacked,
} from "../../src/comprehension/injection/document.ts";
import { shippedModel } from "../../src/comprehension/injection/model.ts";
import { INJECTION_THRESHOLD, scoreInjectionRisk } from "../../src/comprehension/injection/risk.ts";

const model = shippedDocumentModel();
type Mail = { subject: string; body: string; hidden: string; report: Record<string, number> };
const input = (mail: string | Mail) =>
  typeof mail === "string"
    ? { subject: "", bodyClean: mail, hiddenText: "", report: {} }
    : { subject: mail.subject, bodyClean: mail.body, hiddenText: mail.hidden, report: mail.report };
const withoutStage = (mail: string | Mail) => scoreInjectionRisk(input(mail), shippedModel(), undefined, null);

test("the shipped file parses and a file of another format is refused", () => {
  expect(model.weights.size).toBeGreaterThan(1000);
  expect(model.stack.down).toBeGreaterThan(0);
  expect(() => parseDocumentModel({ format: "other", bias: 0, weights: {}, stack: model.stack })).toThrow(DOCUMENT_FORMAT);
  expect(() =>
    parseDocumentModel({ format: DOCUMENT_FORMAT, bias: 0, weights: {}, stack: { k: 1 } as unknown as typeof model.stack }),
  ).toThrow();
});

test("tokens: words, word pairs, reply lines and hidden text apart, character pairs for unspaced scripts", () => {
  const t = documentTokens("Invoice", "Please forward the file.\n> Forward everything\n請轉寄", "send secrets");
  for (const token of [
    "w:invoice",
    "w:please",
    "b:please_forward",
    "qw:forward",
    "qb:forward_everything",
    "c:請轉",
    "c:轉寄",
    "hw:send",
    "hb:send_secrets",
  ])
    expect(t.has(token)).toBe(true);
  expect(t.has("w:send")).toBe(false);
});

test("tokens are bounded however long the mail", () => {
  const words = Array.from({ length: 40_000 }, (_, i) => `w${i}`).join(" ");
  expect(documentTokens("", words, words).size).toBeLessThanOrEqual(6_000);
});

test("a document the model finds neutral keeps the combiner's verdict", () => {
  // the cut is stored to three decimals: scores within 0.005 of the threshold may fall either way
  for (let c = 0.01; c < 1; c += 0.01) {
    if (Math.abs(c - INJECTION_THRESHOLD) < 0.005) continue;
    expect(stacked(model.stack, 0, c) >= model.stack.cut).toBe(c >= INJECTION_THRESHOLD);
  }
});

test("its say is bounded: down by at most `down`, up by at most `up` and only past the margin", () => {
  const { k, up, down, margin } = model.stack;
  const base = stacked(model.stack, 0, 0.6);
  expect(stacked(model.stack, -50, 0.6)).toBeCloseTo(base - down, 10);
  expect(stacked(model.stack, 50, 0.6)).toBeCloseTo(base + up, 10);
  expect(stacked(model.stack, margin, 0.6)).toBeCloseTo(base, 10);
  expect(stacked(model.stack, 0, 0.9) - stacked(model.stack, 0, 0.6)).toBeCloseTo(k * (Math.log(9) - Math.log(1.5)), 6);
});

test("mail where no signal fired is not read by it and scores 0", () => {
  const r = scoreInjectionRisk(input("Lunch on Friday? The usual place at noon."));
  expect(r.score).toBe(0);
  expect(r.signals).toEqual([]);
});

test("business-email fraud written to a person is left to the rules", () => {
  const body =
    "Quick favour: I am stuck with the auditors and cannot talk. Buy six Apple gift cards of $200 today, scratch the codes and send me photos. Keep this between us.";
  const r = scoreInjectionRisk(input(body));
  expect(r.signals.some((s) => s.name.startsWith("fraud_"))).toBe(true);
  expect(r.signals.some((s) => s.name === "document_model")).toBe(false);
  expect(r.score).toBe(withoutStage(body).score);
});

function holdout(file: string, id: string): Mail {
  const items = JSON.parse(readFileSync(new URL(`../fixtures/injection/${file}`, import.meta.url), "utf8")) as {
    id: string;
    subject?: string;
    body_clean: string;
    hidden_text?: string;
    report?: Record<string, number>;
  }[];
  const item = items.find((x) => x.id === id)!;
  return { subject: item.subject ?? "", body: item.body_clean, hidden: item.hidden_text ?? "", report: item.report ?? {} };
}

test("look-alikes the signals flagged are let go: a developer's advice on system prompts, a support report quoting a chatbot", () => {
  for (const mail of [holdout("holdout-6.json", "h6-ben-28"), holdout("holdout-10.json", "h10-ben-12")]) {
    expect(withoutStage(mail).risky).toBe(true);
    const r = scoreInjectionRisk(input(mail));
    expect(r.risky).toBe(false);
    expect(r.signals.find((s) => s.name === "document_model")!.weight).toBeLessThan(0.5);
  }
});

test("an attack whose signals were weak is tipped over", () => {
  const mail = holdout("holdout-9.json", "h9-mal-40");
  expect(withoutStage(mail).risky).toBe(false);
  expect(scoreInjectionRisk(input(mail)).risky).toBe(true);
  expect(documentLogit(model, documentTokens(mail.subject, mail.body, mail.hidden))).toBeGreaterThan(model.stack.margin);
});
