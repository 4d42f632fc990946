import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { channelNames, type ChannelName } from '../../../src/shared/ipc/contract';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import { temporaryFolder } from '../../helpers';
import { LoopbackTransport } from '../../host/loopback-transport';
import { createNodeCore } from '../../host/node-core';
import { archiveBadInputs } from './archive-bad-inputs';
import { profileBadInputs } from './profile-bad-inputs';
import { localModelBadInputs } from './local-model-bad-inputs';
import { updateBadInputs } from './update-bad-inputs';

const huge = 'x'.repeat(250_000);
const unknownId = 'does-not-exist';

/**
 * For every channel, inputs that must be refused with a typed error. `expected` is the code.
 * Wrong types, missing fields, extra fields, oversized strings and unknown ids.
 */
const badInputs: Record<ChannelName, Array<{ input: unknown; code: string }>> = {
  'app:info': [
    { input: { extra: 1 }, code: 'invalid_input' },
    { input: 'text', code: 'invalid_input' },
  ],
  'app:restoreBackup': [
    { input: { backupPath: '/etc/passwd' }, code: 'invalid_input' },
    { input: 'text', code: 'invalid_input' },
    // The database is open: nothing is put back.
    { input: {}, code: 'invalid_state' },
  ],
  'session:list': [
    { input: null, code: 'invalid_input' },
    { input: { limit: 5 }, code: 'invalid_input' },
  ],
  'session:create': [
    { input: { title: 42 }, code: 'invalid_input' },
    { input: { title: huge }, code: 'invalid_input' },
    { input: { title: '   ' }, code: 'invalid_input' },
    { input: { workspacePath: 'relative/path' }, code: 'invalid_input' },
    { input: { workspacePath: '/no/such/folder/anywhere' }, code: 'invalid_input' },
    { input: { workspacePath: '/tmp/a\0b' }, code: 'invalid_input' },
    { input: { id: 'chosen' }, code: 'invalid_input' },
  ],
  'session:rename': [
    { input: { sessionId: unknownId, title: 'x' }, code: 'not_found' },
    { input: { sessionId: 'SESSION', title: '' }, code: 'invalid_input' },
    { input: { sessionId: '../../etc', title: 'x' }, code: 'invalid_input' },
    { input: { title: 'x' }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', title: huge }, code: 'invalid_input' },
  ],
  'session:delete': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 7 }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', force: true }, code: 'invalid_input' },
  ],
  'session:open': [
    { input: { sessionId: 'SESSION', recentTurns: 0 }, code: 'invalid_input' },
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: {}, code: 'invalid_input' },
    { input: { sessionId: 'x'.repeat(65) }, code: 'invalid_input' },
  ],
  'session:resume': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION' }, code: 'invalid_state' },
    { input: { sessionId: 'SESSION', turnId: 'x' }, code: 'invalid_input' },
  ],
  'session:discard': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION' }, code: 'invalid_state' },
  ],
  'session:tree': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 5 }, code: 'invalid_input' },
  ],
  'session:export': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION', path: '/tmp/x' }, code: 'invalid_input' },
  ],
  'session:import': [
    { input: { document: 'not json' }, code: 'invalid_input' },
    { input: { document: '{"format":"something-else"}' }, code: 'invalid_input' },
    { input: { document: '{"format":"agent-workbench/session","version":99}' }, code: 'store_newer_version' },
    { input: { document: '{"format":"agent-workbench/session","version":1,"session":{}}' }, code: 'invalid_input' },
    { input: { document: 5 }, code: 'invalid_input' },
  ],
  'message:edit': [
    { input: { sessionId: 'SESSION', messageId: unknownId, text: 'x' }, code: 'not_found' },
    { input: { sessionId: unknownId, messageId: unknownId, text: 'x' }, code: 'not_found' },
    { input: { sessionId: 'SESSION', messageId: unknownId, text: '  ' }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', messageId: unknownId, text: huge }, code: 'invalid_input' },
  ],
  'session:compact': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION', instructions: 'x'.repeat(2_001) }, code: 'invalid_input' },
  ],
  'turn:retry': [
    { input: { sessionId: 'SESSION', turnId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION' }, code: 'invalid_input' },
  ],
  'branch:list': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION', all: true }, code: 'invalid_input' },
  ],
  'branch:switch': [
    { input: { sessionId: 'SESSION', branchId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION', branchId: '../x' }, code: 'invalid_input' },
  ],
  'checkpoint:preview': [
    { input: { sessionId: 'SESSION', checkpointId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION' }, code: 'invalid_input' },
  ],
  'checkpoint:restore': [
    { input: { sessionId: 'SESSION', checkpointId: unknownId, mode: 'both' }, code: 'not_found' },
    { input: { sessionId: 'SESSION', checkpointId: unknownId, mode: 'everything' }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', checkpointId: unknownId, mode: 'files', overwriteConflicts: 'yes' }, code: 'invalid_input' },
  ],
  'checkpoint:undoRestore': [
    { input: { sessionId: 'SESSION', restoreId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION', restoreId: '' }, code: 'invalid_input' },
  ],
  'changes:list': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION', turnId: '' }, code: 'invalid_input' },
  ],
  'changes:diff': [
    { input: { sessionId: 'SESSION', path: 'app.ts' }, code: 'invalid_state' },
    { input: { sessionId: 'SESSION', path: '' }, code: 'invalid_input' },
  ],
  'changes:revert': [
    { input: { sessionId: 'SESSION', path: 'app.ts' }, code: 'invalid_state' },
    { input: { sessionId: 'SESSION', path: 'app.ts', hunks: [] }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', path: 'app.ts', hunks: [-1] }, code: 'invalid_input' },
  ],
  'session:setModel': [
    { input: { sessionId: 'SESSION', model: { providerId: unknownId, model: 'm' } }, code: 'not_found' },
    { input: { sessionId: unknownId, model: { providerId: 'PROVIDER', model: 'm' } }, code: 'not_found' },
    { input: { sessionId: 'SESSION', model: { providerId: 'PROVIDER', model: 'x'.repeat(5_000) } }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', model: { providerId: 'PROVIDER', model: 'm', extra: 1 } }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', model: 'm' }, code: 'invalid_input' },
  ],
  'session:setAutonomy': [
    { input: { sessionId: 'SESSION', autonomy: 'L9' }, code: 'invalid_input' },
    { input: { sessionId: unknownId, autonomy: 'L2' }, code: 'not_found' },
    { input: { sessionId: 'SESSION' }, code: 'invalid_input' },
  ],
  'session:stats': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION', detail: true }, code: 'invalid_input' },
  ],
  'session:subAgents': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION', all: true }, code: 'invalid_input' },
  ],
  'workspace:set': [
    { input: { sessionId: unknownId, path: '/tmp' }, code: 'not_found' },
    { input: { sessionId: 'SESSION', path: 'FILE' }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', path: '/definitely/missing' }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', path: huge }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', path: 12 }, code: 'invalid_input' },
  ],
  'workspace:list': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION' }, code: 'no_workspace' },
    { input: { sessionId: 'SESSION', path: 5 }, code: 'invalid_input' },
  ],
  'workspace:pick': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION', path: '/tmp' }, code: 'invalid_input' },
  ],
  'workspace:recent': [{ input: { limit: 3 }, code: 'invalid_input' }],
  'workspace:find': [
    { input: { sessionId: unknownId, query: 'a' }, code: 'not_found' },
    { input: { sessionId: 'SESSION', query: 'a' }, code: 'no_workspace' },
    { input: { sessionId: 'SESSION', query: 'a', limit: 10_000 }, code: 'invalid_input' },
  ],
  'workspace:read': [
    { input: { sessionId: unknownId, path: 'a.txt' }, code: 'not_found' },
    { input: { sessionId: 'SESSION', path: 'a.txt' }, code: 'no_workspace' },
    { input: { sessionId: 'SESSION', path: '' }, code: 'invalid_input' },
  ],
  'commands:list': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: 'SESSION', folder: '/etc' }, code: 'invalid_input' },
    { input: {}, code: 'invalid_input' },
  ],
  'run:send': [
    { input: { sessionId: 'SESSION', text: '' }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', text: '   \n ' }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', text: huge }, code: 'invalid_input' },
    { input: { sessionId: unknownId, text: 'hi' }, code: 'not_found' },
    { input: { sessionId: 'SESSION', text: ['hi'] }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION', text: 'hi', attachments: [{ kind: 'workspace', path: 'a.txt' }] }, code: 'no_workspace' },
    {
      input: { sessionId: 'SESSION', text: 'hi', attachments: [{ kind: 'workspace', path: 'a', range: { start: 5, end: 2 } }] },
      code: 'invalid_input',
    },
    {
      input: {
        sessionId: 'SESSION',
        text: 'hi',
        attachments: [{ kind: 'dropped_image', name: 'a.png', mediaType: 'image/png', data: '!!' }],
      },
      code: 'invalid_input',
    },
    { input: { sessionId: 'SESSION', text: 'hi', model: 'x' }, code: 'invalid_input' },
    { input: { sessionId: 'SESSION_NO_MODEL', text: 'hi' }, code: 'no_model' },
  ],
  'run:cancel': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: null }, code: 'invalid_input' },
  ],
  'run:clearQueue': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: {}, code: 'invalid_input' },
  ],
  'approval:answer': [
    { input: { approvalId: unknownId, decision: 'allow_once' }, code: 'not_found' },
    { input: { approvalId: unknownId, decision: 'allow_forever' }, code: 'invalid_input' },
    { input: { approvalId: unknownId, decision: 'deny', reason: huge }, code: 'invalid_input' },
    { input: { approvalId: unknownId }, code: 'invalid_input' },
    { input: { approvalId: unknownId, decision: 'allow_once', trustEscalation: true }, code: 'invalid_input' },
    { input: { approvalId: unknownId, decision: 'allow_5m', trustEscalation: false }, code: 'invalid_input' },
  ],
  'budget:answer': [
    { input: { gateId: unknownId, answer: 'continue' }, code: 'not_found' },
    { input: { gateId: unknownId, answer: 'more' }, code: 'invalid_input' },
    { input: { gateId: unknownId }, code: 'invalid_input' },
    { input: { gateId: unknownId, answer: 'continue', step: 5 }, code: 'invalid_input' },
    { input: { gateId: 'x'.repeat(65), answer: 'stop' }, code: 'invalid_input' },
  ],
  'review:answer': [
    { input: { reviewId: unknownId, decision: 'release' }, code: 'not_found' },
    { input: { reviewId: unknownId, decision: 'allow_once' }, code: 'invalid_input' },
    { input: { reviewId: unknownId }, code: 'invalid_input' },
    { input: { reviewId: unknownId, decision: 'withhold', reason: 'x' }, code: 'invalid_input' },
    { input: { reviewId: 'x'.repeat(65), decision: 'withhold' }, code: 'invalid_input' },
  ],
  'plan:answer': [
    { input: { planId: unknownId, answer: 'approve' }, code: 'not_found' },
    { input: { planId: unknownId, answer: 'maybe' }, code: 'invalid_input' },
    { input: { planId: unknownId, answer: 'refine', text: huge }, code: 'invalid_input' },
  ],
  'terminal:open': [
    { input: { sessionId: unknownId, cols: 80, rows: 24 }, code: 'not_found' },
    { input: { sessionId: unknownId, cols: 0, rows: 24 }, code: 'invalid_input' },
    { input: { sessionId: unknownId, cols: 80, rows: 24, shell: '/bin/zsh' }, code: 'invalid_input' },
  ],
  'terminal:input': [
    { input: { terminalId: unknownId, data: 'ls\n' }, code: 'not_found' },
    { input: { terminalId: unknownId, data: 'x'.repeat(64 * 1024 + 1) }, code: 'invalid_input' },
  ],
  'terminal:resize': [
    { input: { terminalId: unknownId, cols: 80, rows: 24 }, code: 'not_found' },
    { input: { terminalId: unknownId, cols: 80, rows: 10_000 }, code: 'invalid_input' },
  ],
  'terminal:close': [{ input: { terminalId: '' }, code: 'invalid_input' }],
  'folder-trust:get': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: '' }, code: 'invalid_input' },
  ],
  'folder-trust:decide': [
    { input: { sessionId: unknownId, decision: 'trust' }, code: 'not_found' },
    { input: { sessionId: 'x', decision: 'always' }, code: 'invalid_input' },
  ],
  'folder-trust:release': [
    { input: { sessionId: unknownId, path: 'AGENTS.md', sha256: 'a'.repeat(64) }, code: 'not_found' },
    { input: { sessionId: 'x', path: 'AGENTS.md' }, code: 'invalid_input' },
    { input: { sessionId: 'x', path: 'AGENTS.md', sha256: 'not-a-digest' }, code: 'invalid_input' },
    { input: { sessionId: 'x', path: '', sha256: 'a'.repeat(64) }, code: 'invalid_input' },
  ],
  'folder-trust:list': [{ input: { extra: 1 }, code: 'invalid_input' }],
  'folder-trust:set': [
    { input: { path: '/never/decided', scope: 'folder', trusted: true }, code: 'not_found' },
    { input: { path: '/x', scope: 'everything', trusted: true }, code: 'invalid_input' },
    { input: { path: huge, scope: 'folder', trusted: true }, code: 'invalid_input' },
  ],
  'folder-trust:forget': [
    { input: { path: '/never/decided', scope: 'tree' }, code: 'invalid_input' },
    { input: { path: '', scope: 'tree' }, code: 'invalid_input' },
  ],
  'folder-trust:pick': [{ input: { path: '/etc' }, code: 'invalid_input' }],
  'git:view': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: unknownId, path: '/' }, code: 'invalid_input' },
  ],
  'git:draft': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: { sessionId: unknownId, turnId: 5 }, code: 'invalid_input' },
  ],
  'git:worktreeSession': [
    { input: { workspacePath: '' }, code: 'invalid_input' },
    { input: { workspacePath: 'a\u0000b' }, code: 'invalid_input' },
    { input: {}, code: 'invalid_input' },
  ],
  'git:worktree': [{ input: { sessionId: unknownId }, code: 'not_found' }],
  'git:bringBackPlan': [{ input: { sessionId: unknownId }, code: 'not_found' }],
  'git:bringBack': [
    { input: { sessionId: unknownId, withMarkers: false }, code: 'not_found' },
    { input: { sessionId: unknownId }, code: 'invalid_input' },
  ],
  'git:removeWorktree': [
    { input: { sessionId: unknownId, deleteBranch: true }, code: 'not_found' },
    { input: { sessionId: unknownId, deleteBranch: 'yes' }, code: 'invalid_input' },
  ],
  'git:commit': [
    { input: { sessionId: unknownId, message: 'x' }, code: 'not_found' },
    { input: { sessionId: unknownId, message: '   ' }, code: 'invalid_input' },
    { input: { sessionId: unknownId, message: 'a\u0000b' }, code: 'invalid_input' },
    { input: { sessionId: unknownId }, code: 'invalid_input' },
  ],
  'trust:list': [{ input: { all: true }, code: 'invalid_input' }],
  'trust:revoke': [
    { input: { grantId: unknownId }, code: 'not_found' },
    { input: { grantId: 5 }, code: 'invalid_input' },
  ],
  'tool:list': [{ input: { server: 'x' }, code: 'invalid_input' }],
  'tool:output': [
    { input: { toolCallId: unknownId }, code: 'not_found' },
    { input: { toolCallId: '' }, code: 'invalid_input' },
  ],
  'provider:list': [{ input: { all: true }, code: 'invalid_input' }],
  'provider:save': [
    { input: { kind: 'openai-compatible', name: 'x', baseUrl: 'ftp://host/v1' }, code: 'invalid_input' },
    { input: { kind: 'openai-compatible', name: 'x', baseUrl: 'not a url' }, code: 'invalid_input' },
    { input: { kind: 'gemini', name: 'x', baseUrl: 'http://127.0.0.1:1/v1' }, code: 'invalid_input' },
    { input: { kind: 'openai-compatible', name: '', baseUrl: 'http://127.0.0.1:1/v1' }, code: 'invalid_input' },
    { input: { kind: 'openai-compatible', name: 'x', baseUrl: 'http://127.0.0.1:1/v1', apiKey: huge }, code: 'invalid_input' },
    { input: { id: unknownId, kind: 'openai-compatible', name: 'x', baseUrl: 'http://127.0.0.1:1/v1' }, code: 'not_found' },
    { input: { kind: 'openai-compatible', name: 'x', baseUrl: 'http://127.0.0.1:1/v1', secret: 'y' }, code: 'invalid_input' },
    // "This computer" is made by adding a model, never saved at an address.
    { input: { kind: 'local', name: 'x', baseUrl: 'http://127.0.0.1:1/v1' }, code: 'invalid_input' },
  ],
  'provider:remove': [
    { input: { providerId: unknownId }, code: 'not_found' },
    { input: {}, code: 'invalid_input' },
  ],
  'provider:discover': [
    { input: { ports: [1] }, code: 'invalid_input' },
    { input: { timeoutMs: 5 }, code: 'invalid_input' },
    { input: { timeoutMs: 600_000 }, code: 'invalid_input' },
  ],
  'provider:test': [
    { input: {}, code: 'invalid_input' },
    { input: { kind: 'openai-compatible' }, code: 'invalid_input' },
    { input: { providerId: unknownId }, code: 'not_found' },
    { input: { kind: 'openai-compatible', baseUrl: 'javascript:alert(1)' }, code: 'invalid_input' },
  ],
  'provider:models': [
    { input: { providerId: unknownId }, code: 'not_found' },
    { input: { providerId: '' }, code: 'invalid_input' },
  ],
  'provider:window': [
    { input: { providerId: unknownId, model: 'm' }, code: 'not_found' },
    { input: { providerId: 'p', model: '' }, code: 'invalid_input' },
  ],
  'model:check': [
    { input: { providerId: unknownId, model: 'm' }, code: 'not_found' },
    { input: { providerId: 'p', model: 'm'.repeat(5000) }, code: 'invalid_input' },
    { input: { providerId: 'p' }, code: 'invalid_input' },
  ],
  'model:checks': [{ input: { providerId: 7 }, code: 'invalid_input' }],
  'model:configure': [
    { input: { providerId: unknownId, model: 'm', toolProtocol: 'text' }, code: 'not_found' },
    { input: { providerId: 'p', model: 'm', toolProtocol: 'smoke signals' }, code: 'invalid_input' },
    { input: { providerId: 'p', model: 'm', thinkingBudget: 10 }, code: 'invalid_input' },
  ],
  'trash:list': [{ input: { all: 1 }, code: 'invalid_input' }],
  'trash:restore': [
    { input: { id: unknownId }, code: 'not_found' },
    { input: { id: '../../x' }, code: 'invalid_input' },
  ],
  'mcp:list': [{ input: { name: 'x' }, code: 'invalid_input' }],
  'mcp:configure': [
    { input: { mcpServers: { 'bad name!': { command: 'x' } } }, code: 'invalid_input' },
    { input: { mcpServers: { x: { command: 'x', url: 'http://a' } } }, code: 'invalid_input' },
    { input: { mcpServers: { x: { url: 'ftp://a' } } }, code: 'invalid_input' },
    { input: { servers: {} }, code: 'invalid_input' },
  ],
  'mcp:setEnabled': [
    { input: { name: 'missing', enabled: true }, code: 'not_found' },
    { input: { name: 'x', enabled: 'yes' }, code: 'invalid_input' },
  ],
  'settings:get': [{ input: { key: 'theme' }, code: 'invalid_input' }],
  'check:suggest': [
    { input: { sessionId: unknownId }, code: 'not_found' },
    { input: {}, code: 'invalid_input' },
  ],
  'check:set': [
    { input: { sessionId: unknownId, command: 'npm test', afterTurn: true }, code: 'not_found' },
    { input: { sessionId: unknownId, command: '   ', afterTurn: true }, code: 'invalid_input' },
    { input: { sessionId: unknownId, command: 'npm test' }, code: 'invalid_input' },
  ],
  'diagnostics:allow': [
    { input: { sessionId: unknownId, language: 'typescript', allow: true }, code: 'not_found' },
    { input: { sessionId: unknownId, language: 'cobol', allow: true }, code: 'invalid_input' },
    { input: { sessionId: unknownId, language: 'python' }, code: 'invalid_input' },
  ],
  'settings:update': [
    { input: { codeMapShare: 0.5 }, code: 'invalid_input' },
    { input: { diagnostics: { languages: ['typescript'], timeLimitMs: 10, allowed: [] } }, code: 'invalid_input' },
    { input: { diagnostics: { languages: ['klingon'], timeLimitMs: 10_000, allowed: [] } }, code: 'invalid_input' },
    { input: { theme: 'neon' }, code: 'invalid_input' },
    { input: { gateTimeout: { seconds: { L0: 1, L1: null, L2: null, L3: null }, action: 'deny' } }, code: 'invalid_input' },
    { input: { gateTimeout: { seconds: { L0: null, L1: 60, L2: null, L3: null }, action: 'later' } }, code: 'invalid_input' },
    { input: { gateTimeout: { seconds: { L1: 60 }, action: 'deny' } }, code: 'invalid_input' },
    { input: { gateTimeout: { seconds: { L0: null, L1: 60, L2: null, L3: null, L4: 5 }, action: 'deny' } }, code: 'invalid_input' },
    { input: { defaultModel: { providerId: unknownId, model: 'm' } }, code: 'not_found' },
    { input: { providers: [] }, code: 'invalid_input' },
    { input: { planThreshold: 1 }, code: 'invalid_input' },
    { input: { subAgentConcurrency: 0 }, code: 'invalid_input' },
    { input: { subAgentDepth: 5 }, code: 'invalid_input' },
    { input: { maxIterations: 0 }, code: 'invalid_input' },
    { input: { defaultAutonomy: 'L4' }, code: 'invalid_input' },
    { input: { commandPriority: 'idle' }, code: 'invalid_input' },
    { input: { commandLimits: { memoryMb: 64, processes: 1024, cpuSeconds: 3600, outputMb: 100 } }, code: 'invalid_input' },
    { input: { commandLimits: { memoryMb: 4096 } }, code: 'invalid_input' },
    { input: { maxIterations: null, budgets: { toolCalls: 0 } }, code: 'invalid_input' },
    { input: { budgets: { wallMinutes: 0 } }, code: 'invalid_input' },
    { input: { budgets: { sessionTokens: 0 } }, code: 'invalid_input' },
    { input: { budgets: { sessionCostUsd: 0 } }, code: 'invalid_input' },
    { input: { budgets: { sessionCostUsd: -1 } }, code: 'invalid_input' },
    { input: { budgets: { toolCalls: 2.5 } }, code: 'invalid_input' },
    { input: { budgets: { toolCalls: '10' } }, code: 'invalid_input' },
    { input: { budgets: { modelCalls: 10 } }, code: 'invalid_input' },
    { input: { budgets: null }, code: 'invalid_input' },
    { input: { heldToolGroups: ['everything'] }, code: 'invalid_input' },
    { input: { heldToolGroups: 'mcp:*' }, code: 'invalid_input' },
    { input: { heldToolGroups: Array.from({ length: 101 }, (_, index) => `mcp:s${index}`) }, code: 'invalid_input' },
    { input: { archiveRetentionDays: 14 }, code: 'invalid_input' },
    { input: { defaultProfileId: 'does-not-exist' }, code: 'not_found' },
    { input: { defaultProfileId: '' }, code: 'invalid_input' },
    { input: { archiveRetentionDays: 'never' }, code: 'invalid_input' },
  ],
  'memory:list': [
    { input: {}, code: 'invalid_input' },
    { input: { workspacePath: null, search: huge }, code: 'invalid_input' },
    { input: { workspacePath: 7 }, code: 'invalid_input' },
  ],
  'memory:add': [
    { input: { scope: 'global', workspacePath: null, text: '' }, code: 'invalid_input' },
    { input: { scope: 'global', workspacePath: null, text: '   ' }, code: 'invalid_input' },
    { input: { scope: 'global', workspacePath: null, text: huge }, code: 'invalid_input' },
    { input: { scope: 'everywhere', workspacePath: null, text: 'x' }, code: 'invalid_input' },
    { input: { scope: 'workspace', workspacePath: null, text: 'a fact' }, code: 'invalid_input' },
    { input: { scope: 'global', workspacePath: null, text: 'x', source: 'agent' }, code: 'invalid_input' },
  ],
  'memory:update': [
    { input: { id: unknownId, text: 'x' }, code: 'not_found' },
    { input: { id: 'SESSION', text: '' }, code: 'invalid_input' },
    { input: { id: 'SESSION', text: huge }, code: 'invalid_input' },
  ],
  'memory:delete': [
    { input: { id: unknownId }, code: 'not_found' },
    { input: { id: '../x' }, code: 'invalid_input' },
  ],
  'prompt:get': [
    { input: { promptId: unknownId }, code: 'not_found' },
    { input: { promptId: '' }, code: 'invalid_input' },
    { input: {}, code: 'invalid_input' },
  ],
  ...archiveBadInputs,
  ...profileBadInputs,
  ...localModelBadInputs,
  ...updateBadInputs,
};

describe('every IPC channel refuses bad input with a typed error and no side effect', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let transport: LoopbackTransport;
  let core: WorkbenchCore;
  let ids: Record<string, string>;

  beforeAll(async () => {
    folder = temporaryFolder();
    writeFileSync(join(folder.path, 'a-file.txt'), 'not a folder');
    transport = new LoopbackTransport();
    core = (await createNodeCore({ dataDir: folder.path, transport, folderTrust: 'ask' })).core;
    const provider = await transport.invoke('provider:save', {
      kind: 'openai-compatible',
      name: 'Local',
      baseUrl: 'http://127.0.0.1:1/v1',
    });
    const session = await transport.invoke('session:create', { title: 'Target' });
    const noModel = await transport.invoke('session:create', { title: 'No model' });
    if (!provider.ok || !session.ok || !noModel.ok) throw new Error('setup failed');
    const providerId = (provider.value as { id: string }).id;
    const sessionId = (session.value as { id: string }).id;
    await transport.invoke('session:setModel', { sessionId, model: { providerId, model: 'm' } });
    ids = {
      SESSION: sessionId,
      SESSION_NO_MODEL: (noModel.value as { id: string }).id,
      PROVIDER: providerId,
      FILE: join(folder.path, 'a-file.txt'),
    };
  });
  afterAll(async () => {
    await core.close();
    folder.remove();
  });

  const substitute = (value: unknown): unknown => {
    if (typeof value === 'string') return ids[value] ?? value;
    if (Array.isArray(value)) return value.map(substitute);
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, substitute(inner)]));
    return value;
  };

  const snapshot = (): string => {
    const db = new BetterSqlite3(join(folder.path, 'workbench.sqlite'), { readonly: true });
    try {
      const sessions = db.prepare('SELECT * FROM sessions ORDER BY id').all();
      const journal = db.prepare('SELECT * FROM journal ORDER BY session_id, seq').all();
      const branches = db.prepare('SELECT * FROM branches ORDER BY session_id, id').all();
      const checkpoints = db.prepare('SELECT thread_id, id FROM checkpoints ORDER BY thread_id, id').all();
      const files = db.prepare('SELECT id FROM file_snapshots ORDER BY id').all();
      const memories = db.prepare('SELECT * FROM memories ORDER BY n').all();
      const profiles = db.prepare('SELECT * FROM profiles ORDER BY id, version').all();
      const sessionProfiles = db.prepare('SELECT * FROM session_profiles ORDER BY session_id').all();
      return JSON.stringify({
        sessions,
        journal,
        branches,
        checkpoints,
        files,
        memories,
        profiles,
        sessionProfiles,
        settings: readFileSync(join(folder.path, 'settings.json'), 'utf8'),
      });
    } finally {
      db.close();
    }
  };

  it('covers every channel of the contract', () => {
    expect(Object.keys(badInputs).sort()).toEqual([...channelNames].sort());
    for (const name of channelNames) expect(badInputs[name].length, name).toBeGreaterThan(0);
  });

  for (const channel of channelNames) {
    it(`${channel} refuses each bad input and changes nothing`, async () => {
      for (const { input, code } of badInputs[channel]) {
        const before = snapshot();
        const result = await transport.invoke(channel, substitute(input));
        expect(result, `${channel} ${JSON.stringify(input).slice(0, 80)}`).toMatchObject({ ok: false, error: { code } });
        if (!result.ok) expect(result.error.message.length).toBeGreaterThan(5);
        expect(snapshot(), `${channel} changed state for ${JSON.stringify(input).slice(0, 80)}`).toBe(before);
      }
    });
  }

  it('says what was wrong with a typed field in words, naming the field as the form does and no channel', async () => {
    const address = await transport.invoke('provider:test', { kind: 'openai-compatible', baseUrl: 'localhost:11434' });
    expect(address).toMatchObject({
      ok: false,
      error: {
        message: 'The address must start with http:// or https://, such as http://127.0.0.1:11434.',
        // What the schema said, and where, is kept apart from the words.
        detail: 'baseUrl: it must start with http:// or https://, such as http://127.0.0.1:11434',
      },
    });
    const name = await transport.invoke('provider:save', { kind: 'ollama', name: '   ', baseUrl: 'http://127.0.0.1:11434' });
    expect(name).toMatchObject({ ok: false, error: { message: 'The name is empty.' } });
    const long = await transport.invoke('session:create', { title: 'x'.repeat(5_000) });
    expect(long.ok === false && long.error.message).toMatch(/^The title is too long \(at most \d+ characters\)\.$/);
    // A field the form does not name is not named by its path either: that is the detail.
    const unnamed = await transport.invoke('settings:update', { planThreshold: 'many' });
    expect(unnamed).toMatchObject({
      ok: false,
      error: {
        message: 'A value of the request is missing or of the wrong kind.',
        detail: expect.stringMatching(/^planThreshold: /) as unknown,
      },
    });
    // A limit the schema words itself is said in its own words.
    const empty = await transport.invoke('memory:add', { scope: 'global', workspacePath: null, text: '  ' });
    expect(empty).toMatchObject({ ok: false, error: { code: 'invalid_input', message: 'A memory cannot be empty.' } });
  });

  it('refuses a budget of 0 with a message naming the budget, and keeps every setting as it was', async () => {
    const before = await transport.invoke('settings:get', {});
    const zero = await transport.invoke('settings:update', { planThreshold: 7, budgets: { toolCalls: 0 } });
    expect(zero).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringMatching(/^The tool-call budget cannot be 0: .*Turn it off instead/) },
    });
    const model = await transport.invoke('settings:update', { maxIterations: 0 });
    expect(model.ok === false && model.error.message).toMatch(/^The model-call budget cannot be 0/);
    expect(await transport.invoke('settings:get', {})).toEqual(before);
  });

  it('changes one budget at a time, keeping the others, and turns one off with null', async () => {
    await transport.invoke('settings:update', { budgets: { toolCalls: 40, sessionCostUsd: 2.5 } });
    const saved = await transport.invoke('settings:update', { maxIterations: null, budgets: { toolCalls: null } });
    expect(saved).toMatchObject({ ok: true, value: { maxIterations: null, budgets: { toolCalls: null, sessionCostUsd: 2.5 } } });
    await transport.invoke('settings:update', { maxIterations: 25, budgets: { sessionCostUsd: null } });
  });

  it('refuses a request from a sender that is not the app’s main frame', async () => {
    const before = snapshot();
    const result = await transport.invoke('session:create', { title: 'Sneaky' }, { url: 'https://evil.example/', isMainFrame: false });
    expect(result).toMatchObject({ ok: false, error: { code: 'forbidden_sender' } });
    expect(snapshot()).toBe(before);
  });

  it('answers an unknown channel with a typed error', async () => {
    expect(await transport.invoke('session:format-disk', {})).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
  });
});
