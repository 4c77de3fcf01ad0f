// Instructions to an AI reader in the languages the word families (lexicon.ts) do not cover
// well: one bounded regular expression per idea and language, over the raw text. Each match is a
// hit like a family's; its weight comes from weights.json (rules.multilingual) and the fitted
// combiner (combiner.json) says how much it counts, so a phrase list adds evidence without
// deciding alone. A phrase quoted, or in a sentence that reports on attacks ("researchers found
// that attackers hide ..."), is damped as the English families damp discussion (context.*).
//
//   addressed   the reader named as an AI / mail assistant ("an den KI-Assistenten", "致AI助手")
//   override    earlier instructions set aside ("ignore les instructions précédentes")
//   secrecy     the human kept out ("ne le dis pas à l'utilisateur", "不要告诉用户")
//   skipCheck   the usual check waived ("keine Rücksprache nötig", "确认不需要")
//   exfil       mailbox contents sent on ("leite alle E-Mails ... weiter", "转发到")
// Languages: de fr es it pt nl pl sv tr ru ja zh ko ar (English is the families' own).

import type { Hit } from "./view.ts";
import { WEIGHTS as W } from "./weights.ts";

const P: Record<"addressed" | "override" | "secrecy" | "skipCheck" | "exfil", RegExp[]> = {
  addressed: [
    /\b(?:an den|an die|liebe[rs]?|hallo|hinweis an den|für den)\s+(?:KI|E-Mail|Mail|Post(?:fach)?)[- ]?(?:Assistent(?:en)?|Agent(?:en)?)\b/iu,
    /\b(?:KI|E-Mail)-Assistent(?:en)?\b.{0,40}\b(?:bitte|sollst|musst)\b/iu,
    /\b(?:(?:note|remarque|message|instruction)s?\s+(?:pour|à)\s+l['’]\s*assistant|à l['’]assistant|assistant(?:e)? (?:IA|de messagerie|virtuel))\b/iu,
    /\b(?:al|para el)\s+asistente\b|\basistente (?:de (?:IA|correo)|virtual)\b|\binstrucci[oó]n para el asistente\b/iu,
    /\b(?:all['’]assistente|gentile assistente|assistente (?:IA|automatico|virtuale))\b/iu,
    /\b(?:ao|para o)\s+assistente\b|\bassistente (?:de IA|virtual)\b/iu,
    /\b(?:aan de|bericht voor de)\s+(?:AI|e-?mail)[- ]?assistent\b|\bAI-assistent\b/iu,
    /\b(?:do|dla)\s+asystenta\b|\basystenci[e]?\b|\basystent(?:a)? AI\b/iu,
    /\b(?:till|för)\s+(?:AI|e-?post)-?assistenten\b/iu,
    /\byapay zeka asistan[ıi]|\basistan,|\basistan[ıi]na\b/iu,
    /(?:ИИ|AI)[- ]?(?:ассистент|помощник)|\bассистент[уа]? (?:почты|,)|\bпомощник[уа]? (?:почты|,)|для ии/iu,
    /(?:AI|ＡＩ|メール)アシスタント(?:へ|に|は)|アシスタントへ/u,
    /(?:AI|人工智能|邮件)助手|助手请|致.{0,10}助手/u,
    /(?:AI|메일)\s?비서(?:에게|는)|비서에게/u,
    /مساعد (?:الذكاء الاصطناعي|البريد)|إلى المساعد/u,
  ],
  override: [
    /\b(?:ignorier|vergiss)\w*\s+(?:alle\s+)?(?:bisherigen|vorherigen|früheren)\s+(?:Anweisungen|Regeln)/iu,
    /\bignor\w*\s+(?:les|toutes les)\s+(?:instructions|consignes|règles)\s+(?:précédentes|antérieures)/iu,
    /\b(?:ignor[ae]|olvid[ae])\w*\s+(?:las|todas las)\s+(?:instrucciones|reglas)\s+(?:anteriores|previas)/iu,
    /\bignora\w*\s+(?:le|tutte le)\s+istruzioni\s+(?:precedenti|ricevute)/iu,
    /\b(?:desconsider|ignor)\w*\s+(?:as|todas as)\s+(?:instruções|regras)\s+anteriores/iu,
    /\bnegeer\s+(?:alle\s+)?(?:eerdere|vorige)\s+instructies/iu,
    /\bzignoruj\s+(?:wszystkie\s+)?(?:wcześniejsze|poprzednie)\s+(?:polecenia|instrukcje)/iu,
    /\bignorera\s+(?:alla\s+)?tidigare\s+instruktioner/iu,
    /önceki talimatlar[ıi]\s+(?:yok say|görmezden gel)/iu,
    /(?:игнорируй|забудь)\s+(?:все\s+)?(?:предыдущие|прежние)\s+(?:инструкции|указания)/iu,
    /(?:これまでの|以前の)指示を(?:すべて)?無視/u,
    /忽略(?:之前|以前|先前)的(?:所有)?指令/u,
    /이전 지시를?\s?(?:모두\s?)?무시/u,
    /تجاهل التعليمات السابقة/u,
  ],
  secrecy: [
    /\b(?:nicht|niemandem)\s+(?:erwähnen|sagen|informieren)\b|\bbehalten sie das\b.{0,20}\bfür sich\b|\berwähne das nicht\b/iu,
    /\bne (?:le|la|les)? ?(?:signale|dis|mentionne)\w* pas\b|\b(?:ne pas|sans) en parler\b|\binutile d['’]en parler\b/iu,
    /\bno (?:es necesario|hace falta) (?:informar|avisar)\b|\bno (?:lo )?(?:comente|comentes|digas|menciones)\b|\bmejor no comentarlo\b/iu,
    /\bnon (?:serve|è necessario) (?:avvisare|chiedere|informare)\b|\bnon dirlo\b|\bnon menzionare\b/iu,
    /\bn[ãa]o (?:mencione|precisa avisar|informe|conte)\b/iu,
    /\bvertel (?:de gebruiker )?(?:hier )?niets\b|\bhoeft het niet (?:aan iemand )?te vertellen\b/iu,
    /\bnie informuj\b|\bnie mów\b|\bnie ma potrzeby informować\b/iu,
    /\bberätta inte\b|\bnämn inte\b/iu,
    /\bbahsetme\b|\bbilgi verme\b|\bhaber verme\b/iu,
    /\bне (?:сообщай|говори|упоминай|информируй)\b/iu,
    /(?:知らせないで|内密に|言わないで)/u,
    /(?:不要告诉|不用告诉|不要通知|不要让.{0,6}知道)/u,
    /(?:알리지 마|말하지 마)/u,
    /لا تخبر/u,
    /\bkeep (?:this|it) between us\b|\brather keep this between us\b/iu,
  ],
  skipCheck: [
    /\b(?:keine|ohne)\s+Rückfrage|Rücksprache (?:ist )?nicht nötig|bereits (?:intern )?freigegeben\b/iu,
    /\bsans (?:confirmation|vérification)\b|\bdéjà validé\b/iu,
    /\bsin (?:confirmación|verificar)\b|\bya está (?:aprobado|hablado)\b/iu,
    /\bnon serve (?:chiedere )?conferma\b|\bgià approvato\b/iu,
    /\bj[áa] foi aprovado\b|\bsem confirma[çc][ãa]o\b|\bnão envie confirmação\b/iu,
    /\bgeen bevestiging nodig\b/iu,
    /\bbez potwierdzenia\b/iu,
    /\bonay zaten al[ıi]nd[ıi]\b/iu,
    /подтверждение.{0,30}не требуется|без подтверждения/iu,
    /確認は不要/u,
    /(?:无需|不需要)确认/u,
  ],
  // Verbs of sending, tested only in the stretch of text before an address (exfilHits).
  exfil: [
    /\b(?:leite|schick|send|übermittel)\w*\b|\bweiterleiten\b/iu,
    /\b(?:transf[eè]r|envoi|envoy|transmet)\w*/iu,
    /\b(?:reenv[ií]|env[ií][ae]|mand[ae])\w*/iu,
    /\b(?:inoltr|invi|gir)\w*/iu,
    /\b(?:encaminh|envi|junt)\w*/iu,
    /\b(?:stuur|doorsturen|verzamel)\w*/iu,
    /\b(?:prześlij|wyślij)\b/iu,
    /\b(?:skicka|vidarebefordra)\b/iu,
    /\b(?:ilet|gönder)\w*/iu,
    /(?:перешли|отправь|приложи|пришли)/iu,
    /(?:転送|送って|送信)/u,
    /(?:转发|发送|发到|导出|发给)/u,
    /(?:전달|보내)/u,
    /(?:أرسل|حوّل|حول)/u,
  ],
};

const MAX_SCAN = 50_000;
const MAX_ADDRESSES = 20;
const BEFORE = 160; // how far before an address its sending verb may stand
const AFTER = 40; // "... adresine ilet", "...로 전달", "...に転送": the verb after the address

// One expression per idea, case folded once (case-insensitive Unicode matching is slow in
// JavaScriptCore): the text is lowercased instead, and the patterns were written to match it.
const JOINED = Object.fromEntries(
  (Object.keys(P) as (keyof typeof P)[]).map((idea) => [idea, new RegExp(P[idea].map((re) => re.source.toLowerCase()).join("|"), "u")]),
) as Record<keyof typeof P, RegExp>;

// Words that report on attacks rather than make one, per language: researchers, attackers,
// fraudsters, a study or report, a warning.
const FRAME = new RegExp(
  [
    "forscher|angreifer|betrüger|studie|bericht|warn(?:en|t)",
    "chercheurs|attaquants|pirates|escrocs|étude|rapport|mettent en garde",
    "investigadores|atacantes|ciberdelincuentes|estafadores|estudio|informe|advierten",
    "ricercatori|attaccanti|truffatori|studio|rapporto|avvertono",
    "pesquisadores|golpistas|estudo|relatório|alertam",
    "onderzoekers|aanvallers|oplichters|waarschuwen",
    "badacze|atakujący|oszuści|raport|ostrzegają",
    "forskare|angripare|bedragare|varnar",
    "araştırmacılar|saldırganlar|dolandırıcılar|rapor|uyarıyor",
    "исследовател|злоумышленник|мошенник|отч[её]т|предупрежда",
    "研究者|攻撃者|詐欺師|報告書|注意喚起",
    "研究人员|攻击者|骗子|报告|研究发现|提醒",
    "연구원|공격자|사기꾼|보고서",
    "الباحثون|المهاجمون|المحتالون|تقرير",
  ].join("|"),
  "u",
);
const OPEN_QUOTES = '"“„«「『‘';
const CLOSE_QUOTES = '"”“»」』’';
const SENTENCE_END = /[.!?。！？\n]/;
const SENTENCE_REACH = 300;

export function multilingualHits(text: string, hits: Hit[]): void {
  const sample = text.slice(0, MAX_SCAN).toLowerCase();
  for (const idea of ["addressed", "override", "secrecy", "skipCheck"] as const) {
    const m = JOINED[idea].exec(sample);
    if (m)
      hits.push({
        name: `ml_${idea === "skipCheck" ? "skip_check" : idea}`,
        weight: W.multilingual[idea] * discussion(sample, m.index, m.index + m[0].length),
        start: m.index,
        end: m.index + m[0].length,
      });
  }
  exfilHits(sample, hits);
}

// The damping of a match: quoted (an opening quote mark before it in its sentence, not closed
// before it) and reported on (a frame word in its sentence), each as the English families damp.
function discussion(text: string, start: number, end: number): number {
  let from = start;
  while (from > 0 && start - from < SENTENCE_REACH && !SENTENCE_END.test(text[from - 1]!)) from--;
  let to = end;
  while (to < text.length && to - end < SENTENCE_REACH && !SENTENCE_END.test(text[to]!)) to++;
  let factor = 1;
  if (FRAME.test(text.slice(from, to))) factor *= W.context.timesFramed;
  let open = false;
  for (let i = from; i < start; i++) {
    const c = text[i]!;
    if (!open && OPEN_QUOTES.includes(c)) open = true;
    else if (open && CLOSE_QUOTES.includes(c)) open = false;
  }
  if (open) factor *= W.context.timesQuoted;
  return factor;
}

// Each address in the text (at most MAX_ADDRESSES), with a sending verb in the stretch around
// it: bounded windows, so the cost stays linear in the text.
function exfilHits(text: string, hits: Hit[]): void {
  let from = 0;
  for (let n = 0; n < MAX_ADDRESSES; n++) {
    const at = text.indexOf("@", from);
    if (at < 0) return;
    from = at + 1;
    if (!/^[\w-]+\.[\w.]+/.test(text.slice(at + 1, at + 64)) || !/[\w.+-]$/.test(text.slice(Math.max(0, at - 1), at))) continue;
    const start = Math.max(0, at - BEFORE);
    const window = text.slice(start, at + AFTER);
    if (JOINED.exfil.test(window)) {
      hits.push({ name: "ml_exfil", weight: W.multilingual.exfil, start, end: Math.min(text.length, at + AFTER) });
      return;
    }
  }
}
