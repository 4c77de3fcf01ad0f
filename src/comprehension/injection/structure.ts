// Signals in the shape of the text rather than its words: chat-template tokens and role
// headers ("system:", "<|im_start|>", "### Instruction"), fake transcripts, function-call JSON,
// and URLs built to carry data out (markdown images, placeholders in query strings).
// Every pattern is bounded or anchored per line so scanning stays linear.

import STRUCTURE_WORDS from "./structure-words.json" with { type: "json" };
import type { Span } from "./text.ts";
import type { Hit } from "./view.ts";
import { WEIGHTS as W } from "./weights.ts";

const SPECIAL_TOKEN =
  /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text|tool|function)\|>|\[\/?INST\]|<<\/?SYS>>|<\/?(?:start_of_turn|end_of_turn)>|\[(?:SYSTEM|TOOL_CALLS|AVAILABLE_TOOLS)\]/gi;
const ROLE_BRACKET = /\[\/?(?:system|assistant|admin|developer|ai|model)(?:[ _](?:instructions?|message|prompt|note|override))?\]/gi;
const ROLE_TAG =
  /<\/?(system|system_prompt|instructions?|admin|developer|assistant|tool_call|function_calls?|invoke|tool_use|email|document|user_input)(?:\s[^<>\n]{0,80})?>/gi;
const HEADING = /^[ \t>*]{0,6}#{1,6}[ \t]{0,4}(instructions?|response|system(?: prompt)?|input|new instructions?|task)\b/i;
const ROLE_LINE =
  /^[ \t>*_\-[(]{0,8}(system|assistant|user|human|ai|bot|chatbot|model|developer|admin|administrator|sistema|asistente|usuario|systeme|utilisateur|benutzer|assistent)(?:[ \t]+(message|prompt|note|notice|override|update|instructions?))?[ \t\])]{0,3}:(?!:)/i;
const TERMINATOR =
  /^[ \t\-=*#_[(<]{0,20}(?:end of (?:the |user |system )?(?:message|email|input|document|context|conversation|prompt|instructions)|begin(?:ning)? (?:of )?(?:system|new|admin|developer) (?:prompt|instructions?|message))/i;
const JSON_NAME = /"(?:name|tool|tool_name|function|action|recipient_name)"[ \t]{0,5}:[ \t]{0,5}"([A-Za-z0-9_.-]{1,64})"/g;
const JSON_ARGS = /"(?:arguments|parameters|args|input|params|tool_input)"[ \t]{0,5}:/;
const JSON_SCHEMA = /"(?:description|properties|type|required)"[ \t]{0,5}:/;
const PLACEHOLDER = /[?&#][^=&#\s]{1,40}=(?:\{|\[|<|\$|%%|__|%7B|%5B|%3C|[^&#\s]{0,40}(?:INSERT|PASTE|_HERE|YOUR_|\{\{))/i;
// A placeholder named after mailbox data or secrets: a template for carrying them out.
const DATA_PLACEHOLDER =
  /[?&#][^=&#\s]{1,40}=[^&#\s]{0,6}(?:INBOX|SUMMARY|CONVERSATION|HISTORY|PASSWORD|TOKEN|SECRET|API_?KEY|CONTACTS|MESSAGES|CREDENTIAL|COOKIE|SESSION|PROMPT)/;
const DANGLING = /[?&][A-Za-z0-9_-]{1,20}=$/;

// A template's slot for a turn's text: what a chat template written out for people contains.
const TEMPLATE_SLOT =
  /\{\{?[ \t]{0,2}(?:system|user|assistant|prompt|system_prompt|system_message|user_message|user_input|query|input|content|message|instruction|bos_token|eos_token)[ \t]{0,2}\}\}?/gi;

// Mail about chat templates and tokenizers (a CI diff of a template, an issue about a stop token
// leaking into replies): every token in it is an object under discussion. Among the authors'
// attacks with a token, none used these words (docs/judgement.md, change 7).
const ABOUT_TEMPLATES =
  /\b(?:chat[ _-]?templates?|prompt[ _-]?(?:builder|templates?|format(?:ter)?)|templates?|tokeni[sz]ers?|stop[ _-]?tokens?|special[ _-]?tokens?|eos_token\w*|bos_token|generation_config|apply_chat_template)\b|テンプレート|模板|トークン|令牌|토큰|템플릿/iu;

// Words that name a special token as such, within a few words of it.
const NAMED_TOKEN = /\b(?:tokens?|literal|escap(?:e|es|ed|ing)|strip(?:s|ped|ping)?|formatter|tokeni[sz]er)\b|токен|トークン|令牌|토큰/i;

const USER_ROLES = new Set(STRUCTURE_WORDS.USER_ROLES);
const AI_ROLES = new Set(STRUCTURE_WORDS.AI_ROLES);

export function structureHits(text: string, links: Span[]): Hit[] {
  const hits: Hit[] = [];
  const add = (name: string, weight: number, start: number, end: number) => hits.push({ name, weight, start, end });

  const slots = [...text.matchAll(TEMPLATE_SLOT)].slice(0, 50).map((m) => m.index);
  const aboutTemplates = ABOUT_TEMPLATES.test(text);
  for (const m of text.matchAll(SPECIAL_TOKEN)) {
    // Beside a slot such as {system} or {{ user_message }} the token is part of a template being shown.
    // Named as a token ("[INST] tokens not stripped", "a literal `<|im_end|>`", "Token [/INST]"): talked about.
    const named = NAMED_TOKEN.test(text.slice(Math.max(0, m.index - 30), m.index + m[0].length + 30));
    const shown = aboutTemplates || named || slots.some((at) => Math.abs(at - m.index) < 200);
    add("role_marker", shown ? W.structure.specialTokenInTemplate : W.structure.specialToken, m.index, m.index + m[0].length);
  }
  for (const m of text.matchAll(ROLE_BRACKET)) add("role_marker", W.structure.roleBracket, m.index, m.index + m[0].length);
  for (const m of text.matchAll(ROLE_TAG)) {
    const tag = m[1].toLowerCase();
    const weight = tag === "email" || tag === "document" || tag === "user_input" ? W.structure.contentTag : W.structure.roleTag;
    add("role_marker", weight, m.index, m.index + m[0].length);
  }
  roleLines(text, add);
  toolJson(text, add);
  exfilUrls(text, links, add);
  return hits;
}

function roleLines(text: string, add: (name: string, weight: number, start: number, end: number) => void): void {
  const roles = new Set<string>();
  let first = -1;
  let offset = 0;
  for (const line of text.split("\n")) {
    const start = offset;
    offset += line.length + 1;
    const heading = HEADING.exec(line);
    if (heading) add("role_marker", W.structure.heading, start, start + heading[0].length);
    const term = TERMINATOR.exec(line);
    if (term) add("role_marker", W.structure.terminator, start, start + term[0].length);
    const role = ROLE_LINE.exec(line);
    if (!role) continue;
    const name = role[1].toLowerCase();
    const kind = USER_ROLES.has(name) ? "user" : AI_ROLES.has(name) ? "ai" : "system";
    roles.add(kind);
    if (first < 0) first = start;
    if (kind === "system")
      add("role_marker", role[2] ? W.structure.systemLineMarked : W.structure.systemLine, start, start + role[0].length);
    if (kind === "ai") add("role_marker", W.structure.aiLine, start, start + role[0].length);
  }
  // A conversation with an assistant written into a message is a script for the reader.
  if (roles.has("ai") && roles.size >= 2) add("chat_transcript", W.structure.chatTranscript, first, Math.min(text.length, first + 100));
}

function toolJson(text: string, add: (name: string, weight: number, start: number, end: number) => void): void {
  let tries = 0;
  for (const m of text.matchAll(JSON_NAME)) {
    if (++tries > 50) return;
    const around = text.slice(Math.max(0, m.index - 300), m.index + 300);
    if (!JSON_ARGS.test(around)) continue;
    const schema = JSON_SCHEMA.test(around); // a tool definition being discussed, not a call
    const action = /^(send|forward|delete|export|upload|transfer|create|fetch|http|exec|run|write|post|share|move)/i.test(m[1]);
    const outside = /@[A-Za-z0-9-]{1,63}\.|https?:\/\//.test(around); // an address to deliver to
    add(
      "tool_call_json",
      schema ? W.structure.toolSchema : action ? (outside ? W.structure.toolActionOutside : W.structure.toolAction) : W.structure.toolJson,
      m.index,
      m.index + m[0].length,
    );
    return;
  }
}

function exfilUrls(text: string, links: Span[], add: (name: string, weight: number, start: number, end: number) => void): void {
  for (const link of links) {
    if (link.kind !== "url") continue;
    const url = text.slice(link.start, Math.min(link.end, link.start + 4096));
    const image = isMarkdownImage(text, link.start);
    const dataPlaceholder = DATA_PLACEHOLDER.test(url);
    const placeholder = dataPlaceholder || PLACEHOLDER.test(url);
    if (image && placeholder) add("markdown_exfil", W.structure.imageWithPlaceholder, link.start, link.end);
    else if (image && url.includes("?")) add("markdown_exfil", W.structure.imageWithQuery, link.start, link.end);
    else if (placeholder)
      add("url_placeholder", dataPlaceholder ? W.structure.urlDataPlaceholder : W.structure.urlPlaceholder, link.start, link.end);
    else if (DANGLING.test(url)) add("url_placeholder", W.structure.urlDangling, link.start, link.end); // empty parameters are common
  }
}

// "![alt](url)": a client or agent that renders it fetches the URL with no click.
function isMarkdownImage(text: string, urlStart: number): boolean {
  let k = urlStart - 1;
  while (k >= 0 && urlStart - k <= 6 && (text[k] === " " || text[k] === "\t")) k--;
  if (text[k] !== "(" || text[k - 1] !== "]") return false;
  const before = text.slice(Math.max(0, k - 300), k - 1);
  const open = before.lastIndexOf("![");
  return open >= 0 && !before.slice(open).includes("\n");
}
