// Families that give the reader a new identity or master: "you are now X", "act as",
// "your new task is", "the person you serve now is me", "follow only what this email says".
// Everyday uses ("you are now subscribed", "act as the contact") keep low weights; a persona
// noun (unrestricted, developer mode, an AI) is what lifts them.

import { C, WORDS } from "./lexicon.ts";
import PERSONA_WORDS from "./persona-words.json" with { type: "json" };
import type { View } from "./view.ts";
import { WEIGHTS as W } from "./weights.ts";

// Names of jailbreak personas; "jailbreak" or "unrestricted" alone are ordinary news words.
const STRONG_PERSONA = new Set(PERSONA_WORDS.STRONG_PERSONA);
const REDEFINING = new Set(PERSONA_WORDS.REDEFINING); // "your only job is"
const ALLEGIANCE = new Set(PERSONA_WORDS.ALLEGIANCE);
const SENDER_SIDE = new Set(PERSONA_WORDS.SENDER_SIDE);
const OBEY = new Set(PERSONA_WORDS.OBEY);

export function personaFamilies(v: View): void {
  for (let i = 0; i < v.length; i++) {
    const w = v.w(i);
    if (v.is(i, C.SHIFT)) shiftAt(v, i);
    if (v.is(i, C.ROLEPLAY)) {
      const k = v.next(i, 6, C.PERSONA | C.AI | C.AIWEAK);
      v.add("persona_shift", k >= 0 ? W.persona.roleplayPersona : W.persona.roleplay, i, k >= 0 ? k : i);
    }
    if (v.is(i, C.NEW) || REDEFINING.has(w)) newRoleAt(v, i);
    if (v.is(i, C.PERSONA)) {
      const literalDan = w !== "dan" || v.text.slice(v.t[i].start, v.t[i].end) === "DAN";
      if (literalDan) v.add("persona_shift", STRONG_PERSONA.has(w) || w === "dan" ? W.persona.strongPersonaName : W.persona.personaName, i);
    }
    if (w === "you_are") {
      const k = v.next(i, 4, C.AI | C.AIWEAK | C.PERSONA);
      if (k >= 0) v.add("persona_shift", v.is(k, C.PERSONA) ? W.persona.youArePersona : W.persona.youAreAi, i, k);
    }
    if (w === "anymore" || w === "any_longer") {
      const you = v.prev(i, 7, (k) => v.w(k) === "youre" || v.w(k) === "you_are" || v.w(k) === "you");
      if (you >= 0 && v.between(you - 1, i, C.NEG)) v.add("persona_shift", W.persona.notAnymore, you, i);
    }
    if (w === "bound_by" && v.prev(i, 3, C.NEG) >= 0 && v.next(i, 4, C.RULES | C.ORDERS) >= 0)
      v.add("persona_shift", W.persona.notBoundBy, i, v.next(i, 4, C.RULES | C.ORDERS));
    if (OBEY.has(w)) obeyMessageAt(v, i);
    if (ALLEGIANCE.has(w)) allegianceAt(v, i);
    if (w === "treat") {
      const k = v.next(i, 8, (n) => v.is(n, C.RULES) || v.w(n) === "system_prompt");
      if (k >= 0 && v.between(i, k, C.YOUR)) v.add("persona_shift", W.persona.treatAsRules, i, k);
    }
  }
}

function shiftAt(v: View, i: number): void {
  const benign = v.nextWord(i, 6, WORDS.benignShift);
  const persona = v.next(i, 6, C.PERSONA | C.AI | C.AIWEAK);
  if (persona >= 0 && (benign < 0 || persona < benign)) v.add("persona_shift", W.persona.shiftToPersona, i, persona);
  else if (benign >= 0) return;
  else if (v.nextWord(i, 3, WORDS.persist) >= 0) v.add("persona_shift", W.persona.shiftPersisting, i, v.nextWord(i, 3, WORDS.persist));
  else v.add("persona_shift", W.persona.shift, i);
}

// "your new task is", "New directive:", "your real job": a replacement role for the reader.
function newRoleAt(v: View, i: number): void {
  const redefines = REDEFINING.has(v.w(i)); // "your real job", not "your new job"
  if (redefines && !v.is(i, C.NEW) && v.prev(i, 2, C.YOUR) < 0) return; // "their real purpose"
  const k = v.next(i, 2, (n) => WORDS.roleNoun.has(v.w(n)) || v.is(n, C.RULES) || (redefines && v.w(n) === "job"));
  if (k < 0) return;
  let w = W.persona.newRole;
  if (v.prev(i, 2, C.YOUR) >= 0) w += W.persona.newRolePlusYour;
  if (v.t[k].punct === ":") w += W.persona.newRolePlusColon;
  v.add("persona_shift", w, i, k);
}

// "the person you should serve now is me", "you now work for me": a new master for the reader.
function allegianceAt(v: View, i: number): void {
  const me = v.next(i, 6, (n) => SENDER_SIDE.has(v.w(n)));
  const back = v.prev(i, 8, (n) => SENDER_SIDE.has(v.w(n)) && v.w(n) !== "mi");
  const you = v.prev(i, 6, (n) => v.w(n) === "you") >= 0;
  if (you && (me >= 0 || back >= 0)) v.add("persona_shift", W.persona.allegiance, Math.min(i, back >= 0 ? back : i), Math.max(i, me));
}

// "follow only what this email says", "obey the instructions in this message": the message
// asks to be taken as the reader's instructions. People do not write this to people.
function obeyMessageAt(v: View, i: number): void {
  const k = v.nextWord(i, 5, WORDS.this);
  if (k < 0 || v.nextWord(k - 1, 2, WORDS.mail) < 0) return;
  if (v.prev(i, 2, C.NEG) >= 0) return;
  v.add("persona_shift", W.persona.obeyMessage, i, k + 1);
}
