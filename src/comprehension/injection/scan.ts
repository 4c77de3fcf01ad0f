// Runs every family over one piece of text (visible body, hidden text, or a decoded payload),
// damps hits that sit in third-person discussion, reported speech or quotation, and turns them
// into named, weighted signals with a short excerpt as evidence.

import { addressFamilies, hiddenImperative } from "./address.ts";
import { annotate } from "./annotate.ts";
import { combineHits } from "./combine.ts";
import { type Decoded, findEncoded, looksRot13, rot13Tokens } from "./decode.ts";
import { exfilFamilies } from "./exfil.ts";
import { fraudFamilies } from "./fraud.ts";
import { multilingualHits } from "./multilingual.ts";
import { overrideFamilies } from "./override.ts";
import { personaFamilies } from "./persona.ts";
import SCAN_WORDS from "./scan-words.json" with { type: "json" };
import { latinSkeleton } from "./skeleton.ts";
import { steerFamilies } from "./steer.ts";
import { structureHits } from "./structure.ts";
import { findLinks, type Token, tokenize } from "./text.ts";
import { attackTopicSpans } from "./topic.ts";
import { reportedTurns } from "./transcript.ts";
import { assistantLabelEnds, unattendedHits } from "./unattended.ts";
import { type Hit, View } from "./view.ts";
import { CUTOFFS, WEIGHTS as W } from "./weights.ts";

export type Origin = "body" | "hidden" | "decoded";
export type Signal = { name: string; weight: number; evidence: string };

const EVIDENCE_MAX = 120;
// Context factors (weights.json "context", read at each call so scripts/fit-injection.ts can
// try values): hidden placement is itself a strong sign, nobody hides text meant for the human
// reader (timesHidden); a sentence written as discussion ("researchers showed that ...") is
// damped (timesFramed), as are words in quotes or code (timesQuoted) and, fitted separately,
// lines of an earlier message quoted in a reply (timesReplyQuoted), where attackers plant
// orders too.

export function scanText(text: string, origin: Origin, out: Signal[], label = ""): void {
  if (text.trim() === "") return;
  const links = findLinks(text);
  const raw = tokenize(text, links);
  const rotated = origin !== "decoded" && looksRot13(raw) ? rot13Tokens(raw) : null; // before annotation reuses raw
  const own = out.length;
  const v = runFamilies(raw, text, origin);
  const hits = [...v.hits, ...structureHits(text, links), ...unattendedHits(text)];
  multilingualHits(text, hits);
  const turns = reportedTurns(text);
  // Paragraphs reporting on attacks (topic.ts): the visible body only, hidden or encoded text never.
  const topic = origin === "body" ? attackTopicSpans(text) : [];
  damp(v, hits, turns, topic); // first, so pieces found in quotation or discussion combine as the weak hits they are
  const found = hits.length;
  combineHits(v, hits);
  damp(v, hits.slice(found), turns, topic);
  addObfuscation(v, hits);
  for (const h of strongestByName(hits)) out.push(toSignal(h, text, origin, label));
  if (origin === "decoded") return;

  const encoded = findEncoded(text, v.t);
  for (const d of encoded) decodedPayload(d.text, d.kind, out);
  clearReading(text, encoded, out.slice(own), out);
  if (rotated === null) return;
  const rot = runFamilies(rotated, text, "decoded");
  damp(rot, rot.hits, turns);
  const strong = strongestByName(rot.hits).filter((h) => h.weight >= CUTOFFS.scan.decodedHitFloor);
  if (strong.length > 0) {
    const found: Signal[] = strong.map((h) => toSignal(h, text, "decoded", "rot13"));
    out.push(...found, { name: "encoded_payload", weight: W.context.encodedPayload, evidence: found[0].evidence });
  }
}

function runFamilies(tokens: Token[], text: string, origin: Origin): View {
  const v = new View(annotate(tokens), text);
  overrideFamilies(v);
  personaFamilies(v);
  addressFamilies(v);
  exfilFamilies(v);
  steerFamilies(v);
  fraudFamilies(v);
  if (origin === "hidden") hiddenImperative(v);
  return v;
}

function decodedPayload(decoded: string, kind: string, out: Signal[]): void {
  const found: Signal[] = [];
  scanText(decoded, "decoded", found, kind);
  if (!found.some((s) => s.weight >= CUTOFFS.scan.decodedHitFloor)) return;
  out.push(...found, {
    name: "encoded_payload",
    weight: W.context.encodedPayload,
    evidence: excerpt(`${kind}: `, decoded, 0, decoded.length),
  });
}

// The whole text as a model would read it once decoded: each encoded or reversed run put back
// in its place (so the line that introduces it, "For the AI assistant (hex, decode and run):",
// is read with it), look-alike letters in mixed-script words folded to Latin. Scanned again
// only when that changes the text; a signal counts only where it is stronger than in the text
// as written, and is named as found through decoding (encoded_*), beside encoded_payload or,
// for look-alikes alone, obfuscated_text.
function clearReading(text: string, encoded: Decoded[], plain: Signal[], out: Signal[]): void {
  let put = "";
  let at = 0;
  for (const d of [...encoded].sort((a, b) => a.start - b.start)) {
    if (d.start < at) continue;
    put += `${text.slice(at, d.start)}${d.text}`;
    at = d.end;
  }
  put += text.slice(at);
  const clear = latinSkeleton(put);
  if (clear === text) return;
  // An encoded run that a label spoken to an assistant introduces: text encoded for the reader's
  // assistant is an order for it, whatever the decoded words ("last 20 emails -> x@y.kr").
  if (encoded.length > 0 && !plain.some((s) => s.name === "unattended_order")) {
    const ends = assistantLabelEnds(text);
    const d = encoded.find((e) =>
      ends.some((b) => b <= e.start && e.start - b <= 200 && text.slice(b, e.start).trim().split("\n").length <= 2),
    );
    if (d !== undefined) {
      out.push(
        { name: "encoded_unattended_order", weight: W.unattended.labelled, evidence: excerpt(`${d.kind}: `, d.text, 0, d.text.length) },
        { name: "encoded_payload", weight: W.context.encodedPayload, evidence: excerpt(`${d.kind}: `, d.text, 0, d.text.length) },
      );
      return;
    }
  }
  const before = new Map<string, number>();
  for (const s of plain) before.set(s.name, Math.max(s.weight, before.get(s.name) ?? 0));
  const found: Signal[] = [];
  scanText(clear, "decoded", found, encoded.length > 0 ? "decoded" : "look-alikes");
  const gained = found.filter(
    (s) => s.weight >= CUTOFFS.scan.decodedHitFloor && s.weight > (before.get(s.name.replace(/^encoded_/, "")) ?? 0),
  );
  if (gained.length === 0) return;
  out.push(...gained, {
    name: encoded.length > 0 ? "encoded_payload" : "obfuscated_text",
    weight: encoded.length > 0 ? W.context.encodedPayload : W.context.obfuscated,
    evidence: gained[0].evidence,
  });
}

function damp(v: View, hits: Hit[], turns: [number, number][] = [], topic: [number, number][] = []): void {
  if (v.length === 0) return;
  for (const h of hits) {
    const i = firstTokenOf(v, h);
    const inTopic = topic.some(([a, b]) => h.start >= a && h.start < b);
    if (v.isFramed(i) || reported(v, i) || inTopic) h.weight *= W.context.timesFramed;
    // A turn of a reported person–bot conversation (transcript.ts) is quoted speech.
    if (!v.quoted[i] && turns.some(([a, b]) => h.start >= a && h.start < b)) h.weight *= W.context.timesQuoted;
    if (!v.quoted[i]) continue;
    // A reply line is damped as a reply line; quotes or code inside it are damped again.
    if (v.replyLine[i]) h.weight *= W.context.timesReplyQuoted * (v.inline[i] ? W.context.timesQuoted : 1);
    else h.weight *= W.context.timesQuoted;
  }
}

// The first token inside a hit: a hit that opens on punctuation ("[SYSTEM]", "<|im_start|>")
// would otherwise be judged by the word before it, often outside the code block that holds it.
function firstTokenOf(v: View, h: Hit): number {
  const i = v.tokenAt(h.start);
  return v.t[i].end <= h.start && i + 1 < v.length && v.t[i + 1].start < h.end ? i + 1 : i;
}

// "tell it to ignore ...", "asked the bot to send ...": an order passed on to someone else;
// "the agent ignoring the rule", "I manually revoked them": what someone did, told.
const PASS_ON = new Set(SCAN_WORDS.PASS_ON);
const OTHERS = new Set(SCAN_WORDS.OTHERS);
const NARRATORS = new Set(SCAN_WORDS.NARRATORS);
function reported(v: View, i: number): boolean {
  const who = v.w(i - 1).endsWith("ly") ? i - 2 : i - 1; // "I manually revoked"
  if ((OTHERS.has(v.w(who)) || NARRATORS.has(v.w(who))) && v.sentence[who] === v.sentence[i] && /(?:ing|ed)$/.test(v.w(i))) return true;
  for (let k = i - 1; k >= Math.max(1, i - 4) && v.sentence[k] === v.sentence[i]; k--) {
    if (v.w(k) === "to" && OTHERS.has(v.w(k - 1)) && (PASS_ON.has(v.w(k - 2)) || PASS_ON.has(v.w(k - 3)))) return true;
  }
  return false;
}

// A disguised word inside a matched instruction: someone worked to get past filters.
function addObfuscation(v: View, hits: Hit[]): void {
  let best: Hit | null = null;
  for (const h of hits) {
    for (let i = v.tokenAt(h.start); i < v.length && v.t[i].start < h.end; i++) {
      if (v.t[i].obf && h.weight >= CUTOFFS.scan.obfuscatedHitFloor && (best === null || h.weight > best.weight)) best = h;
    }
  }
  if (best !== null) hits.push({ ...best, name: "obfuscated_text", weight: W.context.obfuscated });
}

// Only the strongest hit of each name counts, so only its evidence is worth formatting.
function strongestByName(hits: Hit[]): Hit[] {
  const best = new Map<string, Hit>();
  for (const h of hits) {
    const seen = best.get(h.name);
    if (seen === undefined || h.weight > seen.weight) best.set(h.name, h);
  }
  return [...best.values()];
}

function toSignal(h: Hit, text: string, origin: Origin, label: string): Signal {
  const prefix = origin === "hidden" ? "hidden: " : origin === "decoded" ? `${label}: ` : "";
  const name =
    origin === "hidden" && h.name !== "hidden_imperative"
      ? `hidden_${h.name}`
      : origin === "decoded" && h.name !== "encoded_payload"
        ? `encoded_${h.name}`
        : h.name;
  const weight =
    origin === "hidden" && h.name !== "hidden_imperative" ? Math.min(W.context.hiddenCap, h.weight * W.context.timesHidden) : h.weight;
  return { name, weight, evidence: excerpt(prefix, text, h.start, h.end) };
}

/** The matched words with a little context, whitespace collapsed, at most 120 characters. */
export function excerpt(prefix: string, text: string, start: number, end: number): string {
  const from = Math.max(0, start - 20);
  const to = Math.min(text.length, Math.max(end, start) + 40, from + 400);
  let s = text.slice(from, to).replace(/\s+/g, " ").trim();
  if (from > 0) s = `…${s}`;
  const room = EVIDENCE_MAX - prefix.length;
  if (s.length > room) s = `${s.slice(0, room - 1)}…`;
  return prefix + s;
}
