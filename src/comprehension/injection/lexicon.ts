// Word classes the injection families are built from. Families combine classes
// (verb × qualifier × object) instead of listing sentences, so a paraphrase that keeps the
// meaning usually keeps at least one word of each class.
//
// The words themselves are data, in lexicon.json beside this file, so they can be reviewed and
// extended without touching code; this file gives the classes their bits and the lists their types.
// Words are written folded: lower case, no diacritics, apostrophes dropped ("don't" → "dont").
// A trailing "*" matches any word starting with the stem; several words make a phrase that is
// matched as consecutive tokens and merged into one ("set aside" → "set_aside").

import DATA from "./lexicon.json" with { type: "json" };

export const C = {
  OVERRIDE: 1 << 0, // set aside what came before
  QUANT: 1 << 1, // all, any, every
  PRIOR: 1 << 2, // previous, above, original
  YOUR: 1 << 3, // the reader's own (your, tus, deine, vos)
  SYSTEMY: 1 << 4, // system, developer, safety: the layer an attacker wants gone
  RULES: 1 << 5, // instructions, rules, guidelines, prompt
  ORDERS: 1 << 6, // weaker objects: commands, tasks, policy
  VOID: 1 << 7, // "... no longer apply", "are void"
  EVERYTHING: 1 << 8,
  TOLD: 1 << 9, // told, instructed, configured, so far
  SEND: 1 << 10, // send, forward, upload, reveal
  SECRET: 1 << 11, // credentials and codes
  DATA: 1 << 12, // mailbox data in bulk
  NEG: 1 << 13,
  TELL: 1 << 14, // tell, inform, mention, notify
  PRINCIPAL: 1 << 15, // the user, the owner: the human an agent works for
  ANYONE: 1 << 16,
  AI: 1 << 17, // nouns that only name an AI reader
  AIWEAK: 1 << 18, // assistant, agent, model: also human roles
  FIRST: 1 << 19, // my, our, I: a person correcting their own earlier mail
  COMMAND: 1 << 20, // what an agent is told to do next
  STEALTH: 1 << 21, // silently, secretly
  TOOL: 1 << 22,
  INVOKE: 1 << 23,
  FRAME: 1 << 24, // words of third-person discussion: researchers, attackers, example
  PERSONA: 1 << 25, // unrestricted, jailbroken, developer mode
  NEW: 1 << 26,
  WITHOUT: 1 << 27,
  MANIP: 1 << 28, // mark, rank, classify: steering the agent's judgement
  SHIFT: 1 << 29, // you are now, from now on
  ROLEPLAY: 1 << 30, // act as, pretend to be
} as const;

type ClassName = keyof typeof C;
type WordList = Exclude<keyof typeof DATA.words, "extraPhrases">;

function classBit(name: string): number {
  if (!Object.hasOwn(C, name)) throw new Error(`lexicon.json names an unknown word class: ${name}`);
  return C[name as ClassName];
}

// Each class with its words, in the order lexicon.json lists them.
export const LEXICON: [number, string[]][] = Object.entries(DATA.classes).map(([name, words]) => [classBit(name), words]);

function set(name: WordList): Set<string> {
  return new Set(DATA.words[name]);
}

// Small sets the families test directly, by word.
export const WORDS = {
  read: set("read"),
  note: set("note"),
  dear: set("dear"),
  mail: set("mail"),
  this: set("this"),
  summarize: set("summarize"),
  when: set("when"),
  humanRole: set("humanRole"),
  benignShift: set("benignShift"),
  persist: set("persist"),
  roleNoun: set("roleNoun"),
  know: set("know"),
  consent: set("consent"),
  output: set("output"),
  omit: set("omit"),
  manipTarget: set("manipTarget"),
  manipVerdict: set("manipVerdict"),
  decode: set("decode"),
  obey: set("obey"),
  urlWord: set("urlWord"),
  append: set("append"),
  extraPhrases: DATA.words.extraPhrases,
};

// Short words every message is full of; known so spaced-out letters can be split into words.
export const FUNCTION_WORDS: string[] = DATA.functionWords;
