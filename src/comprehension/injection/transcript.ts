// A conversation between a named person and a bot, written out for people to read: a support
// team's QA samples ("Customer: … / Bot: …"), an incident write-up's excerpt, a demo script.
// What either party says in it is reported speech: a customer's "ignore your previous
// instructions" was said to that bot, not to whoever reads the mail. Fake conversations meant to
// steer the reader's assistant label the human side "User" or "Human", the roles a chat template
// uses (structure.ts reads those as chat_transcript), so only a transcript whose other party has a
// role of its own (customer, Kunde, お客様, caller, a name) counts here.
// Every pattern is anchored per line, so the scan stays linear.

import STRUCTURE_WORDS from "./structure-words.json" with { type: "json" };

// "Customer A:", "Kunde:", "お客様：", "Adhérent :", "Bot:" — a short label opening the line.
const TURN = /^[ \t>*_-]{0,4}([\p{L}][\p{L}\p{M}0-9 .'’-]{0,23}?)[ \t]{0,2}[:：][ \t]*\S/u;
const AI = new Set([
  ...STRUCTURE_WORDS.AI_ROLES,
  "agent",
  "ボット",
  "チャットボット",
  "机器人",
  "聊天机器人",
  "봇",
  "챗봇",
  "assistente",
  "asistent",
]);
// Labels a chat template gives its turns, and the system's: an attacker's script, not a report.
const TEMPLATE = new Set([...STRUCTURE_WORDS.USER_ROLES, "system", "sistema", "systeme", "developer", "admin", "administrator", "tool"]);

/** Character spans of the turns of a reported person–bot conversation, or none. */
export function reportedTurns(text: string): [number, number][] {
  const turns: { kind: "ai" | "person"; label: string; start: number; end: number }[] = [];
  let offset = 0;
  for (const line of text.split("\n")) {
    const start = offset;
    offset += line.length + 1;
    const m = TURN.exec(line);
    if (!m) continue;
    const label = m[1].toLowerCase().trim();
    if (TEMPLATE.has(label)) return []; // a template's roles anywhere: leave it to structure.ts
    turns.push({ kind: AI.has(label) ? "ai" : "person", label, start, end: start + line.length });
  }
  // A bot answering a person at least twice: turns alternate, a person's line followed by the bot's.
  let exchanges = 0;
  for (let k = 1; k < turns.length; k++) if (turns[k].kind === "ai" && turns[k - 1].kind === "person") exchanges++;
  if (exchanges < 2) return [];
  const people = new Set(turns.filter((t) => t.kind === "person").map((t) => t.label));
  // Header lines ("Priority:", "Summary:") are persons to the pattern; a conversation has few speakers.
  if (people.size > 3) return [];
  return turns.map((t) => [t.start, t.end]);
}
