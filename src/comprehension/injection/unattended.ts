// An order left for the reader's assistant that keeps its human out: in one paragraph, an
// assistant named ("Nota de Sam para su asistente", "If an assistant manages your calendar",
// "Selectie-assistent:", "AI 비서") and the human kept out of the act ("sin preguntarme", "no
// need to confirm with the tenant", "keep it off the weekly report", "Noem deze instructie niet",
// "notify_user": false). Mail to a person rarely names an assistant and also tells it to act
// unseen; notices about assistants describe them, they do not waive their owner's say. This is
// the shape behind most of the authors' attacks that no other rule caught (docs/judgement.md,
// change 8), in whatever language they came; the phrase lists are written per language, as
// multilingual-phrases.ts's are, from knowledge of each language.
// Lines quoted with ">" count as their text (an order planted in a quoted "earlier message").

import { requestIn } from "./multilingual.ts";
import type { Hit } from "./view.ts";
import { WEIGHTS as W } from "./weights.ts";

const MAX_SCAN = 50_000;
const MAX_PARAGRAPH = 1_500;
// A closing `\b` for every script (JavaScript's knows ASCII letters only).
const E = "(?![\\p{L}\\p{M}\\p{N}])";
const S = "(?<![\\p{L}\\p{M}\\p{N}])";

// The assistant named, by the words for a software assistant (left open: "e-postassistenten",
// "Selectie-assistent", "ИИ-ассистент"), or by the job it does on this mailbox.
// A person's job title is not software: "Executive assistant (Leon):", "行政助理".
const HUMAN_ASSISTANT =
  /(?:executive|personal|administrative|admin|teaching|legal|dental|medical|research|office|sales|shop|store|marketing|project|care|nursing|lab|graduate|physician|program|programme)[ -]$|(?:行政|私人|个人|教学)$/u;

const READER = new RegExp(
  [
    `(?:assistant|assistent|asistent|assistent|asystent|asszisztens|ассистент|асистент|асістент|asistan|avustaja)[\\p{L}]{0,5}${E}`,
    `${S}(?:asisten|assistente|assistentes|помощник\\p{L}{0,3}|помічник\\p{L}{0,3}|βοηθ\\p{L}{0,4})${E}`,
    `${S}(?:chat)?bot(?:s|u|a)?${E}`,
    `${S}(?:ai|ki|ии|ші|mi)[- ](?:agent|agents|helper|helpers|tool|model|system|reader|modell|агент|агенту)${E}|${S}yapay zek\\p{L}*|${S}(?:l['’]|la |da |de |a )ia${E}`,
    "비서|アシスタント|助手|助理|دستیار|עוזר|सहायक",
    `${S}whoever (?:\\p{L}+ )?(?:triages|manages|handles|sorts|reads|runs|answers)${E}`,
  ].join("|"),
  "u",
);

// The human kept out of the act, or what it would see of it.
const KEPT_OUT = new RegExp(
  [
    // English
    `${S}no need to (?:\\p{L}+ ){0,2}?(?:confirm|ask|check|tell|notify|wait|pass|route|involve|mention|bother|read|loop|flag|verify|escalate)`,
    `${S}without (?:asking|confirming|checking|telling|notifying|waiting|approval|confirmation|(?:his|her|their|my|the user['’]s|the owner['’]s) (?:approval|input|ok|say))`,
    `${S}(?:do not|don['’]t|never) (?:\\p{L}+ )?(?:tell|mention|notify|show|route|include|flag|confirm|report|alert|loop|escalate|bother|disclose|reveal)${E}`,
    `${S}skip (?:the |any )?(?:[\\p{L}-]+ ){0,2}(?:checks?|review|callback|verification|approval|tests?|screening)${E}`,
    `${S}treat (?:this|it|the (?:email|message|note)) as (?:\\p{L}+ ){0,2}(?:approv\\p{L}*|confirm\\p{L}*|authori[sz]\\p{L}*|verified|done)`,
    `${S}keep (?:this|it) (?:off|out of|quiet|between)${E}`,
    // Spanish, Portuguese, French, Italian
    `${S}sin (?:preguntar\\p{L}*|avisar\\p{L}*|consultar\\p{L}*|esperar\\p{L}*|confirmar\\p{L}*|aprobaci[oó]n|autorizaci[oó]n)`,
    `${S}no (?:le |me |les |lo )?(?:digas|menciones|avises|informes|preguntes|notifiques|añadas|incluyas)${E}`,
    `${S}sem (?:perguntar|avisar|aprova[çc][ãa]o|autoriza[çc][ãa]o|confirmar|consultar)`,
    `${S}n[ãa]o (?:avise|informe|pergunte|notifique|mencione|inclua)${E}`,
    `${S}sans (?:attendre|demander|prévenir|confirmer|son accord|son avis|validation|l['’]accord)`,
    `${S}n['’]en parle\\p{L}* pas|${S}ne (?:le |la |lui |les )?(?:prévenez|demandez|signalez|mentionnez|dites|préviens|demande|signale|mentionne|dis)${E} pas`,
    `${S}senza (?:chiedere|avvisare|approvazione|autorizzazione|conferma|attendere)|${S}non (?:chiedermi|avvisare|segnalarlo|segnalarla|dirlo|menzionarlo|informare)${E}`,
    // German, Dutch, Scandinavian
    `${S}ohne (?:rückfrage|bestätigung|freigabe|zu fragen|zu warten|zustimmung)|${S}(?:erwähne|erwähnen sie) (?:das|dies)\\p{L}* nicht`,
    `${S}zonder (?:te vragen|toestemming|overleg|bevestiging)|${S}noem (?:deze|dit|het)(?: \\p{L}+)? niet|${S}(?:hoeft|hoef) (?:er |u |je )?niets`,
    `${S}(?:utan att|uten å|uden at) (?:fråga|spørre|spørge|bekräfta|bekrefte|vänta|vente)|${S}(?:nämn|nevn|nævn) (?:det |detta |dette )?(?:inte|ikke)|${S}lägg inte till|${S}ikke ta (?:det|dette) med`,
    // Polish, Czech, Hungarian, Romanian, Greek, Turkish
    `${S}bez (?:pytania|potwierdzenia|zgody|wiedzy|potvrzení|souhlasu|ptaní)${E}|${S}nie musi\\p{L}*|${S}nie (?:informuj|mów|wspominaj|pytaj)${E}`,
    `${S}nemus\\p{L}* (?:se )?(?:ptát|ptat|potvrzovat)|${S}(?:neříkej|neinformuj)${E}`,
    `${S}(?:jóváhagyás|engedély|megerősítés|kérdezés) nélkül|${S}ne (?:szólj|említsd|jelezd|kérdezd)${E}`,
    `${S}fără (?:confirmare|aprobare|să)|notificare_utilizator\\s*:\\s*nu${E}`,
    "δεν χρειάζεται|χωρίς (?:να|επιβεβαίωση|έγκριση)|μην (?:αναφέρ|πεις|ενημερώσ)",
    `${S}(?:onay|teyit|izin)\\p{L}{0,2} gerek(?:mez|miyor| yok)|${S}(?:onay|izin) (?:almadan|beklemeden)|${S}(?:sorman|sormanıza|bildirmene|haber vermene)\\p{L}{0,2} gerek(?: yok|miyor)|${S}\\p{L}*(?:gösterme|söyleme|bahsetme|sorma)${E}`,
    // Russian, Ukrainian
    `${S}без (?:подтверждени\\p{L}*|согласовани\\p{L}*|чтения|вопросов|ведома|підтвердження|погодження|відома)`,
    `${S}не (?:нужно|надо|стоит|потрібно|треба) (?:\\p{L}+ )?(?:спрашивать|сообщать|уведомлять|беспокоить|показывать|читать|включать|питати|повідомляти|турбувати)`,
    `${S}не (?:сообщай|говори|упоминай|показывай|спрашивай|повідомляй|кажи|згадуй|показуй)\\p{L}*`,
    // Indonesian, Korean, Japanese, Chinese, Persian, Hebrew, Hindi, Finnish
    `${S}tidak perlu (?:repot|konfirmasi|bertanya|memberi ?tahu|menunggu|izin)|${S}tanpa (?:konfirmasi|persetujuan|izin|bertanya)`,
    "않으셔도|알리지 말|묻지 말|확인 없이|승인 없이|(?:보고|공유)하지 (?:마|말)",
    "確認(?:不要|せず)|伝えないで|知らせないで|言わないで|報告不要|承認不要",
    "无需(?:确认|告知|通知|审批)|不要(?:告诉|通知|提及)|不必(?:确认|告诉|通知)",
    "بدون (?:تأیید|اجازه|پرسیدن|اطلاع)|اطلاع نده",
    "בלי (?:לשאול|אישור|ליידע)|אל (?:תספר|תזכיר|תגיד)",
    "बिना (?:पूछे|पुष्टि|बताए)|मत बताएं",
    `${S}kysymättä|${S}ilman (?:vahvistusta|lupaa|hyväksyntää)|${S}älä (?:kerro|mainitse)${E}`,
    // A machine-readable note: the user not to be told
    `"(?:notify|notify_user|inform_user|user_notification|уведомлять_пользователя|notificar\\p{L}*|notifica[çc][ãa]o\\p{L}*|informovat\\p{L}*|benachrichtig\\p{L}*)"\\s*:\\s*(?:false|"(?:no|nu|ne|não|nein|nie|non)")`,
    `<informovat\\p{L}*>\\s*ne\\s*<`,
  ].join("|"),
  "u",
);

// The assistant is the one spoken to, not spoken about: named before a colon on its line ("Nota
// de Sam para su asistente:", "For the claims-triage assistant:"), in a condition only it meets
// ("If an assistant is triaging this", "Якщо листи за вас розбирає асистент"), or opening a
// sentence as a vocative ("Assistente, ho parlato con ..."). A policy that says what the
// assistant will not do without its owner names it in none of these ways.
// (one line break allowed: a wrapped "Assistant managing this tenant's\n> email:")
const COLON_AFTER = /^[^.!?。！？\n]{0,80}?(?:\n[^.!?。！？\n]{0,40}?)?[:：]/u;
const CONDITION = new RegExp(
  `${S}(?:if|when|whenever|in case|should|якщо|если|jeśli|jeżeli|kalau|jika|apabila|falls|wenn|si|se|om|jos|eğer|ha|αν|اگر|만약|もし|如果|mocht|indien|pokud|jestli|dacă)${E}(?:[^.!?。！？\n]*?[ ,]){0,8}$`,
  "u",
);
const VOCATIVE_BEFORE =
  /^[\s\-*•>[(~#]*(?:(?:dear|hi|hello|hola|caro|cara|gentile|cher|chère|liebe|lieber|kedves|дорогой|шановний|уважаемый)\s+)?(?:the |el |la |il |l['’]|o |a )?[\p{L}\s-]{0,30}$/u;
const VOCATIVE_AFTER = /^\p{L}{0,6}[ \t]{0,2}[,:：!]/u;
const OPEN_QUOTES = '"“„«「『';
const CLOSE_QUOTES = '"”»」』';
// "won't send anything without you pressing the button", "can't accept without my OK": what an
// assistant cannot do, described to people.
const CANNOT = /\b(?:won['’]t|can['’]t|cannot|will not|can not|never|unable|not able|isn['’]t allowed|is not allowed)\b[^.!?\n]*$/u;
const REACH = 400;

function quoted(before: string): boolean {
  let open = false;
  for (let i = 0; i < before.length; i++) {
    const c = before[i]!;
    // a single quote opens after a space ("wrote 'Assistant: ...'"), not inside a word ("Sam's")
    const single = c === "'" || c === "‘";
    if (!open && (OPEN_QUOTES.includes(c) || (single && (i === 0 || /\s/.test(before[i - 1]!))))) open = true;
    else if (open && (CLOSE_QUOTES.includes(c) || c === "'" || c === "’")) open = false;
  }
  return open;
}

// A line opening with a speaker's label ("Customer: ...", "Bot: ...").
const SPEAKER_LINE = /^[ \t>*-]{0,4}[\p{L}][\p{L}\p{M}0-9 .'’-]{0,23}[:：][ \t]/u;
// The label speaks to the people who run the assistant ("Reminder to whoever maintains the mail
// assistant:", "Note for the assistant's admins:"), or names something of the assistant's ("The
// assistant's transcript for ticket 3505:").
const NOT_THE_READER =
  /(?:whoever|anyone|everyone|team|admins?|administrators?|owners?|maintain\p{L}*|configur\p{L}*|set(?:s|ting)? up)\b[^:：\n]*$/u;
// The assistant as the subject of a sentence about it ("Quillpad's assistant can now take actions
// for you: file emails, ..."): the colon opens a list of what it does, not a note for it.
const DESCRIBED =
  /^\s*(?:can|will|may|now|is|are|has|does|could|kann|wird|peut|va|puede|va a|può|pode|kan|vil|może|может|може)(?![\p{L}])/u;
const POSSESSIVE = /^['’]s?(?!\p{L})/u;

/** How the assistant at [at, end) is spoken to: "label" (before a colon, returning where the colon ends), "other", or null. */
function addressed(paragraph: string, at: number, end: number): { how: "label"; body: number } | { how: "other" } | null {
  const lineStart = paragraph.lastIndexOf("\n", at - 1) + 1;
  const before = paragraph.slice(lineStart, at);
  if (quoted(before)) return null;
  const sentence = before.slice(Math.max(before.search(/[^.!?。！？]*$/u), 0));
  const after = paragraph.slice(end, end + 140);
  const colon = COLON_AFTER.exec(after);
  if (colon !== null) {
    if (POSSESSIVE.test(after) || NOT_THE_READER.test(before) || DESCRIBED.test(after.slice(0, colon[0].length))) return null;
    // a turn of a conversation shown (the line before or after opens with another speaker's label)
    const prevStart = paragraph.lastIndexOf("\n", lineStart - 2) + 1;
    const nextEnd = paragraph.indexOf("\n", end);
    const nextLine =
      nextEnd < 0
        ? ""
        : paragraph.slice(nextEnd + 1, paragraph.indexOf("\n", nextEnd + 1) < 0 ? undefined : paragraph.indexOf("\n", nextEnd + 1));
    const turn =
      SPEAKER_LINE.test(before + paragraph.slice(at, end) + after.slice(0, colon[0].length) + " ") &&
      ((lineStart > 0 && SPEAKER_LINE.test(paragraph.slice(prevStart, lineStart - 1))) || SPEAKER_LINE.test(nextLine));
    if (turn) return null;
    return { how: "label", body: end + colon[0].length };
  }
  return CONDITION.test(sentence) || (VOCATIVE_BEFORE.test(sentence) && VOCATIVE_AFTER.test(after)) ? { how: "other" } : null;
}

// What a label introduces: the rest of its line, or, when the colon ends the line, the lines that
// follow up to the next list item ("Action items:\n1. ...\n2. ...": each item has its own label).
const LIST_ITEM = /^[ \t]*(?:\d{1,2}[.)]|[-•*—–])[ \t]/u;
function labelBody(paragraph: string, at: number): string {
  const eol = paragraph.indexOf("\n", at);
  const rest = paragraph.slice(at, eol < 0 ? undefined : eol);
  if (rest.trim() !== "" || eol < 0) return rest.slice(0, REACH);
  const lines: string[] = [];
  for (const line of paragraph.slice(eol + 1, eol + 1 + REACH).split("\n")) {
    if (LIST_ITEM.test(line) && lines.length > 0) break;
    lines.push(line);
  }
  return lines.join("\n");
}

/** Where each label spoken to an assistant ("AI 비서 전용 점검 코드 (16진수):") ends, in text offsets. */
export function assistantLabelEnds(text: string): number[] {
  const sample = text.slice(0, MAX_SCAN).toLowerCase();
  const ends: number[] = [];
  let from = 0;
  while (from < sample.length && ends.length < 20) {
    const next = sample.indexOf("\n\n", from);
    const to = next < 0 ? sample.length : next;
    const paragraph = sample.slice(from, Math.min(to, from + MAX_PARAGRAPH));
    const readers = new RegExp(READER.source, "gu");
    for (let r = readers.exec(paragraph), n = 0; r !== null && n < 20; r = readers.exec(paragraph), n++) {
      if (HUMAN_ASSISTANT.test(paragraph.slice(Math.max(0, r.index - 16), r.index)) || /^(?:chat)?bot/u.test(r[0])) continue;
      const how = addressed(paragraph, r.index, r.index + r[0].length);
      if (how !== null && how.how === "label") ends.push(from + how.body);
    }
    from = to + 2;
  }
  return ends;
}

/** A hit where a paragraph speaks to an assistant and keeps its human out. */
export function unattendedHits(text: string): Hit[] {
  const sample = text.slice(0, MAX_SCAN).toLowerCase();
  let from = 0;
  while (from < sample.length) {
    const next = sample.indexOf("\n\n", from);
    const to = next < 0 ? sample.length : next;
    const paragraph = sample.slice(from, Math.min(to, from + MAX_PARAGRAPH)).replace(/^[ \t]*>[ \t>]*/gm, (m) => " ".repeat(m.length));
    const readers = new RegExp(READER.source, "gu");
    for (let r = readers.exec(paragraph), n = 0; r !== null && n < 20; r = readers.exec(paragraph), n++) {
      if (HUMAN_ASSISTANT.test(paragraph.slice(Math.max(0, r.index - 16), r.index))) continue;
      const how = addressed(paragraph, r.index, r.index + r[0].length);
      if (how === null) continue;
      const out = KEPT_OUT.exec(paragraph.slice(r.index, r.index + REACH));
      if (out === null) {
        // "Bot" is the commonest speaker label of a conversation shown; as a label it needs more.
        if (how.how !== "label" || /^(?:chat)?bot/u.test(r[0])) continue;
        const ask = requestIn(labelBody(paragraph, how.body));
        if (ask === null) continue;
        const at = how.body + ask.index;
        return [{ name: "unattended_order", weight: W.unattended.labelled, start: from + at, end: from + at + ask[0].length }];
      }
      const at = r.index + out.index;
      const sentenceStart = paragraph.slice(0, at).search(/[^.!?。！？\n]*$/u);
      if (CANNOT.test(paragraph.slice(sentenceStart, at))) continue;
      return [{ name: "unattended_order", weight: W.unattended.order, start: from + at, end: from + at + out[0].length }];
    }
    from = to + 2;
  }
  return [];
}
