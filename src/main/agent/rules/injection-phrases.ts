/*
 * The wording of a prompt injection: phrases aimed at the model rather than at a reader. Each rule is an anchor (a
 * plain alternation of words, found in one linear pass) and a pattern tried only at an anchor, on a short window of
 * text after it. No pattern nests quantifiers and every gap is bounded, so the work is linear in the text whatever it
 * holds (see https://owasp.org/www-community/attacks/Regular_expression_Denial_of_Service_-_ReDoS).
 *
 * The rules ask for more than a keyword: "ignore the rules" is a lint comment, "ignore all previous instructions" is
 * not; "send the token to the server" is API documentation, "send the token to https://…" asks for it to leave.
 */
import type { InjectionSignKind } from '../../../shared/guardrails';

export interface PhraseRule {
  readonly kind: InjectionSignKind;
  readonly explanation: string;
  /** Global, case-insensitive; where a match may begin. */
  readonly anchor: RegExp;
  /** Must match at the anchor (sticky), within `windowCharacters` of text from there. */
  readonly pattern: RegExp;
  /** Further tests on the same window, each of which must match somewhere in it. */
  readonly alsoInWindow?: readonly RegExp[];
}

/** How far after an anchor a rule looks. */
export const windowCharacters = 240;

const secretWords =
  /\b(?:api[\s_-]?keys?|secrets?|passwords?|passwd|credentials?|(?:access|auth|bearer|github|npm|aws)[\s_-]?tokens?|tokens|private[\s_-]?keys?|ssh[\s_-]?keys?|id_rsa|environment\s+variables|env\s+vars|cookies|session\s+(?:ids?|tokens?)|system\s+prompt|conversation|chat\s+history|previous\s+messages|keychain)\b|\.(?:env|ssh|aws|netrc|npmrc)\b/i;
const outsideAddress =
  /https?:\/\/|\b[\w.+-]{1,64}@[\w-]{1,63}\.[a-z]{2,}|\b(?:webhook|ngrok|pastebin|requestbin|pipedream|burpcollaborator)/i;
/** Words that name an AI model and nothing else; "the model" or "all agents" alone is too common in ordinary text. */
const aiWords = String.raw`(?:ai|a\.i\.|llms?|large\s+language\s+models?|language\s+models?|ai\s+assistants?|ai\s+agents?|ai\s+models?|chatbots?)`;

const sticky = (source: string): RegExp => new RegExp(source, 'iy');
const anchor = (source: string): RegExp => new RegExp(source, 'gi');

export const phraseRules: readonly PhraseRule[] = [
  {
    kind: 'ignore_person',
    explanation: 'Asks the model to ignore the instructions it was given.',
    anchor: anchor(String.raw`\b(?:ignore|disregard|forget|override|bypass|abandon)\b`),
    pattern: sticky(
      String.raw`(?:ignore|disregard|forget|override|bypass|abandon)\s+(?:(?:all|any|every|the|your|my|of|these|those|prior|previous|above|earlier|preceding|former|original|initial|system|safety|user'?s?|person'?s?)\s+){0,3}(?:all|prior|previous|above|earlier|preceding|former|original|initial|system|safety|user'?s?|person'?s?)\s+(?:instructions?|prompts?|directions?|directives?|rules|guidelines|guardrails|messages?|requests?|commands?|context|orders|constraints)\b`,
    ),
  },
  {
    kind: 'ignore_person',
    explanation: 'Asks the model to ignore the person it works for.',
    anchor: anchor(String.raw`\b(?:ignore|disregard|do\s+not\s+listen|don'?t\s+listen|never\s+listen|stop\s+listening|regardless\s+of)\b`),
    pattern: sticky(
      String.raw`(?:ignore|disregard|do\s+not\s+listen|don'?t\s+listen|never\s+listen|stop\s+listening|regardless\s+of)(?:\s+to)?(?:\s+what(?:ever)?)?\s+(?:the|your)\s+(?:user|person|human|operator)(?!'|’)\b`,
    ),
  },
  {
    kind: 'ignore_person',
    explanation: 'Asks the model to keep something from the person.',
    anchor: anchor(String.raw`\b(?:do\s+not|don'?t|never|without|keep|hide)\b`),
    pattern: sticky(
      String.raw`(?:(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention|reveal|disclose)|without\s+(?:telling|informing|mentioning)|(?:keep|hide)\s+(?:this|it|that|these)(?:\s+secret)?\s+from)(?:\s+(?:this|it|that|anything))?(?:\s+(?:to|with))?\s+(?:the|your)\s+(?:user|person|human|operator)\b`,
    ),
  },
  {
    kind: 'instructions_to_model',
    explanation: 'Imitates the markers of a chat conversation, to pass text off as the system or the assistant.',
    anchor: anchor(
      String.raw`<\|im_start\|>|<\|(?:system|assistant|user)\|>|\[INST\]|<<SYS>>|<\/?(?:system|system_prompt|tool_result|function_results|assistant)>`,
    ),
    pattern: sticky(String.raw`.`),
  },
  {
    kind: 'instructions_to_model',
    explanation: 'Speaks as the system or the assistant, giving the model orders.',
    anchor: anchor(String.raw`\b(?:system|assistant)\b`),
    pattern: sticky(
      String.raw`(?:system|assistant)[ \t]*(?:prompt|message|instructions?|override|update|note)?[ \t]*:[ \t]*(?:you\b|ignore\b|from\s+now\s+on|new\s+instructions|important\b)`,
    ),
  },
  {
    kind: 'instructions_to_model',
    explanation: 'Tries to give the model a new role or new instructions.',
    anchor: anchor(String.raw`\b(?:you\s+are\s+now|from\s+now\s+on|your\s+new|new|updated|real|actual|true|hidden|secret|pretend)\b`),
    pattern: sticky(
      String.raw`(?:you\s+are\s+now\s+(?:(?:a|an|the|my)\s+(?:[\w-]+\s+){0,3}(?:assistant|ai|model|agent|bot|chatbot|persona|character|hacker)\b|no\s+longer\b|free\b|unrestricted\b|jailbroken\b|in\s+developer\s+mode\b|dan\b)|from\s+now\s+on,?\s+(?:you|the\s+(?:assistant|ai|model))\s+(?:are|must|shall|will\s+(?:ignore|obey|only))\b|your\s+new\s+(?:instructions?|task|role|goal|objective|purpose|directive|orders)\s+(?:is|are)\b|(?:new|updated|real|actual|true|hidden|secret)\s+(?:system\s+)?(?:instructions?|prompt|directives?)\s*:|pretend\s+(?:to\s+be|you\s+are)\s+(?:a|an)\s+(?:[\w-]+\s+){0,2}(?:ai|assistant|model|agent|hacker)\b)`,
    ),
  },
  {
    kind: 'instructions_to_model',
    explanation: 'Addresses an AI model directly, as a reader of the text.',
    anchor: anchor(
      String.raw`\b(?:if\s+you\s+are|dear|hey|attention|note\s+to|message\s+(?:to|for)|instructions?\s+for|to\s+(?:any|all|every))\b`,
    ),
    pattern: sticky(
      String.raw`(?:(?:if\s+you\s+are\s+an?|to\s+(?:any|all|every)|instructions?\s+for)[\s,:]+(?:the\s+)?${aiWords}|(?:dear|hey|attention|note\s+to|message\s+(?:to|for))[\s,:]+(?:the\s+)?(?:${aiWords}|assistant|model|agent))\b`,
    ),
    alsoInWindow: [/\b(?:you|must|should|please|ignore|instead)\b/i],
  },
  {
    kind: 'instructions_to_model',
    explanation: 'Tells the model to keep these instructions secret.',
    anchor: anchor(String.raw`\b(?:do\s+not|don'?t|never)\b`),
    pattern: sticky(String.raw`(?:do\s+not|don'?t|never)\s+(?:reveal|disclose|mention|repeat)\s+(?:these|this|the|my)\s+instructions\b`),
  },
  {
    kind: 'exfiltration',
    explanation: 'Asks for secrets or private data to be sent to an outside address.',
    anchor: anchor(String.raw`\b(?:send|upload|post|exfiltrate|leak|forward|e-?mail|transmit|share|submit|deliver|report)\b`),
    pattern: sticky(String.raw`[\s\S]`),
    alsoInWindow: [secretWords, outsideAddress],
  },
  {
    kind: 'exfiltration',
    explanation: 'A command that sends local secrets or files over the network.',
    anchor: anchor(String.raw`\b(?:curl|wget|nc|ncat|invoke-webrequest|iwr)\b`),
    pattern: sticky(String.raw`[\s\S]`),
    alsoInWindow: [
      /\$\((?:cat|env|printenv|base64)\b|`(?:cat|env|printenv)\b|@~?\/?[\w./-]{0,80}(?:\.ssh|\.aws|\.env|id_rsa|\.netrc|\.npmrc|credentials)|~\/\.ssh|\.aws\/credentials|\/etc\/shadow/i,
    ],
  },
  {
    kind: 'exfiltration',
    explanation: 'A Markdown image whose address has blanks for data: showing it would send that data to the address.',
    anchor: /!\[/g,
    pattern: sticky(
      String.raw`!\[[^\]\n]{0,200}\]\(\s*https?:\/\/[^)\s?]{1,200}\?[^)\s]{0,300}?(?:\{|%7b|\$\(|<[a-z_ ]{1,40}>|\[[a-z_ ]{1,40}\])`,
    ),
  },
  {
    kind: 'exfiltration',
    explanation: 'Asks the model to give away its instructions.',
    anchor: anchor(String.raw`\b(?:reveal|print|output|repeat|show|tell|display|dump|leak|disclose)\b`),
    pattern: sticky(
      String.raw`(?:reveal|print|output|repeat|show|tell|display|dump|leak|disclose)(?:\s+(?:me|us))?\s+(?:your|the)\s+(?:(?:full|entire|complete|original|initial|hidden|secret)\s+)?(?:system\s+prompt|system\s+message|initial\s+instructions|hidden\s+instructions|instructions\s+above|previous\s+instructions)\b`,
    ),
  },
];

/**
 * At most this many anchors of one rule are looked at: a text made of nothing but anchors stays cheap. A tool's result
 * is checked as the model is given it (16,000 characters), which holds fewer; a longer text (an attachment, a file of
 * instructions) with more is a sign in itself, so padding it with anchors cannot hide a phrase after them.
 */
export const anchorsPerRule = 20_000;

export interface PhraseMatch {
  readonly rule: PhraseRule;
  readonly offset: number;
  readonly text: string;
}

/** The phrases of `text` that rules match, at most `perRule` of each. */
export function findPhrases(text: string, perRule = 3): PhraseMatch[] {
  const found: PhraseMatch[] = [];
  for (const rule of phraseRules) {
    // The rule's own pattern, from its start: the search is synchronous, so no other search can move it meanwhile.
    const anchorPattern = rule.anchor;
    anchorPattern.lastIndex = 0;
    let anchors = 0;
    let matched = 0;
    let hit = anchorPattern.exec(text);
    for (; hit !== null && anchors < anchorsPerRule && matched < perRule; hit = anchorPattern.exec(text)) {
      anchors += 1;
      if (hit[0].length === 0) anchorPattern.lastIndex += 1;
      const window = text.slice(hit.index, hit.index + windowCharacters);
      rule.pattern.lastIndex = 0;
      const at = rule.pattern.exec(window);
      if (at === null || !(rule.alsoInWindow ?? []).every((test) => test.test(window))) continue;
      matched += 1;
      const end = rule.alsoInWindow ? Math.min(window.length, 160) : at[0].length;
      found.push({ rule, offset: hit.index, text: window.slice(0, Math.max(end, at[0].length)) });
      // The next match starts after this one, so one phrase is one sign.
      anchorPattern.lastIndex = Math.max(anchorPattern.lastIndex, hit.index + at[0].length);
    }
    if (hit !== null && anchors >= anchorsPerRule && matched < perRule)
      found.push({
        rule: {
          ...rule,
          explanation: `More than ${anchorsPerRule.toLocaleString('en')} of the words one sign starts from, too many to check each: text padded so that a phrase goes unseen.`,
        },
        offset: hit.index,
        text: text.slice(hit.index, hit.index + 160),
      });
  }
  return found;
}
