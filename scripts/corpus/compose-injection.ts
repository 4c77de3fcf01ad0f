// Composes the injection training slice for the combiner's fit (scripts/fit-injection.ts) from the
// fragment banks in fragments-injection.ts: per message a cover (support ticket, newsletter, code
// review, invoice, HR note, forwarded thread, outreach, personal mail), and for an attack one
// payload placed where attackers put it: in the body, in hidden HTML, in quoted history, in a
// signature's P.S., behind a fake forwarded header, or encoded (base64, ROT13) behind a "decode
// this". Benign mail carries a look-alike (security advisories quoting attacks, IT announcing an
// assistant, a colleague's forwarding request, verified bank changes, developer JSON, ordinary
// secrecy) in the same places, or nothing unusual at all. Deterministic for a seed; not committed.
//
//   bun scripts/corpus/compose-injection.ts [--n 1200] [--seed 7] [--out file.jsonl]
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { rng } from "./compose-spam.ts";
import { ATTACKS_EN, ATTACKS_INTL, COVERS, DATA_KINDS, LOOKALIKES_EN, LOOKALIKES_INTL } from "./fragments-injection.ts";
import type { CorpusRecord } from "./mail-file.ts";

const NAMES = [
  "Anna Kovacs",
  "Ben Osei",
  "Chloe Martin",
  "David Lund",
  "Elena Rossi",
  "Farid Haddad",
  "Grace Liu",
  "Hugo Berg",
  "Ines Duarte",
  "Jonas Weber",
];
const COMPANIES = [
  "Norvik Freight",
  "Altamira Labs",
  "Cobalt Ledger",
  "Brightwell",
  "Quillon",
  "Tessaro Group",
  "Harbor & Finch",
  "Meridia",
];
const OUTSIDE = [
  "archive-sync@proton.me",
  "records.desk@gmail.com",
  "audit-team@outlook.com",
  "backup@mail-mirror.io",
  "ops@securedocs-portal.net",
];
const IBANS = ["GB29 NWBK 6016 1331 9268 19", "DE89 3704 0044 0532 0130 00", "NL91 ABNA 0417 1643 00"];

type Placement = "inline" | "hidden" | "quoted" | "signature" | "forwarded" | "encoded";

type Banks = { en: { family: string; text: string[] }[]; intl: { language: string; text: string[] }[] };

/** `hard`: benign look-alikes only, from the given banks (fragments-injection-hard.ts), no plain covers. */
export function composeInjection(n = 1200, seed = 7, hard: Banks | null = null): CorpusRecord[] {
  const r = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const out: CorpusRecord[] = [];
  for (let i = 0; i < n; i++) {
    const attack = r() < 0.5 && hard === null;
    const cover = pick(COVERS);
    const name = pick(NAMES);
    const co = pick(COMPANIES);
    const fill = (s: string) =>
      s
        .replaceAll("{name_lc}", name.split(" ")[0]!.toLowerCase())
        .replaceAll("{co_lc}", co.toLowerCase().replace(/[^a-z]/g, ""))
        .replaceAll("{name}", name)
        .replaceAll("{co}", co)
        .replaceAll("{addr}", pick(OUTSIDE))
        .replaceAll("{data}", pick(DATA_KINDS))
        .replaceAll("{amount}", `€${(1000 + Math.floor(r() * 90000)).toLocaleString("en")}`)
        .replaceAll("{iban}", pick(IBANS))
        .replaceAll("{num2}", String(1000 + Math.floor(r() * 9000)))
        .replaceAll("{num}", String(1000 + Math.floor(r() * 9000)));
    let language = "en";
    let family: string;
    let payload: string | null;
    if (attack) {
      if (r() < 0.3) {
        const l = pick(ATTACKS_INTL);
        language = l.language;
        family = `intl-${l.language}`;
        payload = fill(pick(l.text));
      } else {
        const f = pick(ATTACKS_EN);
        family = f.family;
        payload = fill(pick(f.text));
        if (family === "decode-and-follow") {
          const inner = fill(pick(ATTACKS_EN.filter((a) => a.family === "exfiltration" || a.family === "override")).text[0]!);
          payload = payload.replace("{b64}", Buffer.from(inner).toString("base64")).replace("{rot}", rot13(inner));
        }
      }
    } else {
      const roll = r();
      if (roll < 0.25 && hard === null) {
        family = "ordinary";
        payload = null;
      } else if (roll < 0.45) {
        const l = pick(hard?.intl ?? LOOKALIKES_INTL);
        language = l.language;
        family = `intl-${l.language}`;
        payload = fill(pick(l.text));
      } else {
        const f = pick(hard?.en ?? LOOKALIKES_EN);
        family = f.family;
        payload = fill(pick(f.text));
      }
    }
    const placement: Placement =
      family === "decode-and-follow"
        ? "encoded"
        : pick(
            attack
              ? ["inline", "inline", "hidden", "quoted", "signature", "forwarded"]
              : ["inline", "inline", "inline", "quoted", "forwarded"],
          );
    const open = fill(pick(cover.open));
    const close = fill(pick(cover.close));
    const headers: [string, string][] = [
      ["From", `${name} <${name.split(" ")[0]!.toLowerCase()}@${co.toLowerCase().replace(/[^a-z]/g, "")}.com>`],
      ["Subject", subjectFor(cover.family, co, r)],
    ];
    let body: string;
    if (payload === null) body = `${open}\n\n${close}`;
    else if (placement === "hidden") {
      headers.push(["Content-Type", "text/html"]);
      const style = pick([
        "display:none",
        "color:#ffffff;font-size:1px",
        "font-size:0",
        "opacity:0;height:0;overflow:hidden",
        "visibility:hidden",
      ]);
      body = `<html><body><p>${html(open)}</p><div style="${style}">${html(payload)}</div><p>${html(close)}</p></body></html>`;
    } else if (placement === "quoted") {
      const quoted = `${open}\n\n${payload}`
        .split("\n")
        .map((l) => `> ${l}`)
        .join("\n");
      body = `${pick(["Thanks, noted.", "See below, handled.", "Agreed — let's go ahead.", "Replying inline."])}\n\nOn Mon, 11 May 2026, ${name} wrote:\n${quoted}\n\n${close}`;
    } else if (placement === "signature") {
      body = `${open}\n\n${close}\n--\n${name} | ${co}\nP.S. ${payload}`;
    } else if (placement === "forwarded") {
      body = `${pick(["FYI", "See below", "Forwarding for your records"])}\n\n---------- Forwarded message ---------\nFrom: ${co} <info@${co.toLowerCase().replace(/[^a-z]/g, "")}.com>\nSubject: ${subjectFor(cover.family, co, r)}\n\n${open}\n\n${payload}\n\n${close}`;
    } else body = `${open}\n\n${payload}\n\n${close}`;
    out.push({
      id: `ci${String(i).padStart(5, "0")}`,
      label: attack ? "injection" : "benign",
      family: `${family}-${placement}`,
      language,
      headers,
      body,
      file: "composed",
    });
  }
  return out;
}

function subjectFor(family: string, co: string, r: () => number): string {
  const by: Record<string, string[]> = {
    "support-ticket": ["Export timing out", "Charged twice", "Webhook stopped", "App logs me out"],
    newsletter: [`${co} weekly`, "This week in payments", "Your digest", "Community update"],
    "code-review": ["Re: [repo] Retry worker (#812)", "Review requested", "CI failed on main"],
    invoice: ["Invoice attached", "Statement Q1", "Payment reminder", `Receipt from ${co}`],
    hr: ["Benefits enrollment", "Welcome aboard", "Office closed Friday", "Security training"],
    "forwarded-thread": ["Fwd: Q2 planning", "FW: Contract renewal", "Fwd: Quote"],
    "sales-outreach": ["Quick question", "Case study as promised"],
    personal: ["Saturday?", "Thanks!"],
  };
  const xs = by[family] ?? ["Hello"];
  return xs[Math.floor(r() * xs.length)]!;
}

function html(s: string): string {
  return s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll("\n", "<br>");
}

function rot13(s: string): string {
  return s.replace(/[a-z]/gi, (c) => {
    const b = c <= "Z" ? 65 : 97;
    return String.fromCharCode(((c.charCodeAt(0) - b + 13) % 26) + b);
  });
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { n: { type: "string", default: "1200" }, seed: { type: "string", default: "7" }, out: { type: "string" } },
  });
  const records = composeInjection(Number(values.n), Number(values.seed));
  const text = records.map((x) => JSON.stringify(x)).join("\n");
  if (values.out) writeFileSync(values.out, `${text}\n`);
  else console.log(`${records.length} records: ${records.filter((x) => x.label === "injection").length} injection`);
}
