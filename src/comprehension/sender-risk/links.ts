// Links whose text names one site and whose target is another. The sanitizer writes an anchor as
// "text [url]" (src/mail/sanitize.ts), so the words just before a bracketed URL are its text; only
// text that itself reads as a web address or domain is compared. Click-tracking hosts of the
// common sending platforms rewrite every target of honest newsletters and are not counted.
import { type Domain, domainOf } from "./domains.ts";

const ANCHOR =
  /((?:https?:\/\/)?(?:www\.)?[\p{L}\p{N}][\p{L}\p{N}.-]{0,200}\.[\p{L}]{2,24})(?:\/[^\s[\]]{0,200})?\s*\[(https?:\/\/[^\s\]]{1,2048})\]/gu;

const TRACKERS =
  /(?:^|\.)(?:sendgrid\.net|list-manage\.com|mcsv\.net|mailchimp\.com|hubspotlinks\.com|hs-sites\.com|mandrillapp\.com|sparkpostmail\.com|mailgun\.org|exacttarget\.com|rs6\.net|cmail\d*\.com|createsend\d*\.com|mjt\.lu|sendibt\d*\.com|awstrack\.me|safelinks\.protection\.outlook\.com|urldefense\.com|lnkd\.in|t\.co|bit\.ly|mailjet\.com|klclick\d*\.com|ct\.sendgrid\.net)$/i;

export type LinkMismatch = { shown: Domain; target: Domain };

export function linkMismatches(body: string): LinkMismatch[] {
  const out: LinkMismatch[] = [];
  for (const m of body.slice(0, 50_000).matchAll(ANCHOR)) {
    const shownText = m[1]!.replace(/^https?:\/\//i, "");
    const shown = domainOf(shownText.split("/")[0]!);
    let targetHost: string;
    try {
      targetHost = new URL(m[2]!).hostname;
    } catch {
      continue;
    }
    const target = domainOf(targetHost);
    if (!shown || !target || shown.registrable === target.registrable || TRACKERS.test(target.host)) continue;
    // "file.pdf [https://...]" and other dotted words that are not host names
    if (!/^(?:[\p{L}\p{N}-]+\.)+[\p{L}]{2,24}$/u.test(shown.host) || /\.(?:pdf|docx?|xlsx?|zip|png|jpe?g)$/i.test(shown.host)) continue;
    out.push({ shown, target });
    if (out.length >= 5) break;
  }
  return out;
}
