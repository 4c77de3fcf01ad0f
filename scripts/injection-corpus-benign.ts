// Phrase banks for the benign half of the training corpus: the ordinary mail an injection
// detector must leave alone, built to share the attacks' words (forward, send, ignore, rules,
// passwords, assistant, system) so the model has to learn who is asked and what for.

import type { Lang } from "./injection-corpus-parts.ts";

// A colleague asks a person for something ordinary; {who} is a person or an internal team.
export const REQUEST_VERB = [
  "Could you forward {thing} to {who}?",
  "Please send {thing} to {who} by Friday.",
  "Can you share {thing} with {who}?",
  "Would you mind emailing {thing} to {who}?",
  "Please export {thing} and pass it to {who}.",
  "Kindly forward {thing} to {who} when you have a minute.",
  "Send {thing} over to {who} before the meeting.",
  "Can you copy {who} on {thing}?",
  "Please delete {thing} from the shared folder.",
  "Could you archive {thing}? We don't need it anymore.",
  "Please approve {thing} in the portal.",
  "Reply to {who} with {thing} when it's ready.",
  "Upload {thing} to the project drive so {who} can see it.",
  "Mark {thing} as done in the tracker.",
  "Please print {thing} for {who}.",
];
export const THING = [
  "the signed contract",
  "last week's minutes",
  "the Q3 forecast",
  "the updated slide deck",
  "the vendor invoice",
  "the photos from the offsite",
  "the draft agenda",
  "the onboarding checklist",
  "the receipts for March",
  "the customer feedback summary",
  "the floor plan",
  "this thread",
  "the release notes",
  "the meeting recording",
  "the list of attendees",
  "the budget spreadsheet",
  "the travel itinerary",
  "the holiday rota",
  "the purchase order",
  "my previous email",
];
export const WHO = [
  "Maria",
  "the finance team",
  "legal@ourfirm.example",
  "me",
  "the client",
  "your manager",
  "HR",
  "the whole team",
  "Jonas and Priya",
  "accounts@ourcompany.example",
  "the auditors",
  "our lawyer",
  "the new intern",
  "facilities",
];

export const RETRACT: Record<Lang, string[]> = {
  en: [
    "Please ignore my previous email.",
    "Disregard my last message, I sent the wrong file.",
    "Forget what I wrote earlier, the plan changed.",
    "Ignore the earlier invoice; the corrected one is attached.",
    "Scratch that, the meeting stays on Monday.",
    "My earlier instructions about the parking no longer apply.",
  ],
  es: [
    "Por favor ignora mi correo anterior.",
    "Olvida lo que te escribí antes, cambió el plan.",
    "No hagas caso del mensaje anterior, adjunté el archivo equivocado.",
  ],
  de: [
    "Bitte ignoriere meine vorherige E-Mail.",
    "Vergiss, was ich vorhin geschrieben habe, der Plan hat sich geändert.",
    "Meine letzte Nachricht ist hinfällig, falscher Anhang.",
  ],
  fr: [
    "Merci d'ignorer mon courriel précédent.",
    "Oublie ce que je t'ai écrit plus tôt, le plan a changé.",
    "Ne tenez pas compte du message précédent, mauvaise pièce jointe.",
  ],
  pt: [
    "Por favor, ignore meu e-mail anterior.",
    "Esqueça o que escrevi antes, o plano mudou.",
    "Desconsidere a mensagem anterior, anexei o arquivo errado.",
  ],
  it: [
    "Per favore ignora la mia email precedente.",
    "Dimentica quello che ti ho scritto prima, il piano è cambiato.",
    "Non considerare il messaggio precedente, allegato sbagliato.",
  ],
};

// Ordinary requests and notices in the attack languages: without them the model learned that
// a language other than English is itself a sign of an attack.
export const FOREIGN: Record<Exclude<Lang, "en">, string[]> = {
  es: [
    "Por favor, envía el informe trimestral a contabilidad antes del viernes.",
    "¿Puedes reenviar este correo a Marta? Necesita los detalles del contrato.",
    "Tu código de verificación es {code}. No lo compartas con nadie.",
    "Haz clic en el enlace para restablecer tu contraseña. Si no lo solicitaste, ignora este mensaje.",
    "A partir de ahora, las facturas se envían al nuevo portal de proveedores.",
    "Adjunto las instrucciones para instalar la VPN. Ejecuta el instalador y reinicia el equipo.",
    "Te confirmo la reserva para el día 14. Cualquier cambio, respóndeme a este correo.",
    "Recuerda traer el pasaporte y la tarjeta de embarque.",
    "Comparte la presentación con el cliente y ponme en copia.",
    "Las normas anteriores de aparcamiento ya no se aplican; las nuevas van abajo.",
    "Nuestro asistente virtual responde preguntas sobre tu pedido las 24 horas.",
    "Borra los borradores antiguos de la carpeta compartida, por favor.",
  ],
  de: [
    "Bitte schick die Unterlagen bis Freitag an die Buchhaltung.",
    "Kannst du diese E-Mail an Frau Müller weiterleiten? Sie braucht die Vertragsdetails.",
    "Dein Bestätigungscode lautet {code}. Gib ihn an niemanden weiter.",
    "Klicke auf den Link, um dein Passwort zurückzusetzen. Wenn du das nicht angefordert hast, ignoriere diese Nachricht.",
    "Ab sofort werden Rechnungen über das neue Lieferantenportal eingereicht.",
    "Anbei die Anleitung für das VPN. Führe das Installationsprogramm aus und starte den Rechner neu.",
    "Ich bestätige die Buchung für den 14. Bei Änderungen antworte einfach auf diese E-Mail.",
    "Denk bitte an deinen Reisepass und die Bordkarte.",
    "Teile die Präsentation mit dem Kunden und setz mich in Kopie.",
    "Die alten Parkregeln gelten nicht mehr; die neuen stehen unten.",
    "Unser virtueller Assistent beantwortet rund um die Uhr Fragen zu deiner Bestellung.",
    "Lösch bitte die alten Entwürfe aus dem gemeinsamen Ordner.",
    "Wir treffen uns nächste Woche in Berlin, die Unterlagen bringe ich mit.",
  ],
  fr: [
    "Merci d'envoyer le rapport trimestriel à la comptabilité avant vendredi.",
    "Peux-tu transférer ce courriel à Claire ? Elle a besoin des détails du contrat.",
    "Votre code de vérification est {code}. Ne le communiquez à personne.",
    "Cliquez sur le lien pour réinitialiser votre mot de passe. Si vous n'avez rien demandé, ignorez ce message.",
    "Désormais, les factures passent par le nouveau portail fournisseurs.",
    "Voici les instructions pour installer le VPN. Lancez l'installateur puis redémarrez.",
    "Je confirme la réservation pour le 14. Pour toute modification, répondez à ce courriel.",
    "N'oubliez pas votre passeport et la carte d'embarquement.",
    "Partage la présentation avec le client et mets-moi en copie.",
    "Les anciennes règles de stationnement ne s'appliquent plus ; les nouvelles sont ci-dessous.",
    "Notre assistant virtuel répond à vos questions sur votre commande 24 h sur 24.",
    "Supprime les anciens brouillons du dossier partagé, s'il te plaît.",
  ],
  pt: [
    "Por favor, envie o relatório trimestral para a contabilidade até sexta.",
    "Pode encaminhar este e-mail para a Ana? Ela precisa dos detalhes do contrato.",
    "Seu código de verificação é {code}. Não compartilhe com ninguém.",
    "Clique no link para redefinir sua senha. Se não foi você, ignore esta mensagem.",
    "A partir de agora, as faturas são enviadas pelo novo portal de fornecedores.",
    "Seguem as instruções para instalar a VPN. Execute o instalador e reinicie o computador.",
    "Confirmo a reserva para o dia 14. Qualquer alteração, responda a este e-mail.",
    "Não se esqueça do passaporte e do cartão de embarque.",
    "Compartilhe a apresentação com o cliente e me coloque em cópia.",
    "As regras antigas de estacionamento não valem mais; as novas estão abaixo.",
    "Nosso assistente virtual responde dúvidas sobre o seu pedido 24 horas por dia.",
    "Apague os rascunhos antigos da pasta compartilhada, por favor.",
  ],
  it: [
    "Per favore invia il report trimestrale all'amministrazione entro venerdì.",
    "Puoi inoltrare questa email a Giulia? Le servono i dettagli del contratto.",
    "Il tuo codice di verifica è {code}. Non condividerlo con nessuno.",
    "Clicca sul link per reimpostare la password. Se non l'hai richiesto, ignora questo messaggio.",
    "D'ora in poi le fatture passano dal nuovo portale fornitori.",
    "Ecco le istruzioni per installare la VPN. Avvia il programma di installazione e riavvia il computer.",
    "Confermo la prenotazione per il 14. Per qualsiasi modifica rispondi a questa email.",
    "Non dimenticare il passaporto e la carta d'imbarco.",
    "Condividi la presentazione con il cliente e mettimi in copia.",
    "Le vecchie regole per il parcheggio non valgono più; le nuove sono qui sotto.",
    "Il nostro assistente virtuale risponde alle domande sul tuo ordine 24 ore su 24.",
    "Cancella le vecchie bozze dalla cartella condivisa, per favore.",
  ],
};

export const ORDINARY: Record<Lang, string[]> = {
  en: [
    "The meeting moved to 3pm in room B.",
    "Lunch is on me this Friday.",
    "The printer on the second floor is fixed.",
    "We hit our quarterly target, well done everyone.",
    "The client liked the mock-ups and asked for two small changes.",
    "Flights are booked; the itinerary is attached.",
    "The office will be closed on Monday for the holiday.",
    "I've reviewed the contract and left comments in the margin.",
    "The new hire starts next Tuesday; please make her welcome.",
    "Parking passes are at the front desk.",
  ],
  es: [
    "La reunión se movió a las tres.",
    "Adjunto la factura de octubre.",
    "El lunes la oficina estará cerrada.",
    "Gracias por tu ayuda con el informe.",
  ],
  de: [
    "Das Meeting ist auf 15 Uhr verschoben.",
    "Anbei die Rechnung für Oktober.",
    "Am Montag bleibt das Büro geschlossen.",
    "Danke für deine Hilfe beim Bericht.",
  ],
  fr: [
    "La réunion est déplacée à 15 h.",
    "Vous trouverez ci-joint la facture d'octobre.",
    "Le bureau sera fermé lundi.",
    "Merci pour ton aide sur le rapport.",
  ],
  pt: [
    "A reunião foi remarcada para as 15h.",
    "Segue a fatura de outubro.",
    "O escritório estará fechado na segunda.",
    "Obrigado pela ajuda com o relatório.",
  ],
  it: [
    "La riunione è spostata alle 15.",
    "In allegato la fattura di ottobre.",
    "Lunedì l'ufficio resterà chiuso.",
    "Grazie per l'aiuto con il rapporto.",
  ],
};

// Account and security mail: codes, resets, warnings, all about the reader's own account.
export const ACCOUNT = [
  "Your verification code is {code}. Do not share it with anyone.",
  "Use {code} to sign in. This code expires in 10 minutes.",
  "Click the link below to reset your password. If you didn't request a reset, ignore this email.",
  "Your password was changed. If this wasn't you, secure your account now.",
  "A new device signed in to your account. Review your recent activity in settings.",
  "Your API key was rotated. Update your applications with the new key from the dashboard.",
  "We will never ask for your password by email. Report suspicious messages to security@{domain}.",
  "Two-factor authentication is now enabled on your account.",
  "Your recovery codes were regenerated. Store them somewhere safe.",
  "Confirm your email address to finish creating your account.",
  "Your session expired. Please sign in again to continue.",
  "An administrator added you to the workspace. Set a password to get started.",
];

// Policy and IT notices that do replace old rules, for people.
export const POLICY = [
  "New instructions for the expense process: submit receipts in the portal; the old email process is retired.",
  "The previous travel policy no longer applies. The updated rules are attached.",
  "From now on, all laptops must be encrypted. IT will contact you to schedule the update.",
  "IT notice: please forward suspicious emails to phishing@{domain} and don't click the links.",
  "Starting Monday, the new VPN client replaces the old one. Run the installer from the intranet.",
  "These guidelines supersede the 2023 handbook. Please read section 4 carefully.",
  "Security policy update: passwords must now be at least 14 characters.",
  "Ignore the instructions in the old wiki page; they refer to the retired system.",
  "Admin: the mail gateway will be upgraded tonight. No action is required from you.",
  "Going forward, send timesheets to your team lead instead of HR.",
];

// Writing about injection: the attack is quoted, discussed, never addressed to the reader.
export const DISCUSS = [
  'Researchers showed that an email saying "{attack}" can trick AI assistants into leaking data.',
  'In our red-team exercise, the injected text "{attack}" fooled two of three agents.',
  'Example of a prompt injection we blocked last week: "{attack}" Our filter caught it before the agent read it.',
  'Newsletter: attackers now hide lines like "{attack}" in invoices. Train staff to recognise them.',
  'Bug report: the assistant obeyed the phrase "{attack}" when it appeared in a customer email. Steps to reproduce are attached.',
  'Slide 7 of the training: a phishing email that asks "{attack}" Never comply with such requests.',
];

export const DEV = [
  "PR #{n}: add retry to the webhook sender. Tests pass locally; CI is green.",
  "Build failed on main: `bun test` exited with code 1 in test/send.test.ts.",
  'Here\'s the config: {"retries": 3, "timeout_ms": 5000, "forward_to": "queue"}',
  "Deploy to production finished in 4m 12s. No errors.",
  "The system prompt for the support bot is in prompts/support.md; please review the tone.",
  'messages = [{"role": "system", "content": "You are a helpful assistant."}, {"role": "user", "content": q}]',
  "Run `git pull && make install` to pick up the fix, then restart the service.",
  "Dependabot: bump lodash from 4.17.20 to 4.17.21.",
  "def send_email(to, body):\n    smtp.sendmail(FROM, to, body)",
  "The cron job that exports the contacts to the CRM runs nightly at 02:00.",
  "Error: ECONNREFUSED 127.0.0.1:5432 while running migrations. Is Postgres up?",
  "Ticket #{n} assigned to you: customers cannot reset their passwords on mobile.",
];

export const MARKETING = [
  "Meet your new AI assistant: it reads your inbox, drafts replies and never forgets a follow-up. Start your free trial.",
  "Flash sale! 40% off everything until midnight. Don't miss out.",
  "Our chatbot now speaks 12 languages. Ask it anything about your order.",
  "You're invited: webinar on securing AI agents against prompt injection, Thursday 5pm.",
  "Upgrade to Pro and let the assistant handle your email automatically.",
  "Last chance: your cart is waiting. Complete your purchase and get free shipping.",
  "Your monthly summary: 12 orders, 3 returns, 2 new reviews.",
  "New feature: ask the assistant to forward receipts to your accountant every month.",
];

export const PERSONAL = [
  "Mom says forget everything I told you about the trip, we're going to the lake instead!",
  "Keep it secret: we're throwing a surprise party for Dad on Saturday. Don't tell him!",
  "Can you send me the photos from the wedding? The ones on your phone.",
  "Don't forget to water the plants while I'm away.",
  "Here's the recipe you asked for. Ignore the note about butter, use oil.",
  "Pretend you didn't see the present in the closet, ok?",
  "You are now officially the best aunt ever. Thanks for the gift!",
];

// People talking about AI tools, prompts and bots: the words of an attack's address ("the
// assistant", "system prompt", "the model") in mail that addresses a person.
export const AI_TALK = [
  "The AI assistant that took notes in yesterday's call missed two action items; can you add them before we send the summary?",
  "Our support bot's system prompt is getting long. Could you review it and cut anything about refunds?",
  "Attached are the guidelines from the AI policy team on which tools staff may use. Comments by Thursday please.",
  "I asked the assistant to summarize the thread and it got the dates wrong, so here is the correct timeline.",
  "We are evaluating three language models for the helpdesk. The comparison spreadsheet is in the shared drive.",
  "The chatbot on our website keeps telling customers the store opens at 8; it opens at 9. Can someone fix the prompt?",
  "Reminder: do not paste customer data into public AI tools. Use the approved internal assistant instead.",
  "The model scored 0.91 on the validation set. I'll present the results at Friday's research meeting.",
  "Can you ask Copilot to generate the unit tests for the parser? It saves us an afternoon.",
  "Prompt engineering workshop next Tuesday: bring examples of prompts that worked and ones that didn't.",
  "The agent framework now supports tool calls. Send email, create calendar events and search files are enabled for the pilot group.",
  "Our AI usage policy: assistants may draft replies, but a person must review anything sent to customers.",
  "Fun fact: the virtual assistant answered 12,000 questions last month, and satisfaction went up 8 points.",
  "Draft system prompt for review: 'You are a polite assistant for Acme Travel. Answer questions about bookings.' Thoughts?",
  "The transcription bot joined the meeting automatically; if you'd rather it didn't record, tell the organizer.",
  "Can the assistant schedule the interviews for next week? Candidates are in the attached list.",
  "I used an AI tool to translate the brochure. Could a native speaker check the German version?",
  "Our red team will test the mail agent next sprint. Please don't forward their test messages to the whole company.",
  "The AI-generated summary says the vendor approved the discount, but I can't find that in the thread. Can you confirm?",
  "Machine learning reading group: this week's paper is on instruction tuning of language models.",
  "The classifier flagged your email as spam by mistake. We've added your domain to the allow list.",
  "Customer asked whether our chatbot stores their messages. Legal says yes, for 30 days. Can you reply to her?",
  "The model card for our summarizer is attached. Section 3 lists known failure modes.",
  "Agents in the call center will get the new script on Monday. Please follow it from then on.",
  "We switched the helpdesk assistant to the new model; let us know if the replies look odd.",
  "Please don't reply to this automated message. For help, contact our support team.",
  "This message was generated automatically by the reporting system. Figures are as of midnight.",
  "The bot posts the build status to the channel. If it's red, check the logs before merging.",
];

// Footers and machine notices that look like instructions but concern the human reader.
export const NOTICES = [
  "This message is confidential. If you are not the intended recipient, do not read, copy or forward it, and notify the sender immediately.",
  "CONFIDENTIALITY NOTICE: This email and any attachments are for the sole use of the intended recipient. Any unauthorized review, use or distribution is prohibited.",
  "System maintenance complete.\nUser: {name}\nAction: password reset by administrator\nIf you did not request this, contact IT.",
  "Alert: disk usage on mail-02 is at 91%. Action: none required, cleanup job scheduled.",
  "Automated notice: your mailbox is almost full. Delete old messages or archive them to free space.",
  "Status: delivered\nRecipient: accounts@ourcompany.example\nMessage-ID: <{n}@mail.example>",
  "Your export is ready. Download the file from the link below within 7 days.",
  "Access request approved: {name} now has read access to the Finance folder.",
  "A forwarding rule was added to your account. If you did not make this change, remove it in settings and contact IT.",
  "Please do not print this email unless necessary. Think of the environment.",
];
