/*
 * Language servers that go wrong, as small Node programs put where the app looks for a workspace's own server: one
 * that never answers, one that exits at once, one that sends what is not the protocol, one that answers and then dies.
 */

import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type FakeServer = 'silent' | 'exits' | 'garbage' | 'dies-after-start';

const programs: Record<FakeServer, string> = {
  silent: 'process.stdin.resume();\nsetInterval(() => undefined, 1000);\n',
  exits: "process.stderr.write('cannot read my configuration\\n');\nprocess.exit(3);\n",
  garbage:
    "process.stdin.resume();\nprocess.stdout.write('Content-Length: 12\\r\\n\\r\\n{not json!!}');\nsetInterval(() => undefined, 1000);\n",
  'dies-after-start': [
    "let buffer = '';",
    "process.stdin.on('data', (chunk) => {",
    '  buffer += chunk.toString();',
    '  const match = /\\r\\n\\r\\n(\\{.*"method":"initialize".*\\})/s.exec(buffer);',
    '  if (match && !buffer.includes("answered")) {',
    '    const id = JSON.parse(match[1]).id;',
    "    const body = JSON.stringify({ jsonrpc: '2.0', id, result: { capabilities: { textDocumentSync: 1 } } });",
    '    process.stdout.write(`Content-Length: ${Buffer.byteLength(body)}\\r\\n\\r\\n${body}`);',
    "    buffer += 'answered';",
    '  }',
    "  if (buffer.includes('textDocument/didOpen')) process.exit(9);",
    '});',
    '',
  ].join('\n'),
};

/** Puts a fake `typescript-language-server` in the workspace's `node_modules/.bin`, where it is found before the PATH. */
export function installFakeServer(workspace: string, kind: FakeServer): void {
  const bin = join(workspace, 'node_modules', '.bin');
  mkdirSync(bin, { recursive: true });
  const path = join(bin, 'typescript-language-server');
  writeFileSync(path, `#!/usr/bin/env node\n${programs[kind]}`);
  chmodSync(path, 0o755);
}
