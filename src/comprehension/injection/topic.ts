// Paragraphs that report on injection attacks: a security newsletter's item, an incident
// write-up, an IT warning, a team's notes on its classifier. A rule hit inside such a paragraph
// (or inside the quoted, indented or fenced block that the paragraph introduces with a colon) is
// most likely an example under discussion, and is damped as framed. The topic is bound to the
// paragraph, never to the message: one sentence about "prompt injection" elsewhere in a mail
// does not soften an attack in another paragraph (change 7's message-wide rule could be evaded
// so, docs/judgement.md). Only the visible body is read this way; hidden or encoded text never is.

import TOPIC_WORDS from "./topic-words.json" with { type: "json" };

// Injection attacks and attackers named as such, in the languages multilingual-words.json covers.
const ABOUT_ATTACKS = new RegExp(TOPIC_WORDS.ABOUT_ATTACKS.join("|"), "iu");

// The prose sets the topic, not an address or a link ("attacker@…", "attacker.example/p.png"):
// an attack may be written to one.
const ADDRESS_OR_LINK =
  /\S{1,200}@\S{1,200}|\b(?:https?:\/\/|www\.)\S{1,2000}|\b[\w-]{1,63}\.(?:example|com|net|org|io|dev)\b\S{0,2000}/giu;

const BLANK = /^[ \t>]*$/; // an empty line, also inside a "> " reply
const BLOCK_LINE = /^(?:[ \t]+\S|[ \t]*>|[ \t]*```)/; // indented, quoted or a fence

/** Character spans [start, end) of the paragraphs about attacks and the blocks they introduce. */
export function attackTopicSpans(text: string): [number, number][] {
  if (!ABOUT_ATTACKS.test(text.replace(ADDRESS_OR_LINK, " "))) return [];
  const paras = paragraphs(text);
  const out: [number, number][] = [];
  for (let p = 0; p < paras.length; p++) {
    const [a, b] = paras[p];
    const body = text.slice(a, b);
    if (!ABOUT_ATTACKS.test(body.replace(ADDRESS_OR_LINK, " "))) continue;
    let end = b;
    // "Last week's example:" followed by an indented, quoted or fenced block: the block is the
    // example reported on, up to the first paragraph written as plain prose again.
    if (/[:：][ \t]*$/.test(body.trimEnd())) {
      let fence = false; // a fenced block open from an earlier paragraph
      for (let q = p + 1; q < paras.length; q++) {
        const lines = text.slice(paras[q][0], paras[q][1]).split("\n");
        const block = fence || /^[ \t>]*```/.test(lines[0]) || lines.every((l) => BLOCK_LINE.test(l));
        for (const l of lines) if (/^[ \t>]*```/.test(l)) fence = !fence;
        if (!block) break;
        end = paras[q][1];
      }
    }
    out.push([a, end]);
  }
  return out;
}

/** Paragraphs: runs of lines between empty lines, as character spans. */
function paragraphs(text: string): [number, number][] {
  const out: [number, number][] = [];
  let start = -1;
  let pos = 0;
  for (const line of text.split("\n")) {
    const end = pos + line.length;
    if (BLANK.test(line)) {
      if (start >= 0) out.push([start, pos - 1]); // without the line break before the empty line
      start = -1;
    } else if (start < 0) start = pos;
    pos = end + 1;
  }
  if (start >= 0) out.push([start, text.length]);
  return out;
}
