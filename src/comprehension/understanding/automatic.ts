// Is this mail automatic (an out-of-office, an auto-reply, a bounce, a helpdesk acknowledgement, a
// list notice, an unmonitored mailbox's answer) or did a person write it? Answering automatic mail
// is how agents start mail loops, so the loop guard (src/core/outbound/loop-guard.ts) holds such replies.
//
// Evidence, strongest first: the headers a responder sets (RFC 3834 Auto-Submitted, X-Autoreply,
// X-Autorespond, Precedence, Microsoft's X-Auto-Response-Suppress and X-MS-Exchange auto-reply
// markers), the structure of delivery and feedback reports, the subject prefixes responders write
// in many languages, and the body's wording. Many responders set no header, so wording counts, but
// alone it must say more than a person would: "I'm away next week" in a reply is not automatic;
// "I am out of the office until 3 March with limited access to email; for urgent matters contact
// ..." is.

export type AutomaticKind =
  | "out_of_office"
  | "auto_reply"
  | "delivery_status"
  | "ticket_acknowledgement"
  | "list_notice"
  | "unmonitored_mailbox";

export type Automatic = { kind: AutomaticKind; evidence: string[] };

export type AutomaticInput = {
  subject: string;
  fromAddr: string;
  bodyClean: string;
  /** Lower-case header names to their first value. */
  headers: Record<string, string>;
  /** Every MIME part type seen. */
  contentTypes: string[];
};

// Bounded: responders say what they are in their first lines.
const MAX_SCAN = 4000;

/** Subject prefixes of automatic replies (Outlook, Gmail, Exchange and others, in many languages). */
const AUTO_SUBJECT =
  /^\s*(?:automatic reply|auto(?:matic)?[- ]?(?:reply|response)|autoreply|out of (?:the )?office|ooo\b|away from (?:the )?office|abwesend|abwesenheitsnotiz|automatische antwort|r[ée]ponse automatique|absence du bureau|absent(?:e)?\b|respuesta autom[áa]tica|fuera de la oficina|ausente|risposta automatica|fuori sede|fuori ufficio|automatisch antwoord|afwezig|resposta autom[áa]tica|fora do escrit[óo]rio|autosvar|fr[åa]nvaro|automatisk svar|frav[æe]r|odpowied[źz] automatyczna|poza biurem|automaattinen vastaus|自動応答|自动回复|自動返信|不在|休暇|부재|자동\s*회신|автоответ|автоматический ответ)(?:\s*[:\-–(]|\s*$|\s+(?:until|till|through|bis|jusqu|hasta|fino|tot|até|till))/i;

const DELIVERY_SUBJECT =
  /^\s*(?:undeliver(?:ed|able)|delivery status notification|delivery (?:has )?failed|mail delivery (?:failed|failure|subsystem)|returned mail|failure notice|non[- ]?delivery|message not delivered|unzustellbar|nicht zustellbar|non remis|no se pudo entregar|non recapitabile|onbestelbaar|não entregue|olevererbart|niedostarczona)/i;

const TICKET_SUBJECT =
  /(?:\[?(?:ticket|case|request|incident|support)\s*(?:#|no\.?|number|id)?\s*:?\s*[A-Z]{0,5}-?\d{3,}\]?|\(#\d{3,}\)|\[#\d{3,}\]|we(?:'ve| have) received your (?:request|message|email|inquiry)|request received|ticket (?:created|received|opened)|case (?:created|opened)|anfrage (?:erhalten|eingegangen)|demande (?:reçue|enregistr[ée]e)|solicitud recibida|richiesta ricevuta)/i;

// Wording, by what it says. Each is a family of phrasings in several languages.
const AWAY = new RegExp(
  [
    "\\bi(?:'m| am) (?:currently |now )?(?:out of (?:the )?office|away|on (?:annual |parental |sick |maternity |paternity )?(?:leave|vacation|holiday)|travell?ing|not in the office|off)",
    "\\bi will be (?:out of (?:the )?office|away|on (?:leave|vacation|holiday))",
    "\\bout of (?:the )?office (?:until|from|through|till)",
    "ich bin (?:derzeit |zurzeit |momentan |bis )?(?:.{0,30})?(?:nicht im b[üu]ro|abwesend|im urlaub|au[ßs]er haus)",
    "je suis (?:actuellement )?(?:absent|absente|en cong[ée]s?|en vacances|hors du bureau)",
    "(?:estoy|me encuentro) (?:actualmente )?(?:fuera de la oficina|de vacaciones|ausente|fuera)",
    "sono (?:attualmente )?(?:fuori (?:ufficio|sede)|assente|in ferie|in vacanza)",
    "ik ben (?:momenteel |op dit moment )?(?:afwezig|niet op kantoor|met vakantie|op vakantie)",
    "(?:estou|encontro-me) (?:atualmente )?(?:fora do escrit[óo]rio|ausente|de f[ée]rias)",
    "jag är (?:för närvarande )?(?:ledig|borta|på semester|inte på kontoret)",
    "jestem (?:obecnie )?(?:poza biurem|na urlopie|nieobecn[ya])",
    "不在にして(?:おります|います)",
    "(?:我|本人)(?:目前|现在)?(?:正在)?(?:休假|不在办公室|外出)",
  ].join("|"),
  "i",
);
const RETURN = new RegExp(
  [
    "\\b(?:i will|i'll) (?:be )?(?:back|return(?:ing)?)\\b",
    "\\breturning (?:on|to the office)",
    "\\bback (?:in the office )?on\\b",
    "\\buntil (?:\\w+ )?\\d{1,2}",
    "ab dem \\d|bin (?:ab|am) .{0,20}wieder|wieder (?:im b[üu]ro|erreichbar|da)|zur[üu]ck am",
    "de retour (?:le|à partir)|serai de retour",
    "regresar[ée]|estar[ée] de vuelta|volver[ée]",
    "rientrer[òo]|sar[òo] di ritorno|torner[òo]",
    "ben (?:weer|terug) (?:op|vanaf)|vanaf .{0,15} weer",
    "estarei de volta|retorno (?:em|no dia)|regressarei",
    "tillbaka (?:den|på|igen)",
    "wracam|b[ęe]d[ęe] (?:z powrotem|dost[ęe]pn)",
    "(?:日|月).{0,6}(?:より|から).{0,10}(?:出社|戻)",
    "(?:日|月).{0,6}(?:返回|回来)",
  ].join("|"),
  "i",
);
const ROUTINE = new RegExp(
  [
    "\\b(?:for (?:anything )?urgent (?:matters|issues|requests|inquiries|questions)|in case of (?:urgency|emergency)|if (?:your (?:matter|message) is|it is) urgent|urgent matters)",
    "\\blimited (?:access to (?:my )?e-?mail|e-?mail access)",
    "\\b(?:this is an? )?(?:automatic|automated|auto-generated|autogenerated) (?:reply|response|message|e-?mail|notification)",
    "\\bwithout (?:access to|checking) (?:my )?e-?mail",
    "\\byour (?:e-?mail|message) (?:will not be forwarded|will be read (?:up|upon|when))",
    "in dringenden f[äa]llen|dringende anliegen|keinen zugriff auf (?:meine )?e-?mails|automatisch generiert|automatische antwort",
    "en cas d'urgence|pour toute (?:demande )?urgen|acc[èe]s limit[ée] à (?:mes )?e-?mails?|r[ée]ponse automatique|message automatique",
    "(?:para )?(?:asuntos|temas|casos) urgentes|en caso de urgencia|acceso limitado al correo|respuesta autom[áa]tica|mensaje autom[áa]tico",
    "per (?:questioni|richieste|comunicazioni) urgenti|in caso di urgenza|accesso limitato alla (?:posta|e-?mail)|risposta automatica|messaggio automatico",
    "(?:voor )?dringende (?:zaken|vragen)|in dringende gevallen|beperkt toegang tot (?:mijn )?e-?mail|automatisch (?:antwoord|bericht)",
    "(?:para )?assuntos urgentes|em caso de urg[êe]ncia|acesso limitado ao e-?mail|resposta autom[áa]tica|mensagem autom[áa]tica",
    "vid brådskande ärenden|brådskande|automatiskt svar|begränsad tillgång till e-?post",
    "w pilnych sprawach|ograniczony dost[ęe]p do poczty|odpowied[źz] automatyczna|wiadomo[śs][ćc] automatyczna",
    "お急ぎの(?:場合|方)|緊急の(?:場合|ご用件)|自動(?:応答|返信)",
    "(?:如有)?紧急(?:事项|情况|事宜)|自动回复",
  ].join("|"),
  "i",
);
const AUTO_ACK =
  /\b(?:thank you for (?:contacting|your (?:email|message|inquiry|enquiry|request))|thanks for (?:contacting|reaching out|your (?:email|message)))\b[^.]{0,120}(?:\.|!)?[^.]{0,200}\b(?:(?:we|our team|someone|an agent|a member of (?:our|the) team)(?:'ll| will) (?:get back|respond|reply|be in touch|contact you)|within \d+|business (?:days|hours)|as soon as possible)/i;
/** "We received it and will answer", in the languages above: a helpdesk's acknowledgement. */
const ACK_WORDS =
  /(?:(?:we|our team)(?:'ll| will) (?:respond|reply|get back)|a bien été (?:enregistr|reçu)|nous vous r[ée]pondrons|wir melden uns|wir werden uns .{0,20}melden|le responderemos|nos pondremos en contacto|vi risponderemo|wij nemen .{0,20}contact|responderemos|vi återkommer|odpowiemy)/i;
const TICKET_BODY =
  /\b(?:your (?:ticket|case|request)(?: number| id| #)?(?: is|:)?\s*#?[A-Z]{0,5}-?\d{3,}|(?:ticket|case|reference|request) (?:number|id|#)\s*:?\s*#?[A-Z]{0,5}-?\d{3,}|a (?:support )?ticket has been (?:created|opened)|reply above this line|please do not change the subject)/i;
const UNMONITORED =
  /\b(?:this (?:e-?mail |mail)?(?:address|mailbox|inbox) is (?:not monitored|unmonitored|no longer (?:monitored|in use|active))|(?:please )?do not reply (?:to this (?:e-?mail|message|address))|replies to this (?:e-?mail|address|message) (?:are not|will not be) (?:monitored|read|received)|this (?:is an? )?(?:unattended|unmonitored) mailbox|no longer (?:works|work) (?:at|for|with)|is no longer (?:with|employed|at)|diese (?:e-?mail-)?adresse (?:wird nicht (?:überwacht|gelesen)|ist nicht mehr aktiv)|cette (?:adresse|bo[iî]te) n'est (?:pas|plus) (?:surveill[ée]e|consult[ée]e|active)|esta (?:direcci[óo]n|cuenta|bandeja) no (?:est[áa] monitorizada|se revisa|es monitoreada)|questa casella non [èe] (?:monitorata|presidiata)|dit adres wordt niet (?:gelezen|gecontroleerd))/i;
const NOREPLY_SENDER =
  /^(?:no[-_.]?reply|do[-_.]?not[-_.]?reply|noreply|donotreply|no_reply|mailer-daemon|postmaster|bounces?)(?:[+\-.][^@]*)?@/i;
const DAEMON_SENDER = /^(?:mailer-daemon|postmaster|mail-daemon)@/i;

/** A request not to be answered automatically: Exchange puts it on its own auto-replies. Weak alone. */
function suppressOf(input: AutomaticInput): string | null {
  return header(input, "x-auto-response-suppress");
}

function header(input: AutomaticInput, name: string): string | null {
  const value = input.headers[name];
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/** null for mail a person wrote; otherwise what kind of automatic mail, and why we think so. */
export function detectAutomatic(input: AutomaticInput): Automatic | null {
  const subject = input.subject ?? "";
  const body = (input.bodyClean ?? "").slice(0, MAX_SCAN);
  const from = (input.fromAddr ?? "").toLowerCase();
  const types = input.contentTypes.map((type) => type.toLowerCase());
  const evidence: string[] = [];

  // Reports are structure, not wording.
  const report = header(input, "content-type")?.toLowerCase() ?? "";
  if (
    types.some((t) => t === "message/delivery-status" || t === "message/global-delivery-status" || t === "message/feedback-report") ||
    /report-type\s*=\s*"?(?:delivery-status|feedback-report)/.test(report)
  ) {
    return { kind: "delivery_status", evidence: ["a delivery status or feedback report part (RFC 3464 / RFC 5965)"] };
  }
  if (DAEMON_SENDER.test(from) && DELIVERY_SUBJECT.test(subject))
    return { kind: "delivery_status", evidence: [`sender ${from.split("@")[0]}`, `subject "${subject.slice(0, 60)}"`] };

  // auto-replied (and auto-notified) come from responders. auto-generated alone is weak: agents
  // mark what they write with it (we do, docs/decisions.md), and a message an agent composed for
  // its reader is not an auto-reply; with a responder's wording or sender it counts.
  const autoSubmitted = header(input, "auto-submitted")?.toLowerCase() ?? null;
  const generated = autoSubmitted?.startsWith("auto-generated") ? `Auto-Submitted: ${autoSubmitted.slice(0, 40)}` : null;
  if (autoSubmitted && !autoSubmitted.startsWith("no") && !generated) evidence.push(`Auto-Submitted: ${autoSubmitted.slice(0, 40)}`);
  for (const name of ["x-autoreply", "x-autorespond", "x-auto-reply", "x-autoresponder"]) {
    const value = header(input, name);
    if (value && !/^(?:no|false|0)$/i.test(value)) evidence.push(`${name}: ${value.slice(0, 40)}`);
  }
  if (header(input, "x-ms-exchange-inbox-rules-loop") || header(input, "x-ms-exchange-generated-message-source"))
    evidence.push("X-MS-Exchange auto-reply marker");
  const precedence = header(input, "precedence")?.toLowerCase() ?? null;
  if (precedence === "auto_reply") evidence.push("Precedence: auto_reply");
  const headerSays = evidence.length > 0;
  const weak = [
    ...(generated ? [generated] : []),
    ...(suppressOf(input) ? [`X-Auto-Response-Suppress: ${suppressOf(input)!.slice(0, 30)}`] : []),
  ];
  const subjectSays = AUTO_SUBJECT.test(subject);
  if (subjectSays) evidence.push(`subject "${subject.slice(0, 60)}"`);

  const away = AWAY.exec(body);
  const returning = RETURN.exec(body);
  const routine = ROUTINE.exec(body);
  const ticketSubject = TICKET_SUBJECT.test(subject);
  const ticketBody = TICKET_BODY.exec(body);
  const ack = AUTO_ACK.exec(body);
  const unmonitored = UNMONITORED.exec(body);
  const quote = (match: RegExpExecArray | null) => (match ? `"${match[0].slice(0, 60)}"` : "");

  if (unmonitored && (headerSays || subjectSays || weak.length > 0 || NOREPLY_SENDER.test(from) || routine || body.length < 600)) {
    return { kind: "unmonitored_mailbox", evidence: [...evidence, ...weak, `wording ${quote(unmonitored)}`] };
  }
  if ((ticketSubject || ticketBody) && (ack || headerSays || generated || ticketBody || ACK_WORDS.test(body))) {
    return {
      kind: "ticket_acknowledgement",
      evidence: [...evidence, ...weak, ...(ticketSubject ? [`subject "${subject.slice(0, 60)}"`] : []), quote(ticketBody ?? ack)].filter(
        Boolean,
      ),
    };
  }
  if (away && (headerSays || subjectSays || routine || weak.length > 0)) {
    return {
      kind: "out_of_office",
      evidence: [...evidence, ...weak, `wording ${quote(away)}`, ...(routine ? [`wording ${quote(routine)}`] : [])],
    };
  }
  // Wording alone: away, when, and the routine a person never writes in a reply of their own.
  if (away && returning && routine) {
    return { kind: "out_of_office", evidence: [`wording ${quote(away)}`, `wording ${quote(returning)}`, `wording ${quote(routine)}`] };
  }
  if (ack && (headerSays || subjectSays || generated || NOREPLY_SENDER.test(from) || routine)) {
    return { kind: "auto_reply", evidence: [...evidence, ...weak, `wording ${quote(ack)}`] };
  }
  if (generated && routine) return { kind: "auto_reply", evidence: [generated, `wording ${quote(routine)}`] };
  if (headerSays || subjectSays) return { kind: "auto_reply", evidence };
  if (precedence === "bulk" || precedence === "junk" || precedence === "list") {
    if (header(input, "list-id") || header(input, "list-unsubscribe") || NOREPLY_SENDER.test(from))
      return { kind: "list_notice", evidence: [`Precedence: ${precedence}`] };
  }
  if (NOREPLY_SENDER.test(from) && (header(input, "list-unsubscribe") || routine))
    return { kind: "list_notice", evidence: [`sender ${from.split("@")[0]}`, ...(routine ? [`wording ${quote(routine)}`] : [])] };
  if (ack && ack.index < 200 && body.length < 1200) return { kind: "auto_reply", evidence: [`wording ${quote(ack)}`] };
  return null;
}
