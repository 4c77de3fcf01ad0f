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
//   addressed_request  an address, then in its paragraph a request ("AI 비서님께: ... 해 주세요")
//               or the human kept out ("Ассистенту: ... владельца беспокоить не нужно"); an
//               assistant merely named (mention) counts only when it opens a line ending in a colon
// Languages: de fr es it pt nl pl sv tr ru uk ja zh ko ar hi id vi, and a line each for da/no cs
// ro el he th fi (English is the families' own).
// The phrases were written from knowledge of each language, not copied from any corpus.

import ML_WORDS from "./multilingual-words.json" with { type: "json" };
import type { Hit } from "./view.ts";
import { WEIGHTS as W } from "./weights.ts";

// Written for the lowercased text (see JOINED). `\b` knows ASCII letters only, so words in other
// scripts are bounded with (?<!\p{L}) / (?!\p{L}) instead.
const P: Record<"addressed" | "mention" | "override" | "secrecy" | "skipCheck" | "exfil" | "request", RegExp[]> = {
  addressed: [
    // English, where the families miss it: a note to the assistant, the assistant that handles the
    // mail named as the one to act, "if an assistant drafts your reply"
    /\b(?:note|p\.?\s?s\.?|message|instructions?|reminder)s? (?:for|to) (?:the |any |all )?(?:ai\b|(?:ai|summari[sz]ing|email|inbox|mail|automated) (?:assistants?|agents?|tools?)\b|assistants? (?:that|which|who)\b)/iu,
    /\b(?:ai|assistant|agent|bot) (?:that|which|who) (?:manages|handles|reads|sorts|triages|answers|drafts|processes|summari[sz]es|runs) (?:your|this|the|[a-z]+['’]s) (?:inbox|mail|mailbox|email|emails|messages|replies|reply|correspondence)\b/iu,
    /(?:^|\n)\s*(?:for|to|attention:?) (?:any |all |the )?(?:automated|ai|llm|ai-powered|ai-based) [a-z -]{0,30}(?:tools?|systems?|assistants?|agents?|readers?|parsers?|models?)\s*[:,]/iu,
    /\b(?:agents?|assistants?) (?:creating|acting|signing up|registering)\b[^.\n:]{0,40}\bon behalf of\b[^.\n:]{0,30}:|@(?:email|mail|inbox|ai)[-_]?(?:assistant|agent|bot)\b/iu,
    /\b(?:hello|hi|dear|greetings),? (?:ai|ai assistant|ai agent|email assistant|inbox assistant|counterpart agent)\b/iu,
    /\bif (?:an |your |the )?(?:ai|assistant|agent|bot|email assistant) (?:is )?(?:reads?|reading|drafts?|drafting|handles?|handling|manages?|managing|processes|processing|summari[sz]es|summari[sz]ing)\b/iu,
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
    // added later: the reader named in the dative or vocative ("to the assistant", "assistant:")
    /\battention de l['’]assistant\b|\baan de assistent\b|\b(?:till|för) assistenten\b/iu,
    /(?:yapay zek[aâ]|ai) asistan(?:ına|ından)/iu,
    /(?<!\p{L})(?:ассистенту|помощнику|асистенту|помічнику)(?!\p{L})|если (?:почту|письма|переписку) (?:обрабатывает|читает|разбирает)|якщо (?:пошту|листи) (?:обробляє|читає)/iu,
    /(?:アシスタント|秘書|エージェント)(?:様|さん)/u,
    /(?:助手|助理)[:：]/u,
    /(?:비서|어시스턴트|에이전트)(?:님)?(?:께|에게)/u,
    /للمساعد|أيها المساعد|إلى الوكيل/u,
    /(?:सहायक|असिस्टेंट|एजेंट) के लिए|(?:सहायक|असिस्टेंट) से (?:अनुरोध|निवेदन)/u,
    /(?:gửi|nhờ) trợ lý/u,
    /\basystentowi\b|\bdrogi asystencie\b/iu,
    /\b(?:jeśli|jeżeli|gdy) (?:twoją|pana|pani|państwa|waszą) (?:pocztę|skrzynkę) (?:obsługuje|czyta|prowadzi)|\bskrzynk\p{L}* (?:jest )?(?:obsługiwan|zarządzan)\p{L}* przez/iu,
    /(?<!\p{L})(?:асистенте|помічнику|асистентові)(?!\p{L})/iu,
    // fewer mail in these, one line each: da/no, cs, ro, el, he, th, fi
    /\btil (?:ai-)?assistenten\b|\basistentovi\b|\basistentului\b|στον? (?:ψηφιακό )?βοηθό|לעוזר|ถึงผู้ช่วย|\bavustajalle\b/iu,
    // the reader as whoever reads or handles this mail, or "if you are an AI"
    /\bwenn du (?:eine )?ki bist\b|\bsi (?:vous êtes|tu es) une ia\b|\bsi eres una ia\b|\bse sei un['’]\s?ia\b|\bse você é uma ia\b|\bals je een ai bent\b|\bom du är en ai\b|\bjeśli jesteś (?:ai|si|asystentem)\b/iu,
    /(?:если (?:вы|ты) (?:ии|ai|нейросеть|ассистент)|якщо (?:ви|ти) (?:ші|ai|асистент)|(?:ии|ассистент|помощник)\p{L}*,? (?:читающ|обрабатывающ)\p{L}*)/iu,
    /(?:eğer )?(?:bir )?yapay zek[aâ] (?:iseniz|isen|isen)|bu e-?postayı (?:okuyan|işleyen) (?:yapay zek[aâ]|asistan|ai)/iu,
    /إذا كنت (?:مساعدًا|مساعدا|ذكاءً اصطناعيًا|ذكاء اصطناعي)|(?:المساعد|الذكاء الاصطناعي) الذي يقرأ/u,
    /(?:अगर|यदि) (?:आप|तुम) (?:ai|एआई|सहायक)|(?:यह|इस) ईमेल (?:पढ़|पढ)\p{L}*\p{M}* (?:रहे|वाले) (?:ai|एआई|सहायक)/u,
    /nếu bạn là (?:ai|trợ lý)|\bjika anda (?:adalah )?(?:ai|asisten)\b/u,
    /如果你是(?:ai|人工智能|助手)|(?:阅读|读到|处理)(?:这封|此|本)邮件的(?:ai|助手|助理|智能体)/u,
    /(?:あなたが|もしあなたが)(?:ai|ａｉ|アシスタント)|この(?:メール|メッセージ)を(?:読んで|処理して)いる(?:ai|ａｉ|アシスタント)/u,
    /(?:ai|인공지능)(?:라면|이라면)|이 (?:메일|이메일)을 (?:읽는|처리하는) (?:ai|비서|어시스턴트)/u,
    /(?:^|\n)\s*(?:untuk|kepada|bagi) asisten\b/u,
    // the reader as the assistant that handles the mail, payments or orders ("Si c'est votre
    // assistant qui gère vos mails", "Falls Ihre Post von einem digitalen Assistenten verwaltet wird")
    /\b(?:post|e-?mails?|mails|postfach|nachrichten|korrespondenz)\p{L}* (?:von|durch) (?:einem|einer|einen|ihrem|ihren|dem|der)? ?(?:digitalen |virtuellen )?(?:ki-?)?(?:assistent|ki|agent)\p{L}* (?:verwaltet|bearbeitet|beantwortet|gelesen|(?:vor)?sortiert|betreut)/iu,
    /\b(?:assistent|ki-assistent|agent)\p{L}*,? (?:der|die) (?:ihre|deine|die|das) (?:post|e-?mails?|mails|postfach|nachrichten|zahlungen|bestellungen)/iu,
    /\b(?:assistant|ia|agent)\p{L}* (?:(?:ia|numérique|virtuel) )?qui (?:gère|traite|lit|trie|répond)|\bsi c['’]est votre (?:assistant|ia)\b|\b(?:messagerie|boîte mail|mails?|courriels?) (?:est |sont )?gérée?s? par (?:un|une|votre) (?:assistant|ia|agent)/iu,
    /\b(?:asistente|ia|agente)\p{L}* (?:(?:de ia|virtual|digital) )?que (?:gestiona|lee|procesa|responde|administra)|\bpara la ia\b/iu,
    /\b(?:assistente|assistenti|ia|agente)\p{L}* (?:(?:ai|ia|digitali?|virtuali?) )?che (?:gestisc|legg|elabor|rispond)|\bper (?:l['’]\s?|gli |la )(?:assistente|assistenti|ia)\b/iu,
    /\b(?:assistente|ia|agente)\p{L}* (?:(?:de ia|virtual|digital) )?(?:que (?:gerencia|lê|processa|responde|cuida)|responsável pel)|\bpara a ia\b/iu,
    /\b(?:assistent|ai)\p{L}* die (?:uw|je|de) (?:mail|e-?mail|inbox|post|berichten|betalingen)|\bals (?:uw|je) (?:mail|inbox|post) (?:door|wordt)/iu,
    /\b(?:assistent|ai)\p{L}* som (?:hanterar|läser|sköter|svarar)/iu,
    /\basystent\p{L}* (?:(?:ai|si) )?(?:który|która|obsługując)/iu,
    /\b(?:hallo|liebe[rs]?|bonjour|cher|chère|hola|estimado|ciao|caro|gentile|olá|prezado|hej|beste|cześć|drogi|merhaba|sayın|привет|здравствуй\p{L}*|уважаем\p{L}*|привіт|шановн\p{L}*),? (?:\p{L}+ ){0,2}(?:ki-|ai-)?(?:assistent|assistant|asistente|assistente|asystent|asistan|ассистент|помощник|асистент|помічник)\p{L}*/iu,
    /(?:просим|прошу|просимо|прошу) (?:ии-|ші-)?(?:ассистента|помощника|асистента|помічника)|(?:который|которая|який|яка) (?:ведёт|ведет|веде|обрабатывает|обробляє|разбирает|читает) (?:эту |вашу |цю |вашу )?(?:почту|пошту|переписку)/iu,
    /(?:ai|ａｉ)?アシスタント(?:の方|宛)|(?:メール|受信メール|メールボックス)を(?:管理|処理|整理)(?:している|されている)(?:ai|ａｉ)?アシスタント/u,
  ],
  // An AI assistant or agent named, in any grammatical role: alone no signal (announcements and
  // news name them all the time); followed by a colon and a request, an address (addressedRequest).
  mention: [
    /\bki-(?:assistent|agent)\p{L}*|\bki, die\b|\ban die ki\b/iu,
    /\bassistant(?:e)? (?:ia|numérique|virtuel)\b|\bagent (?:ia|d['’]ia)\b|\bl['’]ia qui (?:gère|traite|lit|trie)/iu,
    /\basistente (?:de ia|virtual|digital|inteligente)\b|\bagente de ia\b|\bla ia que (?:gestiona|lee|procesa)/iu,
    /\bassistente (?:ia|digitale|virtuale|automatico)\b|\bagente ia\b/iu,
    /\bassistente (?:de ia|digital|virtual)\b|\ba ia que (?:gerencia|lê|processa)/iu,
    /\b(?:ai|digitale|virtuele)[- ]?assistent(?:e)?\b|\bassistent die\b/iu,
    /\basystent\p{L}* (?:ai|si)\b|\b(?:ai|si) asystent/iu,
    /\b(?:twój|wasz|pana|pani) (?:wirtualny )?asystent\p{L}*/iu,
    /(?:ai|인공지능)\s?(?:챗봇|봇)|에이전트/u,
    /\bai-?assistent(?:en)?\b|\bassistenten som\b|\bdigitala assistenten\b/iu,
    /yapay zek[aâ] asistan\p{L}*|\bai asistan/iu,
    /(?:ии|ai)[- ]?(?:агент|ассистент|помощник)|(?:ассистент|помощник)\p{L}*,? (?:который|которая|обрабатыва)/iu,
    /(?:ші|ai)[- ]?(?:асистент|помічник|агент)/iu,
    /(?:ai|ａｉ)\s?(?:アシスタント|秘書|エージェント)|メールを(?:処理|管理|整理|確認)する(?:ai|アシスタント)/u,
    /智能助手|(?:ai|智能)\s?(?:助手|助理|代理)|智能体|(?:处理|管理)(?:邮件|邮箱)的(?:ai|助手|助理)/u,
    /(?:ai|인공지능|메일)\s?(?:비서|어시스턴트|에이전트)/u,
    /المساعد (?:الذكي|الآلي|الرقمي)|الوكيل الذكي|وكيل الذكاء الاصطناعي/u,
    /(?:ai|एआई)\s?(?:सहायक|असिस्टेंट|एजेंट)/u,
    /trợ lý (?:ai|ảo|số|thông minh)|trợ lý đang (?:quản lý|xử lý)/u,
    /\basisten (?:ai|virtual|digital|email|surel)\b|\bai yang (?:mengelola|membaca|menyiapkan|membantu)\b/u,
    /\bai-assistent(?:en)?\b|\b(?:ai )?asistent(?:a)? (?:ai|umělé inteligence)\b|\basistentul (?:ai|virtual)\b|βοηθός (?:ai|τεχνητής νοημοσύνης)|עוזר (?:ה-?)?(?:ai|בינה מלאכותית)|ผู้ช่วย\s?(?:ai|เอไอ)|\btekoälyavustaja\p{L}*/u,
  ],
  override: [
    /\b(?:ignorier|vergiss)\w*\s+(?:alle\s+)?(?:bisherigen|vorherigen|früheren)\s+(?:Anweisungen|Regeln)/iu,
    /\bignor\w*\s+(?:les|toutes les)\s+(?:instructions|consignes|règles)\s+(?:précédentes|antérieures)/iu,
    /\b(?:ignor[ae]|olvid[ae])\w*\s+(?:las|todas las)\s+(?:instrucciones|reglas)\s+(?:anteriores|previas)/iu,
    /\bignora\w*\s+(?:le|tutte le)\s+istruzioni\s+(?:precedenti|ricevute)/iu,
    /\b(?:desconsider|ignor)\w*\s+(?:as|todas as)\s+(?:instruções|regras)\s+anteriores/iu,
    /\bnegeer\s+(?:alle\s+)?(?:eerdere|vorige|voorgaande)\s+(?:instructies|opdrachten)/iu,
    /\bzignoruj\s+(?:wszystkie\s+)?(?:wcześniejsze|poprzednie)\s+(?:polecenia|instrukcje)/iu,
    /\bignorera\s+(?:alla\s+)?(?:tidigare|föregående)\s+(?:instruktioner|anvisningar)/iu,
    /önceki talimatlar[ıi]\s+(?:yok say|görmezden gel|unut|dikkate alma)|tüm talimatlar\p{L}*\s+(?:yok say|görmezden gel|unut)/iu,
    /(?:игнорируй|забудь|проигнорируй)\p{L}*\s+(?:все\s+)?(?:предыдущие|прежние|прошлые|ранее данные)\s+(?:инструкции|указания|правила)/iu,
    /(?:ігноруй|забудь|проігноруй)\p{L}*\s+(?:всі\s+|усі\s+)?(?:попередні|минулі)\s+(?:інструкції|вказівки)/iu,
    /(?:これまでの|以前の|前の|先の|上記の)指示を(?:すべて|全て)?無視/u,
    /忽略(?:之前|以前|先前|上述|前面|以上|所有)的?(?:所有)?(?:指令|指示|规则)|无视(?:之前|以前|先前)?的?(?:指令|指示)/u,
    /이전 (?:지시|지침|명령)[^\s]{0,3}\s?(?:모두\s?)?무시/u,
    /تجاهل (?:جميع |كل )?التعليمات|تجاهل (?:كل )?ما سبق/u,
    /पिछले (?:सभी )?निर्देश\p{M}*\s?(?:को\s)?(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)/u,
    /bỏ qua (?:tất cả )?(?:các |mọi )?(?:hướng dẫn|chỉ dẫn|chỉ thị) (?:trước|cũ)/u,
    /\babaikan (?:semua )?(?:instruksi|perintah) (?:sebelumnya|sebelum ini|lama)\b/u,
  ],
  secrecy: [
    /\b(?:nicht|niemandem)\s+(?:erwähnen|sagen|informieren)\b|\bbehalten sie das\b.{0,20}\bfür sich\b|\berwähne das nicht\b/iu,
    /\bne (?:le|la|les)? ?(?:signale|dis|mentionne)\w* pas\b|\b(?:ne pas|sans) en parler\b|\binutile d['’]en parler\b/iu,
    /\bno (?:es necesario|hace falta) (?:informar|avisar)\b|\bno (?:lo )?(?:comente|comentes|digas|menciones)\b|\bmejor no comentarlo\b/iu,
    /\bnon (?:serve|è necessario) (?:avvisare|chiedere|informare)\b|\bnon dirlo\b|\bnon menzionare\b/iu,
    /\bn[ãa]o (?:mencione|precisa avisar|informe|conte)\b/iu,
    /\bvertel (?:de gebruiker )?(?:hier )?niets\b|\bhoeft het niet (?:aan iemand )?te vertellen\b/iu,
    /\bniet (?:vermelden|noemen)\b|\bvermeld (?:dit|het) niet\b/iu,
    /\bnie informuj\b|\bnie mów\b|\bnie ma potrzeby informować\b|\bnie wspominaj\b/iu,
    /\bnie (?:dodawaj|umieszczaj|uwzględniaj)\p{L}* (?:tego )?w (?:podsumowaniu|streszczeniu)|\bzachowaj (?:to )?w tajemnicy\b/iu,
    /비밀로|요약에 (?:포함하지|넣지)/u,
    /\bberätta inte\b|\bnämn inte\b|\bsäg inget\b|\binte nämna\b/iu,
    /\bbahsetme\b|\bbilgi verme\b|\bhaber verme\b|(?<!\p{L})(?:söyleme|belirtme)(?!\p{L})/iu,
    /(?<!\p{L})не (?:сообщай|говори|упоминай|информируй|включай)\p{L}*/iu,
    /(?<!\p{L})не (?:повідомляй|кажи|згадуй|інформуй|включай)\p{L}*/iu,
    /(?:知らせないで|内密に|言わないで|伝えないで|触れないで|言及しないで|記載しないで|含めないで)/u,
    /(?:共有|報告|連絡)せず|には共有しない|極秘のため/u,
    /(?:不要告诉|不用告诉|不要通知|不要让.{0,6}知道|别告诉|不要提(?:及|到|起)|不要(?:透露|披露))/u,
    /(?:알리지 마|말하지 마|언급하지 마|포함하지 마|언급하지 말|알리지 말)/u,
    /لا تخبر|لا تذكر|لا تُعلم|لا تشر|دون (?:إبلاغ|إخبار)/u,
    /मत बता|न बताएं|न बताएँ|(?:ज़िक्र|जिक्र|उल्लेख) न/u,
    /đừng (?:nói|nhắc|báo|đề cập)|không (?:nhắc|đề cập) (?:đến|tới)/u,
    /\bjangan (?:beri ?tahu|memberi ?tahu|sebutkan|menyebutkan|sampaikan|cantumkan)\b|\brahasiakan\b/u,
    /\bnævn (?:det )?ikke\b|\bnevn (?:det )?ikke\b|\bneříkej\b|\bnezmiňuj\b|\bnu (?:menționa|spune)\p{L}*|μην (?:αναφέρ|πεις|ενημερώσ)\p{L}*|אל ת(?:ספר|זכיר|ציין)|อย่า(?:บอก|แจ้ง)|\bälä (?:kerro|mainitse)\b/u,
    /\bkeep (?:this|it) between us\b|\brather keep this between us\b/iu,
  ],
  skipCheck: [
    /\b(?:keine|ohne)\s+Rückfrage|Rücksprache (?:ist )?nicht nötig|bereits (?:intern )?freigegeben\b/iu,
    /\bohne (?:rücksprache|bestätigung)\b|\bnicht (?:extra )?(?:kümmern|nachfragen)\b/iu,
    /\bsans (?:confirmation|vérification)\b|\bdéjà validé\b/iu,
    /\binutile d['’](?:appeler|confirmer|demander|vérifier)|\bpas besoin de (?:confirmer|demander|vérifier|prévenir)\b/iu,
    /\bsin (?:confirmación|verificar)\b|\bya está (?:aprobado|hablado)\b/iu,
    /\bno (?:hace falta|es necesario) (?:confirmar|consultar|preguntar)\b|\bsin (?:consultar|esperar)\b/iu,
    /\bnon serve (?:chiedere )?conferma\b|\bgià approvato\b/iu,
    /\bsenza (?:chiedere|conferma|attendere)\b|\bnon (?:serve|occorre) (?:chiedere|disturbare|confermare)\b/iu,
    /\bj[áa] foi aprovado\b|\bsem confirma[çc][ãa]o\b|\bnão envie confirmação\b/iu,
    /\bsem (?:consultar|esperar)\b|\bnão (?:precisa|é necessário) (?:consultar|perguntar|confirmar|incomodar)\b/iu,
    /\bgeen bevestiging nodig\b/iu,
    /\bzonder (?:te )?(?:overleg|bevestiging|vragen)\b|\bhoeft niet (?:te )?(?:vragen|storen|bevestigen)\b|\bniet lastig (?:te )?vallen\b/iu,
    /\bbez potwierdzenia\b/iu,
    /\bnie trzeba (?:pytać|informować|niepokoić|potwierdzać|nikogo)\b|\bbez (?:konsultacji|zgody|pytania)\b/iu,
    /\bnie (?:musisz|musi|musicie|trzeba) (?:nikogo )?(?:pytać|informować|potwierdzać|angażować|niepokoić)|\bbez (?:angażowania|informowania)\b|\bnie angażuj\p{L}*/iu,
    /\bingen (?:anledning|idé) att (?:fråga|störa|kontrollera)\b/iu,
    /(?:보고하지|알리지|여쭙지) 않아도|(?:허락|허가) 없이|따로 확인하실 필요/u,
    /\butan att (?:fråga|vänta|bekräfta)\b|\bingen bekräftelse\b|\bbehöver inte (?:fråga|störa|bekräfta|kontrollera)\b/iu,
    /\bonay zaten al[ıi]nd[ıi]\b/iu,
    /rahatsız etmeye gerek yok|(?:sormanıza|sormaya|onaya|onaylamaya|haber vermeye) gerek yok|onay beklemeden|teyit etmeden/iu,
    /подтверждение.{0,30}не требуется|без подтверждения/iu,
    /беспокоить не (?:нужно|надо|стоит)|не переспрашивай\p{L}*|можно не (?:привлекать|спрашивать|беспокоить|уведомлять)|не нужно (?:спрашивать|беспокоить|уточнять|согласовывать)|без (?:согласования|уведомления)/iu,
    /без (?:підтвердження|погодження|відома)|не (?:потрібно|треба) (?:турбувати|питати|погоджувати)|турбувати не (?:потрібно|треба)/iu,
    /確認は不要/u,
    /確認(?:は|の)?(?:不要|いりません|必要はありません)|確認せずに|(?:ご本人|本人|上司|担当者)(?:に|へ)の?確認(?:せず|なし)|承認を待たずに|お手を煩わせ/u,
    /(?:无需|不需要)确认/u,
    /(?:无需|不需要|不必|不用)再?(?:确认|请示|审批|询问|打扰|麻烦|通知|核实|问)/u,
    /(?:확인|여쭤|물어)[^\s]{0,4}\s?않으셔도|확인할 필요(?:는|가)? 없|(?:승인|동의) 없이/u,
    /(?:دون|بدون) (?:الرجوع|انتظار|تأكيد|موافقة)|لا (?:داعي|حاجة) (?:ل|إلى)/u,
    /(?:पूछने|पुष्टि) की (?:ज़रूरत|जरूरत|आवश्यकता) नहीं|बिना पूछे/u,
    /không cần (?:làm phiền|hỏi|xác nhận|báo|chờ|thông báo)/u,
    /\btanpa (?:menunggu|konfirmasi|persetujuan|bertanya)\b|\btidak perlu (?:menanyakan|bertanya|mengganggu|konfirmasi|memberi ?tahu|menunggu)\b/u,
    /\buden at (?:spørge|vente|bekræfte)\b|\buten å (?:spørre|vente|bekrefte)\b|\bbez (?:potvrzení|ověření)\b|\bfără (?:confirmare|să (?:întrebați|aștepta))|χωρίς (?:επιβεβαίωση|να ρωτήσ)|ללא אישור|בלי לשאול|ไม่ต้อง(?:ยืนยัน|ถาม|แจ้ง)|\bkysymättä\b/u,
  ],
  // Verbs of sending, tested only in the stretch of text before an address (exfilHits).
  exfil: [
    /\b(?:leite|schick|send|übermittel)\w*\b|\bweiterleiten\b/iu,
    /\b(?:transf[eè]r|envoi|envoy|transmet)\w*/iu,
    /\b(?:reenv[ií]|env[ií][ae]|mand[ae])\w*/iu,
    /\b(?:inoltr|invi|gir)\w*/iu,
    /\b(?:encaminh|envi|junt)\w*/iu,
    /\b(?:stuur|doorsturen|verzamel)\w*/iu,
    /\b(?:prześlij|wyślij|przekaż|przesłać|wysłać)\p{L}*/iu,
    /\b(?:skicka|vidarebefordra)\b/iu,
    /\b(?:ilet|gönder)\w*/iu,
    /(?:перешли|отправь|приложи|пришли|отправьте|перешлите|пришлите|направьте)/iu,
    /(?:перешл|надішл|відправ|пересила)/iu,
    /(?:転送|送って|送信|返信|送付)/u,
    /(?:转发|发送|发到|导出|发给)/u,
    /(?:전달|보내|회신|송부)/u,
    /(?:أرسل|ارسل|حوّل|حول|إرسال)/u,
    /(?:भेज|फ़ॉरवर्ड|फॉरवर्ड)/u,
    /\b(?:kirim|teruskan)\w*/u,
    /(?:gửi|chuyển tiếp)/u,
    /\b(?:send|videresend|pošli|přepošli|trimite|redirecționează|lähetä)\p{L}*|(?:στείλ|προώθησ)\p{L}*|(?:שלח|העבר)|(?:ส่ง|ส่งต่อ)/u,
  ],
  // A request or order after the reader was addressed ("...: please sign", "…해 주세요"), tested
  // only in the stretch after an ml_addressed hit (addressedRequest).
  request: [
    /\bplease\b|\bkindly\b|\b(?:could|can|should|must) (?:it|you)\b|\bhave it\b|\b(?:send|forward|reply|report|include|move|pay|approve|export|share|delete|recommend|mark|list)\b/iu,
    /\bbitte\b|\b(?:sende|schicke|leite|zahle|überweise|lösche|antworte|bestätige|gib)\b|\bsollst\b|\bmusst\b/iu,
    /\bveuillez\b|\bmerci de\b|\bprière de\b|(?<!\p{L})(?:envoie|envoyez|transférez|transfère|virez|payez|supprimez|répondez|confirmez|validez)(?!\p{L})/iu,
    /\bil (?:peut|pourra|lui suffit|suffit)\b|\b(?:réglez|régler|annulez|modifiez|mettez)\b/iu,
    /\b(?:vi chiediamo|chiediamo|procedete|procedi|modificate|pagate|inviate|inviateci)\b|\bpuò\b/iu,
    /\b(?:desconsidere|atualize|altere|cancele|pode)\b/iu,
    /\b(?:puede|debe|actualice|cambie|cancele|proceda)\b/iu,
    /\b(?:kann|können|soll|sollen|geben sie|überweisen sie|senden sie|schicken sie)\b/iu,
    /\bpor favor\b|(?<!\p{L})(?:envía|envíe|reenvía|reenvíe|transfiere|transfiera|paga|pague|elimina|elimine|responde|responda|confirma|confirme|aprueba|apruebe)(?!\p{L})/iu,
    /\bper (?:favore|cortesia)\b|(?<!\p{L})(?:invia|inoltra|paga|elimina|rispondi|conferma|approva)(?!\p{L})/iu,
    /\bpor gentileza\b|(?<!\p{L})(?:envie|encaminhe|pague|exclua|responda|confirme|aprove|transfira)(?!\p{L})/iu,
    /\bgraag\b|\balsjeblieft\b|\balstublieft\b|\bgelieve\b|\b(?:stuur|betaal|keur|verwijder|beantwoord)\b/iu,
    /\bvänligen\b|\bsnälla\b|\b(?:skicka|betala|godkänn|svara|radera|boka|bekräfta)\b/iu,
    /\bproszę\b|\bprosimy\b|(?<!\p{L})(?:wyślij|prześlij|zapłać|zatwierdź|usuń|odpowiedz|przekaż|zaktualizuj)(?!\p{L})/iu,
    /\bnależy\b|(?<!\p{L})(?:wyślijcie|prześlijcie|zapłaćcie|zatwierdźcie|przekażcie|odpowiedzcie|dodaj|zmień|potwierdź)(?!\p{L})/iu,
    /\b(?:kirimkan|teruskan|balas|bayar|setujui|ubah|hapus)\p{L}*/u,
    /\blütfen\b|rica (?:ediyoruz|ederiz|ederim)|(?<!\p{L})(?:gönder|ilet|yanıtla|onayla|öde|sil|paylaş|aktar|hazırla)\p{L}*/iu,
    /пожалуйста|просим|(?<!\p{L})\p{L}{3,}(?:ите|йте|ьте)(?!\p{L})/iu,
    /будь ласка|просимо|(?<!\p{L})\p{L}{3,}(?:іть|йте|ьте)(?!\p{L})/iu,
    /ください|下さい|お願い(?:します|いたします|致します)|してほしい/u,
    /请(?!大家|各位|您|注意)|麻烦|帮忙|务必|直接|立即/u, // "请大家": everyone, the people, is asked
    /주세요|주십시오|하십시오|하세요|바랍니다|해 줘|해줘/u,
    /يرجى|الرجاء|من فضلك|نرجو|(?<!\p{L})[وف]?(?:أرسل|ارسل|حوّل|ادفع|احجز|وافق|اذكر|احذف|قم|شارك|اعتمد)(?!\p{L})/u,
    /कृपया|भेज दें|भेजें|कर दें|करें|दीजिए|कीजिए/u,
    /vui lòng|hãy|làm ơn|đề nghị|(?<!\p{L})(?:nhờ|giúp)(?!\p{L})/u,
    /\b(?:mohon|tolong|silakan|harap|segera|langsung)\b/u,
    /\bvenligst\b|\bvennligst\b|\bprosím\b|\bvă rugăm\b|\bte rog\b|παρακαλ|בבקשה|נא |กรุณา|\bole hyvä\b|\blähetä\b/u,
  ],
};

const MAX_SCAN = 50_000;
const MAX_ADDRESSES = 20;
const BEFORE = 160; // how far before an address its sending verb may stand
const AFTER = 40; // "... adresine ilet", "...로 전달", "...に転送": the verb after the address
const REQUEST_REACH = 300; // how far after the address its request may stand, within the paragraph
// An address opens its line and ends in a colon: "AI 비서님께:", "Ассистенту, который обрабатывает
// почту:", "Untuk asisten AI yang menyiapkan balasan:"; not "our AI assistant, launched in May, ...".
const VOCATIVE_REACH = 80;
const VOCATIVE = /^\p{L}{0,4}(?:[,，]\s?)?[^\n.!?。！？,，、]{0,50}?[:：]/u; // "ИИ-ассистент|у, ...:": the rest of its word first

// A `\b` that closes a word is "no letter follows" in every script: JavaScript's own knows ASCII
// letters only, so "proszę\b" or "pytać\b" could never match. (An opening `\b` stays as it is: a
// lookbehind tried at every position of the text would cost twenty times more.)
const WORD_END = "(?![\\p{L}\\p{M}\\p{N}_])";

// Bun writes a pattern's letters outside ASCII as \uXXXX in its source: back to letters, so that
// lowercasing reaches them ("ИИ") and WORD_END sees a letter before a closing `\b`.
const unescaped = (source: string) =>
  source.replace(/\\u([0-9a-f]{4})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

// One expression per idea, case folded once (case-insensitive Unicode matching is slow in
// JavaScriptCore): the text is lowercased instead, and the patterns were written to match it.
const JOINED = Object.fromEntries(
  (Object.keys(P) as (keyof typeof P)[]).map((idea) => [
    idea,
    new RegExp(
      P[idea]
        .map((re) => unescaped(re.source).toLowerCase())
        .join("|")
        .replace(/\\p\{([lm])\}/g, (_, c: string) => `\\p{${c.toUpperCase()}}`)
        .replace(/(?<=[\p{L})\]])\\b/gu, WORD_END),
      "u",
    ),
  ]),
) as Record<keyof typeof P, RegExp>;

// Words that report on attacks rather than make one, per language: researchers, attackers,
// fraudsters, a study or report, a warning.
const FRAME = new RegExp(ML_WORDS.FRAME.join("|"), "u");
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
  addressedRequest(sample, hits);
  exfilHits(sample, hits);
}

// Global copies for addressedRequest's walk over every address, compiled once: compiling these
// joined patterns took 40-50 ms a call. Shared, so each walk starts by resetting lastIndex (the
// walk is synchronous: no other call can interleave).
const EVERY = {
  addressed: new RegExp(JOINED.addressed.source, "gu"),
  mention: new RegExp(JOINED.mention.source, "gu"),
};

// The reader addressed, then asked or ordered to do something in the same paragraph ("Ассистенту,
// который обрабатывает почту: ... подпишите ..."): damped as its address is (quoted, reported on).
function addressedRequest(text: string, hits: Hit[]): void {
  for (const idea of ["addressed", "mention"] as const) {
    const every = EVERY[idea];
    every.lastIndex = 0;
    let n = 0;
    for (let m = every.exec(text); m !== null && n < MAX_ADDRESSES; m = every.exec(text), n++) {
      if (m[0].length === 0) every.lastIndex++;
      const start = m.index;
      const end = start + m[0].length;
      const paragraph = text.indexOf("\n\n", end);
      const window = text.slice(end, Math.min(end + REQUEST_REACH, paragraph < 0 ? text.length : paragraph));
      // A request counts after the opening of a line addressed to the reader ("AI 비서님께:",
      // "Ассистенту, который обрабатывает почту:"); after an address in the dative, the human
      // kept out ("no need to ask the owner", "do not mention it") counts anywhere in the paragraph,
      // and a request in its own sentence.
      const vocative = VOCATIVE.test(text.slice(end, end + VOCATIVE_REACH));
      const r =
        (vocative ? JOINED.request.exec(window) : null) ??
        (idea === "addressed" ? sameSentence(JOINED.request.exec(window), window) : null) ??
        (idea === "addressed" ? (JOINED.skipCheck.exec(window) ?? JOINED.secrecy.exec(window)) : null);
      if (r === null) continue;
      const at = end + r.index;
      // damped as the address or the request is, whichever is more (a report that names the
      // assistant and then quotes the order)
      const factor = Math.min(discussion(text, start, end), discussion(text, at, at + r[0].length));
      hits.push({ name: "ml_addressed_request", weight: W.multilingual.addressedRequest * factor, start, end: at + r[0].length });
      return;
    }
  }
}

// A request in the sentence of the address itself ("AIアシスタントへ直接お願いします", "просим
// ассистента ... выгрузить"): an address in the dative needs no colon.
function sameSentence(r: RegExpExecArray | null, window: string): RegExpExecArray | null {
  if (r === null) return null;
  return /[.!?。！？\n]/.test(window.slice(0, r.index)) ? null : r;
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
