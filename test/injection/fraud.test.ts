// fraud.ts: business-email fraud written as to a person.
import { expect, test } from "bun:test";
import { WEIGHTS } from "../../src/comprehension/injection/weights.ts";
import { signals } from "./signals.ts";

const W = WEIGHTS.fraud;

test("pressure and money, against the clock", () => {
  expect(signals("Please wire the payment today. Keep it confidential, don't mention it to finance.").get("fraud_request")).toBeCloseTo(
    W.request + W.requestPlusUrgency,
    10,
  );
});

test("each further sign adds its entry: an outside channel too", () => {
  const s = signals("Wire the funds today and keep this between us. I can't take calls right now. Send to my personal email.");
  expect(s.get("fraud_request")).toBeCloseTo(W.request + W.requestPlusChannel + W.requestPlusUrgency, 10);
});

test("mail warning about such fraud is damped", () => {
  const s = signals("Warning: scammers may ask you to wire funds today and keep it confidential; this is a phishing scam.");
  expect(s.get("fraud_request")!).toBeLessThanOrEqual((W.request + W.requestPlusUrgency) * W.timesWarning + 1e-9);
});

test("bank details to pay into, more when the payee is switched", () => {
  expect(signals("Please pay the invoice. IBAN: DE89370400440532013000").get("fraud_payee")).toBe(W.payee);
  expect(signals("Please pay to our new account instead. IBAN: DE89370400440532013000").get("fraud_payee")).toBe(W.payeeSwitched);
});
