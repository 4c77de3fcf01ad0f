// Read by sender risk (comprehension/sender-risk/assess.ts) and, as cues, by the spam model
// (comprehension/spam/modern.ts); it lives here, below both, because the two are siblings.
// What the text asks for, in the languages business mail to our users comes in (English, French,
// German, Spanish, Italian, Dutch, Portuguese, Polish, Swedish, Danish, Norwegian, Finnish, Czech,
// Romanian, Hungarian, Greek, Turkish, Russian, Ukrainian, Arabic, Hindi, Indonesian, Vietnamese,
// Chinese, Japanese, Korean): bank details changed,
// money or gift cards requested, the usual checks bypassed, and a genuine sender's invitation to
// verify through a known channel. Patterns are bounded (no nested quantifiers over the text) and
// run on the first 20,000 characters. `\b` only stands beside Latin letters (JavaScript's word
// boundary is ASCII): patterns in other scripts match their words as they are.

const CHANGE = [
  // English
  /\b(?:bank(?:ing)?|account|remittance|payment|wire|deposit)\s+(?:details|information|info|instructions|account|partner|number)\s+(?:have\s+|has\s+)?(?:been\s+)?(?:changed|updated|modified)/i,
  /\b(?:new|updated|alternative|alternate|different|corrected)\s+(?:bank(?:ing)?|account|remittance|payment|wire|iban|sort\s+code|routing|receiving)\b/i,
  /\b(?:changed|switched|moved|moving|changing)\s+(?:our\s+|my\s+)?(?:bank(?:s|ing)?|bank\s+accounts?|receivables|banking\s+partner)\b/i,
  /\b(?:change|changed|switch)\s+(?:of|in)\s+(?:bank|banking|account)/i,
  /\b(?:old|previous|current|usual)\s+(?:bank\s+)?account\b[^.\n]{0,60}\b(?:no\s+longer|closed|blocked|cannot|can't|frozen|under\s+(?:audit|review)|will\s+bounce|discontinued)/i,
  /\bpayment\s+redirect|\bredirect(?:ed|ing)?\s+(?:the\s+)?payment|\bconsolidat\w+\s+(?:our\s+)?bank|\bdirect\s+deposit\s+change|\bdiscard\s+previous\s+instructions/i,
  // French
  /\bchangement\s+de\s+(?:banque|coordonn[ée]es\s+bancaires|compte|rib)|coordonn[ée]es\s+bancaires\s+ont\s+chang|\bnouve(?:au|lle)s?\s+(?:compte|rib|iban|coordonn)|\bchange\s+de\s+banque|compte\s+(?:habituel\s+)?est\s+(?:temporairement\s+)?bloqu/i,
  // German
  /\bneue[nrs]?\s+(?:bankverbindung|konto|kontodaten|iban)|bankverbindung\s+(?:hat\s+sich\s+)?ge[äa]ndert|ge[äa]nderte[nr]?\s+bankverbindung|\bbank(?:wechsel|\s+gewechselt)|\bhausbank\b|\bkonto\s+ge[äa]ndert/i,
  // Spanish
  /\b(?:cambio|cambiado|cambiar)\s+(?:de\s+)?(?:entidad|banco|cuenta)|\bnueva\s+cuenta|\bdatos\s+bancarios\b[^.\n]{0,40}\b(?:nuev|cambi|actualiz)|\bactualizaci[óo]n\s+de\s+datos\s+bancarios|cuenta\s+bancaria\s+cambi[óo]|cuenta\s+anterior/i,
  // Italian
  /\bcoordinate\s+bancarie\b[^.\n]{0,30}\b(?:variat|cambi|modificat|nuov)|\bvariazione\s+(?:delle\s+)?coordinate|\bnuov[oa]\s+(?:conto|iban)|\bcambio\s+(?:di\s+)?banca|conto\s+precedente/i,
  // Dutch
  /\bbankgegevens\s+(?:zijn\s+)?gewijzigd|\bnieuwe?\s+(?:rekening|bankgegevens|rekeningnummer)|\bgewijzigde\s+(?:betaal|bank)gegevens/i,
  // Portuguese
  /\bdados\s+banc[áa]rios\s+(?:foram\s+)?alterad|\baltera[çc][ãa]o\s+(?:de|dos)\s+dados\s+banc|\bnova\s+conta|\bnovo\s+iban|conta\s+antiga/i,
  /\bnova\s+chave\s+pix|\bchave\s+pix\b[^.\n]{0,30}\b(?:alterad|mudou|nova)|\bnovos\s+dados\s+banc[áa]rios|\bdados\s+banc[áa]rios\s+atualizados/i,
  // Polish, Swedish, Danish, Norwegian, Finnish
  /\bzmian\S*\s+(?:numeru\s+)?(?:rachunku|konta)|\bnowy\s+rachunek|\bnowy\s+numer\s+(?:konta|rachunku)|\bnowe\s+dane\s+(?:bankowe|do\s+przelewu)|\bnumer\s+(?:konta|rachunku)\s+uleg\S*\s+zmian/i,
  /\bnya\s+bankuppgifter|\bbytt\s+bank|\bnytt\s+(?:kontonummer|bankgiro|plusgiro|bankkonto)|\b(?:[äa]ndrade|uppdaterade)\s+bankuppgifter|\bbankuppgifter\S*\s+(?:har\s+)?(?:[äa]ndrats|uppdaterats)/i,
  /\bnye\s+bank(?:oplysninger|opplysninger|konto)|\bnyt+\s+kontonummer|\b(?:skiftet|byttet)\s+bank|\bbankoplysninger\s+er\s+[æa]ndret|\bkontonummer\s+(?:er\s+)?endret/i,
  /\buusi\s+tilinumero|\btilinumero\S*\s+on\s+muuttunut|\bpankkitiedot\s+(?:ovat\s+)?muuttuneet|\bvaihtaneet\s+pankkia/i,
  // Czech, Romanian, Hungarian, Indonesian, Vietnamese
  /\bzm[ěe]n\S*\s+(?:bankovn\S+\s+)?(?:[úu][čc]tu|spojen)|\bnov[ée]\s+(?:[čc][íi]slo\s+[úu][čc]tu|bankovn[íi]\s+spojen)|\bnov[ýy]\s+[úu][čc]et/i,
  /\bcont(?:ul)?\s+(?:bancar\s+)?nou\b|\bnoul\s+cont|\bschimbarea?\s+contului|\bdatele\s+bancare\s+s-au\s+schimbat|\biban\s+nou/i,
  /\b[úu]j\s+(?:banksz[áa]mla|sz[áa]mlasz[áa]m)|\bmegv[áa]ltozott\s+(?:a\s+)?(?:banksz[áa]ml|sz[áa]mlasz[áa]m)/i,
  /\brekening\s+baru|\bperubahan\s+(?:nomor\s+)?rekening|\bnomor\s+rekening\s+(?:kami\s+)?(?:telah\s+)?berubah/i,
  /t[àa]i\s+kho[ảa]n\s+m[ớo]i|thay\s+đ[ổo]i\s+(?:s[ốo]\s+)?t[àa]i\s+kho[ảa]n/i,
  // Turkish
  /\b(?:banka\s+)?hesap\s+bilgileri\S*\s+(?:de[ğg]i[şs]|g[üu]ncellen)|\byeni\s+(?:hesap|iban|banka)|\biban\s+(?:numara\S*\s+)?de[ğg]i[şs]|\beski\s+hesab/i,
  // Greek, Russian, Ukrainian, Arabic, Hindi
  /νέο(?:ς)?\s+(?:λογαριασμ|IBAN)|αλλαγή\s+(?:του\s+)?(?:τραπεζικού\s+)?λογαριασμ|στοιχεία\s+(?:του\s+)?λογαριασμού\s+άλλαξαν/i,
  /(?:банковские\s+)?реквизиты\s+(?:изменил|поменял|обновил)|(?:изменил|поменял)\S*\s+(?:наши\s+|свои\s+)?(?:банковские\s+)?реквизит|новые\s+реквизиты|нов(?:ый|ого)\s+(?:расчётн|расчетн|банковск)?\S*\s*сч[её]т|смен\S*\s+(?:банка|реквизитов|сч[её]та)/i,
  /реквізити\s+змінил|змін\S*\s+(?:банківськ\S+\s+)?реквізит|нові\s+реквізити|нов(?:ий|ого)\s+рахун/i,
  /تغيير\s+(?:الحساب|رقم\s+الحساب|البيانات\s+البنكية)|حساب\s+(?:بنكي\s+)?جديد|(?:آيبان|ايبان|IBAN)\s+(?:ال)?جديد/i,
  /नया\s+(?:बैंक\s+)?खाता|खाता\s+(?:संख्या\s+)?बदल|बैंक\s+(?:विवरण|डिटेल्स)\s+बदल/,
  // Chinese, Japanese, Korean
  /(?:收款|银行|銀行)?(?:账户|帳戶|账号|帳號).{0,6}(?:变更|變更|更改|更换|更換)|(?:新的?|更新的?)(?:收款)?(?:银行)?(?:账户|帳戶|账号|帳號)/,
  /口座.{0,6}変更|振込先.{0,10}変更|新しい口座/,
  /계좌.{0,8}(?:변경|바뀌)|(?:새|새로운|신규)\s?(?:입금\s?)?계좌/,
];

const MONEY_REQUEST = [
  /\bgift\s*cards?\b|\b(?:steam|itunes|apple|google\s+play|amazon|visa\s+prepaid|prepaid)\s+(?:gift\s+)?cards?\b|\bcard\s+numbers?\s+and\s+pins?\b/i,
  /\bcartes?\s+cadeaux?|\btarjetas?\s+regalo|\bgeschenkkarten|\bgutscheinkarten|\bbuoni\s+regalo|\bcadeaukaart|\bcart[õo]es?\s+(?:de\s+)?oferta|\bpresentkort|\bkart\w*\s+podarunkow/i,
  /\b(?:wire|transfer|remit|pay|send)\b[^.\n]{0,40}\b(?:today|now|immediately|asap|within\s+the\s+hour|by\s+\d{1,2}\s*(?:am|pm)|before\s+\d)/i,
  /\b(?:virement|überweisung|überweisen|transferencia|bonifico|overmaken|transfer[êe]ncia|przelew|betalning)\b[^.\n]{0,60}\b(?:aujourd'hui|heute|hoy|oggi|vandaag|hoje|dzisiaj|idag|urgent|dringend|urgente|brådskande)/i,
  /\b(?:aujourd'hui|heute|hoy|oggi|vandaag|hoje|idag)\b[^.\n]{0,60}\b(?:virement|überweisung|transferencia|bonifico|overmaken|transfer[êe]ncia|betalning)/i,
  /送金|振込.{0,10}(?:本日|至急)/,
  /hediye\s+kart|\b(?:bug[üu]n|hemen|acil)\b[^.\n]{0,40}\b(?:havale|eft|[öo]deme)|\b(?:havale|eft)\b[^.\n]{0,40}\b(?:bug[üu]n|hemen|acil)/i,
  /подарочн\S*\s+карт|подарунков\S*\s+карт|(?:сегодня|срочно|немедленно|сьогодні|терміново)[^.\n]{0,40}(?:перев|оплат|сплат)|(?:перевести|оплатить|сплатити)[^.\n]{0,40}(?:сегодня|срочно|сьогодні|терміново)/i,
  /\b(?:d[áa]rkov[ée]\s+karty|carduri\s+cadou|aj[áa]nd[ée]kk[áa]rty|gavekort|lahjakort|kartu\s+hadiah)|th[ẻe]\s+qu[àa]\s+t[ặa]ng|بطاقات?\s+(?:ال)?هدايا|गिफ्ट\s+कार्ड|δωροκάρτ/i,
  /礼品卡|禮品卡|(?:今天|立即|马上|馬上|尽快|儘快).{0,8}(?:转账|轉帳|汇款|匯款|付款)|기프트\s?카드|상품권|(?:오늘|즉시|급히).{0,10}(?:송금|이체)/,
];

// Secrecy and checks bypassed: what a fraudster needs and an honest payee never asks.
const PRESSURE = [
  /\b(?:keep|kept)\s+(?:this|it|that)\s+(?:between\s+us|confidential|quiet|to\s+yourself)|\bbetween\s+us\s+(?:and|for\s+now)|\bconfidential\s+(?:acquisition|matter|deal|transaction|operation)|\b(?:discreetly|strictly\s+confidential)\b|\bplease\s+keep\s+it\s+confidential/i,
  /\b(?:do\s+not|don't|dont|please\s+don't|no\s+need\s+to)\s+(?:call|phone|ring|contact\s+(?:our|the|my)\s+(?:office|phone)|mention|tell|discuss|loop\s+in|involve)\b|\bdo\s+not\s+discuss\b/i,
  /\b(?:can't|cannot|can\s+not|unable\s+to)\s+(?:take|answer)\s+(?:calls|the\s+phone)|\bphones?\s+(?:are|is)\s+down|\bemail\s+is\s+(?:the\s+)?(?:best|quickest|only)\b|\bnot\s+(?:reachable|available)\s+(?:by|on\s+the)\s+phone/i,
  /\bconfidenti(?:el|elle)\b|\bne\s+pas\s+en\s+parler|\bn'en\s+parle|\b(?:injoignable|pas\s+joignable)|\bne\s+(?:m'|nous\s+)?appel/i,
  /\bvertraulich|\bmit\s+niemandem|\bnicht\s+erreichbar|\bnicht\s+(?:an)?rufen|\brufen\s+sie\s+(?:bitte\s+)?nicht\s+an/i,
  /\bconfidencial\b|\bno\s+lo\s+comentes|\bcon\s+nadie\b|\bno\s+(?:me\s+)?llame/i,
  /\briservat[ao]\b|\bnon\s+parlarne|\bcon\s+nessuno|\bnon\s+posso\s+rispondere\s+al\s+telefono|\bnon\s+chiamare/i,
  /\bvertrouwelijk|\bniet\s+bellen|\bmet\s+niemand/i,
  /\bn[ãa]o\s+ligue|\bcom\s+ningu[ée]m/i,
  /\bkonfidentiell|\bprata\s+inte\s+med\s+n[åa]gon|\bpoufn\w+|\bnie\s+dzwo/i,
  /極秘|内密|誰にも話さ|電話には出られ/,
  /\bgizli\s+tut|\bkimseye\s+(?:s[öo]yleme|bahsetme)|\baramay[ıi]n|\btelefonla\s+ula[şs]am/i,
  /конфиденциальн|никому\s+не\s+(?:говор|сообщ)|не\s+звоните|конфіденційн|нікому\s+не|не\s+телефонуйте/i,
  /\b(?:d[ůu]v[ěe]rn[ée]|nikomu\s+ne|nevolejte|confiden[țt]ial|nu\s+suna[țt]i|bizalmas|fortrolig|ring\s+ikke|luottamuksellinen|[äa]l[äa]\s+soita|rahasia|jangan\s+(?:telepon|beritahu))|b[íi]\s+m[ậa]t|đ[ừu]ng\s+g[ọo]i|سري(?:ة)?\s+(?:للغاية|تماما)|لا\s+(?:تخبر|تتصل)|गोपनीय|εμπιστευτικ/i,
  /保密|机密|機密|不要告诉|不要告訴|不要打电话|不要打電話|비밀로|아무에게도|전화(?:는|하지)\s?(?:마|말)/,
];

// A genuine payee's change notice points back to a channel the reader already trusts.
const VERIFY = [
  /\b(?:verify|confirm|check)\b[^.\n]{0,80}\b(?:call|calling|phone|ring)\w*\b[^.\n]{0,80}\b(?:number|line)\b[^.\n]{0,40}\b(?:you\s+(?:already\s+)?have|on\s+file|printed|on\s+your|usual|known|existing)/i,
  /\bas\s+(?:discussed|agreed)\s+(?:on|during)\s+(?:our|the)\s+(?:call|phone)|\bnever\s+ask\s+you\s+to\s+change\s+details\s+by\s+email/i,
  /\b(?:appel\w*|t[ée]l[ée]phone)\b[^.\n]{0,60}\bnum[ée]ro\s+habituel|\bau\s+t[ée]l[ée]phone\s+hier|\bcomme\s+(?:je\s+te\s+l'ai|nous\s+l'avons)\s+dit\s+au\s+t[ée]l[ée]phone/i,
  /\btelefonisch\b[^.\n]{0,60}\bbekannten\s+rufnummer|\bwie\s+telefonisch\s+besprochen/i,
  /\bllamando\b[^.\n]{0,60}\bn[úu]mero\s+de\s+siempre|\bcomo\s+hablamos\s+por\s+tel[ée]fono/i,
  /\bchiamando\b[^.\n]{0,80}\bnumero\s+abituale|\banticipato\s+telefonicamente/i,
  /\btelefonisch\s+besproken|\bbel\s+ons\s+op\s+het\s+bekende\s+nummer|\bpor\s+telefone\s+como\s+combinado/i,
  /\bbilinen\s+(?:telefon\s+)?numara\S*\s+(?:arayarak|teyit)|\btelefonla\s+teyit/i,
  /(?:по\s+)?известному\s+(?:вам\s+)?номеру|за\s+відомим\s+(?:вам\s+)?номером|как\s+(?:мы\s+)?обсуждали\s+по\s+телефону/i,
  /(?:已知|原有|常用)的?(?:电话|電話)?号码.{0,10}(?:确认|核实|確認)|알고\s?계신\s?번호로/,
];

const IBAN = /\b[A-Z]{2}\d{2}(?:[ ]?[A-Z0-9]{4}){2,7}(?:[ ]?[A-Z0-9]{1,4})?\b/g;

/** ISO 13616's check: the rearranged number is 1 modulo 97 (a random letters-and-digits run passes 1 time in 97). */
export function ibanValid(candidate: string): boolean {
  const compact = candidate.replace(/ /g, "");
  if (compact.length < 15 || compact.length > 34) return false;
  const rearranged = compact.slice(4) + compact.slice(0, 4);
  let rest = 0;
  for (const ch of rearranged) {
    const code = ch.charCodeAt(0);
    const value = code >= 65 ? String(code - 55) : ch;
    for (const digit of value) rest = (rest * 10 + Number(digit)) % 97;
  }
  return rest === 1;
}
const ACCOUNT_NUMBER =
  /\b(?:account|acct|routing|sort\s*code|aba|swift|bic|clabe|konto|kontonummer|compte|cuenta|conto|rekening|conta|rachunek)\b[^\n]{0,25}?\d[\d\s-]{5,}/i;
const JA_ACCOUNT = /口座番号[：:\s]*\d{5,}/;
// Account words of other scripts, which `\b` cannot bound.
const OTHER_SCRIPT_ACCOUNT =
  /(?:hesap\s+no|сч[её]т|рахун(?:ок|ку)|账户|帳戶|账号|帳號|계좌\s?번호|حساب|खाता\s+संख्या|λογαριασμ\S*|tài\s+khoản|rekening)[^\n]{0,25}?\d[\d\s-]{5,}/i;

const any = (patterns: RegExp[], text: string) => {
  for (const pattern of patterns) {
    const m = pattern.exec(text);
    if (m) return m[0].trim().slice(0, 80);
  }
  return null;
};

export type Wording = {
  paymentChange: string | null;
  moneyRequest: string | null;
  pressure: string | null;
  verificationOffered: string | null;
  paymentDetails: string | null;
};

export function readWording(subject: string, body: string): Wording {
  const text = `${subject}\n${body}`.slice(0, 20_000);
  const iban = [...text.matchAll(IBAN)].find((m) => ibanValid(m[0]));
  return {
    paymentChange: any(CHANGE, text),
    moneyRequest: any(MONEY_REQUEST, text),
    pressure: any(PRESSURE, text),
    verificationOffered: any(VERIFY, text),
    paymentDetails: iban
      ? `IBAN ${iban[0].slice(0, 4)}…`
      : any([ACCOUNT_NUMBER, JA_ACCOUNT, OTHER_SCRIPT_ACCOUNT], text) && "account number",
  };
}
