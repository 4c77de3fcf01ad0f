// Word classes the injection families are built from. Families combine classes
// (verb × qualifier × object) instead of listing sentences, so a paraphrase that keeps the
// meaning usually keeps at least one word of each class.
//
// Words are written folded: lower case, no diacritics, apostrophes dropped ("don't" → "dont").
// A trailing "*" matches any word starting with the stem; several words make a phrase that is
// matched as consecutive tokens and merged into one ("set aside" → "set_aside").

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

export const LEXICON: [number, string[]][] = [
  [C.OVERRIDE, [
    "ignor*", "disregard*", "forget", "forgets", "forgetting", "forgot", "forgotten", "overrid*", "overrode",
    "bypass*", "circumvent*", "discard*", "abandon*", "neglect*", "scrap", "scrapped", "overrul*", "supersed*",
    "nullif*", "revok*", "drop", "set aside", "put aside", "pay no attention to", "pay no attention",
    "stop following", "stop obeying", "stop applying", "stop using", "stop enforcing", "no longer follow", "no longer obey", "dont follow", "do not follow",
    "throw out", "throw away", "wipe", "erase", "olvid*", "haz caso omiso", "no hagas caso", "descarta", "omite",
    "vergiss", "vergess*", "missacht*", "verwirf", "oubli*", "ne tenez pas compte", "ne tiens pas compte",
    "faites abstraction", "fais abstraction", "ecartez", "contournez", "dimentic*", "esquec*", "desconsider*",
    "negeer", "negeren", "vergeet", "zignoruj", "ignoruj", "pomin", "zapomnij", "glom", "bortse fran", "tralasci*", "ignorar",
    // switching rules off rather than forgetting them
    "suspend", "pause", "disable", "deactivate", "turn off", "switch off", "lift", "waive", "relax", "ditch", "dismiss", "never mind",
  ]],
  [C.QUANT, [
    "all", "any", "every", "each", "entire", "whole", "whatever", "todas", "todos", "toda", "cualquier",
    "alle", "allen", "jede", "jeden", "jeder", "jedes", "samtlich*", "jeglich*", "toutes", "tous", "tutte", "tutti", "ogni",
    "cada", "chaque", "elke", "iedere", "wszystkie", "wszystkich", "kazda", "kazdy", "kazde",
  ]],
  [C.PRIOR, [
    "previous*", "prior", "earlier", "above", "preceding", "foregoing", "former", "original", "initial", "old",
    "existing", "current", "before", "aforementioned", "usual", "normal", "standard", "regular", "anterior*", "previa", "previas", "previo", "previos",
    "precedent*", "vorherig*", "bisherig*", "obig*", "fruher*", "vorig*", "ursprunglich*", "dessus", "prima",
    "eerdere", "vorige", "oude", "poprzedni*", "wczesniejsz*", "tidigare",
  ]],
  [C.YOUR, ["your", "yours", "tus", "tu", "deine", "deinen", "deiner", "dein", "tes", "vos", "votre", "tue", "tuoi", "suas", "seus"]],
  [C.SYSTEMY, ["system", "developer", "developers", "safety", "default", "core", "internal", "hidden", "sistema", "systeme", "operator"]],
  [C.RULES, [
    "instruc*", "prompt", "prompts", "guideline*", "directive*", "directions", "rule", "rules", "constraint*",
    "restriction*", "guardrail*", "programming", "system prompt", "safeguard*", "guidance", "conditioning",
    "regla", "reglas", "directriz", "directrices", "norma", "normas", "restriccion*", "indicaciones",
    "anweisung*", "regel", "regeln", "vorgabe*", "richtlinie*", "einschrankung*", "consigne*", "regle", "regles",
    "istruzion*", "regol*", "regra", "regras", "diretriz*", "instructies", "regels", "richtlijnen", "polecen*", "instrukcj*",
    "zasady", "instruktioner", "regler", "protocols", "boundaries", "principles", "content policy",
  ]],
  [C.ORDERS, [
    "command", "commands", "order", "orders", "task", "tasks", "assignment", "context", "settings", "policy",
    "policies", "mandate", "mandates", "training", "befehl*", "ordre", "ordres", "ordenes", "comandos", "tarea",
    "tareas", "aufgabe*", "tache", "taches", "brief", "briefing",
  ]],
  [C.VOID, [
    "void", "null", "obsolete", "outdated", "out of date", "revoked", "rescinded", "cancelled", "canceled", "suspended", "superseded",
    "overridden", "overruled", "invalid", "lifted", "expired", "annulled", "no longer apply", "no longer applies",
    "no longer valid", "no longer relevant", "no longer binding", "no longer matter", "no longer matters",
    "no longer in effect", "no longer in force", "matter anymore", "apply anymore", "count anymore", "nicht mehr", "do not apply", "dont apply", "does not apply", "doesnt apply",
    "do not matter", "dont matter", "nulas", "anuladas", "anulados", "sin efecto", "ya no aplican", "ya no valen",
    "aufgehoben", "ungultig", "nichtig", "gelten nicht mehr", "annulees", "caduques", "nulles",
    "ne sappliquent plus", "revoquees", "annullate",
    // paused or switched off rather than cancelled: the same claim in softer words
    "paused", "on hold", "disabled", "switched off", "turned off", "deactivated", "waived", "relaxed", "retired",
    "not in effect", "no longer active", "no longer in place", "pausadas", "pausados", "suspendidas", "suspendidos", "desactivadas",
    "desactivados", "ausgesetzt", "deaktiviert", "pausiert", "suspendues", "desactivees", "sospese", "disattivate", "uitgeschakeld",
  ]],
  [C.EVERYTHING, ["everything", "anything", "all that", "all of that", "all of the above", "todo", "alles", "tout", "tutto", "tudo"]],
  [C.TOLD, [
    "told", "said", "instructed", "taught", "programmed", "configured", "given", "gave", "received", "trained",
    "started", "began", "loaded", "initialized", "so far", "up to now", "until now", "thus far", "up to this point", "dijeron", "dicho", "hasta ahora",
    "gesagt", "bisher", "zuvor", "dit", "jusqu", "ici", "detto", "dito", "date", "dati", "state",
  ]],
  [C.SEND, [
    "send", "sends", "sending", "forward", "forwarding", "email", "mail", "transfer*", "export*", "exfiltrat*",
    "upload*", "post", "share", "shares", "sharing", "copy", "copied", "leak", "listing", "reveal*", "disclose*", "print",
    "output", "dump", "paste", "include", "attach", "attaching", "bcc", "cc", "submit", "transmit*", "relay",
    "stash", "mirror", "sync", "replicate", "bundle", "lodge", "duplicate",
    "provide", "give", "summarize", "summarise", "quote", "gather", "collect", "pull", "grab", "harvest", "extract", "scrape", "reply with", "respond with", "write out", "list out", "read out", "read back",
    "hand over", "pass on", "envia*", "enviar", "envie", "envies", "reenvia*", "manda", "mandar", "comparte",
    "revela", "exporta", "sende", "senden", "schick*", "leite", "weiterleit*", "teile", "verrate", "gib",
    "envoie*", "envoyez", "envoyer", "transfere*", "partage*", "revele*", "divulgue*", "invia*", "inoltra*",
    "condividi", "encaminhe", "compartilhe", "mandame", "enviame", "reenviame", "stuur", "verstuur", "doorsturen",
    "wyslij", "przeslij", "przekaz", "skicka", "vidarebefordra", "compile",
  ]],
  [C.SECRET, [
    "password*", "passwort*", "passcode*", "passphrase*", "credential*", "api key", "api keys", "apikey*", "token",
    "tokens", "secret", "secrets", "private key", "private keys", "ssh key", "ssh keys", "access key",
    "access keys", "secret key", "secret keys", "session cookie", "session cookies", "cookies", "2fa", "otp",
    "one time code", "one time codes", "verification code", "verification codes", "security code",
    "security codes", "recovery code", "recovery codes", "backup code", "backup codes", "card number",
    "credit card", "cvv", "ssn", "system prompt", "reset link", "reset links", "login details", "seed phrase",
    "contrasena*", "credencial*", "kennwort*", "zugangsdaten", "mot de passe", "mots de passe", "identifiants",
    "senha*",
    // payment and identity data: what an attacker wants besides passwords
    "payment details", "payment detail", "payment info", "payment information", "payment method", "payment methods",
    "saved cards", "card details", "card numbers", "card data", "bank login", "bank logins", "bank details", "banking details",
    "account number", "account numbers", "routing number", "iban", "cvc", "social security number", "social security numbers",
    "passport number", "passport details", "tax id", "pin code", "pin number", "security questions", "mfa code", "mfa codes",
    "auth code", "auth codes", "access code", "access codes", "sign in code", "sign in codes", "login code", "login codes",
    "environment variables", "env vars", "zugangscode*", "datos bancarios", "numero de tarjeta", "codigos de verificacion",
    "codigo de verificacion", "codes de verification", "wachtwoord*", "hasla", "haslo",
  ]],
  [C.DATA, [
    "inbox", "inboxes", "mailbox*", "emails", "messages", "message", "mails", "contacts", "address book", "correspondence",
    "conversation history", "chat history", "history", "calendar", "documents", "files", "attachments", "threads",
    "database", "records", "customer data", "user data", "personal data", "spreadsheet*", "folder", "drafts",
    "invoices", "invoice", "statement", "statements", "payroll", "payslip*", "salar*", "availability", "attachment",
    "file", "document", "pdf", "folder", "sent folder", "sent items", "sent mail", "nachricht", "mensaje", "correo", "correos", "contactos", "archivos",
    "mensajes", "kontakte", "dateien", "nachrichten", "postfach*", "courriels", "fichiers", "posta", "contatos",
    "arquivos",
    // personal data about the human
    "personal details", "personal information", "contact list", "contact details", "phone number", "phone numbers",
    "home address", "date of birth", "medical records", "tax documents", "tax document", "bookings", "itinerary", "unread",
    "conversation", "conversations", "chat log", "chat logs", "transcript", "transcripts", "berichten", "wiadomosci",
    "messaggi", "mensagens", "e mails",
  ]],
  [C.NEG, ["not", "never", "dont", "cannot", "cant", "wont", "shouldnt", "mustnt", "no", "nunca", "jamas", "nie", "niemals", "nicht", "nichts", "nada", "jamais", "ne", "non", "nao"]],
  [C.TELL, [
    "tell", "inform", "informing", "mention", "notify", "notifying", "alert", "alerting", "warn", "bother",
    "confirm", "confirming", "ask", "asking", "let know", "explain", "acknowledge", "digas", "decir", "informes",
    "informar", "menciones", "avises", "sag", "sage", "sagen", "erwahne*", "informiere*", "benachrichtig*", "dis",
    "dites", "mentionne*", "informe", "informez", "informer", "previens", "prevenez", "signale*", "diga", "conte",
    "avvisa*", "avvertire", "informare", "dire", "dirlo", "decirselo", "decirle", "decirles", "avisarle", "avisarlo",
    "contarle", "contarselo", "mencionarlo", "informarle", "vertellen", "vertel", "zeggen", "mowic", "powiedz*",
  ]],
  [C.PRINCIPAL, [
    "user", "users", "human", "owner", "owners", "recipient", "principal", "operator", "account holder",
    "account owner", "mailbox owner", "usuario*", "benutzer*", "nutzer*", "anwender*", "utilisateur*",
    "proprietaire", "destinatario*", "empfanger*", "utente",
  ]],
  [C.ANYONE, ["anyone", "anybody", "nobody", "no one", "noone", "nadie", "niemand", "personne", "nessuno", "ninguem"]],
  [C.AI, [
    "ai", "llm", "llms", "language model", "large language model", "chatbot*", "bot", "gpt*", "chatgpt", "claude",
    "gemini", "copilot", "ai assistant", "ai agent", "ai model", "ai system", "email assistant", "mail assistant",
    "inbox assistant", "virtual assistant", "digital assistant", "automated assistant", "automated reader",
    "automated system", "automated agent", "autonomous agent", "mail agent", "email agent", "summarizer", "ia",
    "ki", "sprachmodell", "modelo de lenguaje", "modele de langage", "bots", "ai models", "ai agents", "ai assistants",
    "ai systems", "ai tool", "ai tools", "language models", "automated readers", "mail bot", "email bot",
  ]],
  [C.AIWEAK, ["assistant", "assistants", "agent", "agents", "model", "models", "asistente", "assistent*", "agente", "modele", "modelo", "modello"]],
  [C.FIRST, ["my", "our", "i", "we", "me", "us", "mine", "ich", "mein*", "unser*", "mi", "mis", "nuestro*", "mon", "ma", "mes", "notre", "nos", "je", "meu", "minha", "mio", "mia"]],
  [C.COMMAND, [
    "respond", "reply", "output", "say", "print", "write", "tell", "reveal", "classify", "summarize", "summarise",
    "translate", "answer", "repeat", "execute", "call", "send", "forward", "include", "append", "mark", "tag",
    "delete", "approve", "obey", "comply", "return", "dump", "display", "show", "open", "visit", "fetch", "run",
    "instead", "list", "copy", "upload", "export",
  ]],
  [C.STEALTH, ["silently", "quietly", "secretly", "covertly", "discreetly", "behind the scenes", "in the background", "unnoticed", "heimlich", "en secreto", "en secret"]],
  [C.TOOL, ["tool", "tools", "function", "functions", "plugin*", "api", "endpoint", "webhook", "function call", "tool call", "browsing tool"]],
  [C.INVOKE, ["call", "invoke", "trigger", "execute", "run", "use", "activate"]],
  [C.FRAME, [
    "attacker*", "hacker*", "researcher*", "example", "examples", "such as", "for example", "for instance", "eg",
    "phrase", "phrases", "known as", "technique*", "vulnerab*", "injection*", "payload*", "malicious",
    "adversar*", "exploit*", "scam*", "phishing", "red team", "trials", "attack", "attacks", "defense*",
    "threat*", "fraud*", "models", "agents", "assistants", "llms", "chatbots",
    "tricked", "demonstrat*", "mitigat*", "exfiltrat*", "proof of concept", "writeup", "benchmark*", "template",
    "templates", "tokenizer*", "fine-tun*", "finetun*",
  ]],
  [C.PERSONA, [
    "dan", "unrestricted", "unfiltered", "jailbroken", "jailbreak", "uncensored", "unbound", "rogue", "godmode",
    "god mode", "developer mode", "dev mode", "debug mode", "maintenance mode", "admin mode", "do anything now",
    "no restrictions", "without restrictions", "without any restrictions", "without limits", "no rules",
    "no limits", "no filters", "sin restricciones", "sin filtro", "sin filtros", "sin limites",
    "ohne einschrankungen", "ohne regeln", "ohne filter", "sans filtre", "sans restriction", "sans restrictions",
    "sans limites", "senza restrizioni", "sem restricoes",
  ]],
  [C.NEW, ["new", "updated", "real", "actual", "true", "revised", "nuevas", "nuevo", "nueva", "neue*", "nouvelle*", "nouveau", "nuove", "nuovo"]],
  [C.WITHOUT, ["without", "sin", "ohne", "sans", "senza", "sem"]],
  [C.MANIP, ["mark", "classify", "label", "tag", "flag", "categorize", "rank", "rate", "score", "prioritize", "treat", "whitelist", "approve", "accept"]],
  [C.SHIFT, [
    "you are now", "youre now", "you have been reassigned", "you have been repurposed", "you have been reprogrammed",
    "you have been reconfigured", "you are hereby", "you are no longer", "youre no longer", "you will now", "from now on",
    "from this point on", "from this point forward", "from here on", "henceforth", "starting now",
    "a partir de ahora", "ahora eres", "ab jetzt", "von nun an", "ab sofort", "du bist jetzt", "desormais",
    "a partir de maintenant", "tu es maintenant", "vous etes maintenant", "da ora in poi", "ora sei",
    "a partir de agora", "agora voce e", "vanaf nu", "von jetzt an", "od teraz", "od tej chwili", "fran och med nu",
    "a partir daqui", "d ora in poi",
  ]],
  [C.ROLEPLAY, [
    "act as", "act like", "pretend to be", "pretend you are", "pretend that you", "roleplay as", "role play as",
    "behave as", "behave like", "impersonate", "simulate being", "actua como", "finge ser", "handle als",
    "tu so als", "agis comme", "agissez comme", "fais semblant", "comportati come", "aja como", "finja ser",
  ]],
];

// Small sets the families test directly, by word.
export const WORDS = {
  read: new Set(["reads", "manages", "monitors", "summarizes", "triages", "checks", "reading", "processing", "summarizing", "summarising", "parsing", "handling", "analyzing", "analysing", "scanning", "triaging", "screening", "monitoring", "reads", "processes", "handles", "reviewing", "reviews", "ingesting", "sorting", "answering", "receiving", "receives", "opening", "opens"]),
  note: new Set(["note", "message", "instructions", "instruction", "attention", "reminder", "notice", "memo", "directive", "hint", "request", "nota", "hinweis", "remarque"]),
  dear: new Set(["dear", "hey", "hi", "hello", "attention", "attn", "hola", "hallo", "bonjour", "ciao", "ola"]),
  mail: new Set(["email", "mail", "message", "inbox", "mailbox", "thread", "correo", "nachricht", "courriel", "conversation", "emails", "messages"]),
  this: new Set(["this", "these", "current", "este", "esta", "diese", "dieser", "diesen", "ce", "cette", "questo", "questa"]),
  summarize: new Set(["summarize", "summarise", "summarizing", "summarising", "summary", "digest", "triage", "triaging", "classify", "classifying", "categorize", "categorizing", "process", "processing", "parse", "parsing", "analyze", "analyzing", "index", "indexing"]),
  when: new Set(["when", "while", "before", "after", "as", "once"]),
  humanRole: new Set(["manager", "director", "professor", "coach", "editor", "secretary", "principal", "teacher", "coordinator", "engineer", "lead", "of", "at", "from", "team"]),
  benignShift: new Set(["subscribed", "registered", "enrolled", "member", "signed", "logged", "eligible", "ready", "able", "can", "may", "connected", "verified", "confirmed", "part", "invited", "following", "responsible", "zustandig", "verantwortlich", "responsable", "level", "on", "officially", "live", "set", "all"]),
  persist: new Set(["will", "must", "shall", "should", "only", "always", "answer", "respond", "reply", "obey", "follow", "work", "act"]),
  roleNoun: new Set(["task", "tasks", "role", "objective", "goal", "mission", "purpose", "directive", "priority", "persona", "identity", "orders", "system_prompt", "instructions", "rules"]),
  know: new Set(["know", "see", "notice", "find", "learn", "aware", "suspect", "discover", "realize", "wissen", "saber", "savoir"]),
  consent: new Set(["confirmation", "permission", "approval", "consent", "confirm", "knowledge", "knowing", "noticing", "approving"]),
  output: new Set(["summary", "reply", "response", "answer", "output", "report", "resumen", "respuesta", "antwort", "zusammenfassung", "resume", "reponse"]),
  omit: new Set(["omit", "exclude", "skip", "hide", "leave", "remove", "mention", "include", "reference"]),
  manipTarget: new Set(["email", "message", "sender", "resume", "candidate", "application", "ticket", "invoice", "payment", "request", "domain", "transfer", "wire", "this"]),
  manipVerdict: new Set(["safe", "important", "trusted", "legitimate", "urgent", "priority", "verified", "approved", "whitelisted", "first", "top", "highest", "best", "genuine", "clean", "high"]),
  decode: new Set(["decode", "decipher", "translate", "convert", "unscramble", "deobfuscate", "rot13", "base64", "decrypt", "unpack"]),
  obey: new Set(["follow", "execute", "obey", "run", "comply", "carry_out", "act_on", "do", "perform", "apply"]),
  urlWord: new Set(["url", "link", "query", "parameter", "querystring", "endpoint", "image", "href"]),
  append: new Set(["append", "add", "include", "put", "insert", "encode", "embed", "attach", "replace", "substitute", "fill"]),
  extraPhrases: ["carry out", "act on", "between us", "no need to", "to whoever", "comply with", "listen to", "set up", "work for", "answer to", "take orders from", "auto forward", "forwarding rule", "forwarding rules", "mail rule", "inbox rule", "you are", "if you are", "if youre", "in case you are", "si eres", "si tu es", "si vous etes", "wenn du", "falls du", "se sei", "bound by"],
};

// Short words every message is full of; known so spaced-out letters can be split into words.
export const FUNCTION_WORDS = [
  "a", "an", "the", "to", "and", "or", "of", "in", "on", "at", "by", "for", "from", "with", "as", "is", "are", "be",
  "was", "were", "you", "it", "this", "that", "these", "now", "then", "here", "there", "what", "who", "me", "him",
  "her", "them", "they", "he", "she", "do", "did", "done", "will", "must", "should", "can", "so", "up", "out",
  "off", "only", "just", "also", "into", "via", "please", "immediately", "instead", "mode", "reply", "respond",
  "say", "enter", "new", "real", "tell", "user", "secret", "hidden", "admin", "root",
];
