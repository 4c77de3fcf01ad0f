// Every weight the injection rules give their signals, as SpamAssassin keeps its scores apart
// from its rules: the numbers live in weights.json beside this file, read here and by
// scripts/fit-injection.ts. A rule names the entry it matched; the table says how much that
// counts. Entries in one family that add up ("plus...") are added to a base entry in the rule, in
// the order the rule lists them; "times..." entries scale a weight down.
//
// Beside them, the cutoffs: the gates the rules test hits and counts against, kept here for the
// same reason (a fit can move them without touching a rule).
//
// These are the strength each rule gives its signal, relative within its family: set by hand as
// the rules were written and kept as the rules' feature values, like a SpamAssassin rule's
// pattern. How much each signal counts in the verdict, and the threshold, are FITTED on a broad
// training corpus (combiner.ts, combiner.json, scripts/fit-injection.ts).
// `npx bun scripts/eval-injection.ts` prints what they score today; docs/judgement.md the history.

import { readFileSync } from "node:fs";

export type RuleWeights = {
  override: {
    rulesObject: number;
    ordersObject: number;
    everythingObject: number;
    plusQuantifier: number;
    plusYour: number;
    plusPrior: number;
    plusSystem: number;
    plusToldEverything: number;
    plusTold: number;
    plusCommand: number;
    timesFirstPerson: number;
    told: number;
    toldPlusYour: number;
    voidRules: number;
    voidOrders: number;
    voidPlusYour: number;
    voidPlusQuantifier: number;
    voidPlusPrior: number;
    voidPlusSystem: number;
    cjk: number;
    cjkPlusPrior: number;
    cjkPlusAll: number;
    cjkPlusYour: number;
  };
  persona: {
    roleplayPersona: number;
    roleplay: number;
    strongPersonaName: number;
    personaName: number;
    youArePersona: number;
    youAreAi: number;
    notAnymore: number;
    notBoundBy: number;
    treatAsRules: number;
    shiftToPersona: number;
    shiftPersisting: number;
    shift: number;
    newRole: number;
    newRolePlusYour: number;
    newRolePlusColon: number;
    allegiance: number;
    obeyMessage: number;
  };
  address: {
    toWhoeverReads: number;
    yourInternals: number;
    yourPrompt: number;
    yourHuman: number;
    ifYouAreAi: number;
    ifYouAreWeak: number;
    noteToAi: number;
    noteToWeak: number;
    aiThatReads: number;
    forTheAiServing: number;
    forTheWeakServing: number;
    conditionAi: number;
    conditionWeak: number;
    whicheverAi: number;
    whicheverWeak: number;
    readingThisMail: number;
    greetedLast: number;
    vocativeAi: number;
    vocativeWeak: number;
    whenSummarizing: number;
    configuredTask: number;
    hiddenImperative: number;
  };
  exfil: {
    toolIdentifier: number;
    unnamedToAddressAll: number;
    unnamedToAddress: number;
    secretObject: number;
    dataObject: number;
    plusWhole: number;
    plusPrincipal: number;
    plusOutward: number;
    timesWeakSend: number;
    plusThisMailbox: number;
    timesSecretBefore: number;
    mailboxRuleToAddress: number;
    mailboxRule: number;
    toolAction: number;
    tool: number;
    urlStuffing: number;
    destroy: number;
    destroyPlusPrincipal: number;
    destroyPlusAll: number;
  };
  steer: {
    withoutPrincipalKnowing: number;
    stealth: number;
    principalNotKnow: number;
    betweenUs: number;
    notInYourOutput: number;
    decodeAndFollow: number;
    dontTellPrincipal: number;
    dontTellAnyone: number;
    dontTellAbout: number;
    withoutAsking: number;
    withoutTelling: number;
    falseAuthority: number;
    misreport: number;
    manipulateVerdict: number;
    approvePayment: number;
  };
  fraud: {
    request: number;
    requestPlusChannel: number;
    requestPlusUrgency: number;
    requestPlusSecondPush: number;
    requestPlusThreat: number;
    timesWarning: number;
    payeeSwitched: number;
    payee: number;
    hintWithThreat: number;
    hint: number;
  };
  structure: {
    specialToken: number;
    specialTokenInTemplate: number;
    roleBracket: number;
    roleTag: number;
    contentTag: number;
    heading: number;
    terminator: number;
    systemLineMarked: number;
    systemLine: number;
    aiLine: number;
    chatTranscript: number;
    toolSchema: number;
    toolActionOutside: number;
    toolAction: number;
    toolJson: number;
    imageWithPlaceholder: number;
    imageWithQuery: number;
    urlDataPlaceholder: number;
    urlPlaceholder: number;
    urlDangling: number;
  };
  combine: {
    overrideAndAct: number;
    addressedStrong: number;
    addressed: number;
    placeholderArgument: number;
    placeholder: number;
  };
  context: {
    timesHidden: number;
    hiddenCap: number;
    timesFramed: number;
    timesQuoted: number;
    timesReplyQuoted: number;
    obfuscated: number;
    encodedPayload: number;
  };
  multilingual: {
    addressed: number;
    override: number;
    secrecy: number;
    skipCheck: number;
    exfil: number;
    addressedRequest: number;
  };
  unattended: {
    order: number; // an assistant spoken to and its human kept out, in one paragraph (unattended.ts)
    labelled: number; // a line labelled for the assistant ("Nota para asistentes virtuales:"), then a request
  };
  invisible: {
    tagsMany: number;
    tagsSome: number;
    tagsFew: number;
    otherMany: number;
    otherSome: number;
    otherFew: number;
    zeroWidth: number;
    bidi: number;
  };
};

// The gates the rules test against: how strong a hit must be to count where it is tested, and
// how many removed invisible characters make each grade of the invisible signals.
export type Cutoffs = {
  combine: {
    addressFloor: number; // weakest hit addressing the reader that can open an addressed instruction
    overrideFloor: number; // weakest "set the rules aside" hit that pairs with an action
    actionFloor: number; // weakest action hit (send, delete, tool call, ...) that pairs with either
    addressStrongFloor: number; // an address at least this strong gives the strong addressed weight
  };
  scan: {
    decodedHitFloor: number; // a decoded or rot13 text is an encoded payload only with a hit this strong
    obfuscatedHitFloor: number; // a disguised word counts as obfuscation only inside a hit this strong
  };
  risk: {
    signalFloor: number; // signals under this are dropped, so ordinary mail carries no trail of them
    learnedCap: number; // the learned model alone never reaches certainty
  };
  invisible: {
    tagsSomeCount: number;
    tagsManyCount: number;
    otherMinCount: number;
    otherSomeCount: number;
    otherManyCount: number;
    zeroWidthMinCount: number;
    bidiMinCount: number;
  };
};

type WeightsFile = { about: string; rules: RuleWeights; cutoffs: Cutoffs };

const FILE = JSON.parse(readFileSync(new URL("./weights.json", import.meta.url), "utf8")) as WeightsFile;

export const WEIGHTS: RuleWeights = FILE.rules;
export const CUTOFFS: Cutoffs = FILE.cutoffs;
