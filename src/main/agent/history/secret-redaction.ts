/*
 * What looks like a secret in text (API keys, tokens, private keys, `.env` values), found and replaced with a marker, so
 * an exported session can be shared without them.
 */

/** What a redacted secret is replaced with: plain text, so a document stays valid JSON, and a session file still imports. */
export const redactionMarker = '[REDACTED]';

interface SecretPattern {
  readonly name: string;
  readonly pattern: RegExp;
  /** What the match becomes: the marker, keeping what names the secret (`API_KEY=`, `Bearer `). */
  readonly replace: (match: string, ...groups: string[]) => string;
}

const whole = (): string => redactionMarker;
/** A keyword that names a secret in an assignment or a key of a document. */
const secretName = String.raw`(?:SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CLIENT_?SECRET|AUTH)`;

/** The patterns, most specific first: a private key block before the keys inside it. */
const patterns: readonly SecretPattern[] = [
  {
    name: 'private key',
    pattern: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g,
    replace: (_match, kind = '') => `-----BEGIN ${kind}PRIVATE KEY-----${redactionMarker}-----END ${kind}PRIVATE KEY-----`,
  },
  { name: 'Anthropic key', pattern: /\bsk-ant-[A-Za-z0-9_-]{16,}/g, replace: whole },
  { name: 'OpenAI-style key', pattern: /\bsk-(?:proj-|svcacct-)?[A-Za-z0-9_-]{20,}/g, replace: whole },
  { name: 'GitHub token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})/g, replace: whole },
  { name: 'AWS access key id', pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g, replace: whole },
  { name: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g, replace: whole },
  { name: 'Slack token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g, replace: whole },
  {
    name: 'bearer token',
    pattern: /\b(Bearer|Basic)(\s+)[A-Za-z0-9._~+/=-]{16,}/g,
    replace: (_match, scheme = '', space = ' ') => `${scheme}${space}${redactionMarker}`,
  },
  {
    // SECRET=…, export API_KEY="…", DB_PASSWORD: … (a .env file, a shell line, YAML).
    name: 'assigned secret',
    pattern: new RegExp(
      String.raw`\b([A-Z][A-Z0-9_]*${secretName}[A-Z0-9_]*|${secretName}[A-Z0-9_]*)(\s*[=:]\s*)(["']?)([^\s"'\\]{4,})\3`,
      'g',
    ),
    replace: (_match, name = '', assign = '=', quote = '') => `${name}${assign}${quote}${redactionMarker}${quote}`,
  },
  {
    // "password": "…" in JSON held as text (a file the agent read, a tool's arguments).
    name: 'secret field',
    pattern:
      /("[A-Za-z0-9_-]*(?:secret|token|password|passwd|api_?key|apiKey|access_?key|private_?key)[A-Za-z0-9_-]*"\s*:\s*")([^"\\]{4,})(")/gi,
    replace: (_match, before = '', _value = '', after = '') => `${before}${redactionMarker}${after}`,
  },
];

/** The text with what looks like a secret replaced, and how many were. Text already redacted is left as it is. */
export function redactSecrets(text: string): { text: string; count: number } {
  let count = 0;
  let result = text;
  for (const { pattern, replace } of patterns) {
    result = result.replace(pattern, (match: string, ...rest: unknown[]) => {
      const groups = rest.filter((value): value is string => typeof value === 'string' || value === undefined).map((value) => value ?? '');
      const replaced = replace(match, ...groups);
      if (replaced !== match) count += 1;
      return replaced;
    });
  }
  return { text: result, count };
}

const base64Blob = /^[A-Za-z0-9+/]+={0,2}$/;

/** A JSON value with every string in it redacted (object keys are kept): a copy, and how many secrets were replaced. */
export function redactValue<T>(value: T): { value: T; count: number } {
  let count = 0;
  const walk = (item: unknown): unknown => {
    if (typeof item === 'string') {
      // An attached image's bytes (base64): a run of its letters can look like a key, and changing one breaks the image.
      if (item.length >= 256 && base64Blob.test(item)) return item;
      const redacted = redactSecrets(item);
      count += redacted.count;
      return redacted.text;
    }
    if (Array.isArray(item)) return item.map(walk);
    if (item !== null && typeof item === 'object')
      return Object.fromEntries(Object.entries(item).map(([key, entry]) => [key, walk(entry)]));
    return item;
  };
  // The walk keeps the shape: every string stays a string, every array an array, every object with the same keys.
  return { value: walk(value) as T, count };
}
