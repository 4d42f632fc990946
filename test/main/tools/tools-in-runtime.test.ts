import { useScriptedCore } from '../scripted-core';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../../src/shared/events';
import { builtinTools } from '../../../src/main/tools/builtin-tools';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import { temporaryFolder } from '../../helpers';
import { bash, needs } from '../../platform';
import type { LoopbackTransport } from '../../host/loopback-transport';
import { createCoreWithScriptedModel } from '../../host/node-core';
import { ScriptedModelServer, textTurn } from '../../scripted-model-server';
import { toolCall } from '../agent/harness';
import { BashParser } from '../../../src/main/shell/bash-parser';

const shell = await BashParser.load();

describe('the file tools in a turn', () => {
  let folder: { path: string };
  let server: ScriptedModelServer;
  let transport: LoopbackTransport;
  let core: WorkbenchCore;
  let sessionId: string;
  let n = 0;
  useScriptedCore(
    {
      prepare: (path) => writeFileSync(join(path, 'app.ts'), 'const greeting = "hi";\n'),
      dataDir: (path) => join(path, '.data'),
      tools: (dataDir) => builtinTools({ shell, dataDir, newId: () => `trash${(n += 1)}`, now: () => Date.now() }),
      session: 'workspace',
    },
    (started) => ({ folder, server, transport, core, sessionId } = started),
  );

  const journal = async (): Promise<JournalEntry[]> => {
    const opened = await transport.invoke('session:open', { sessionId });
    return opened.ok ? (opened.value as { entries: JournalEntry[] }).entries : [];
  };

  it('reads at once, and shows an edit as a diff at the gate before it changes the file', async () => {
    server.enqueue(
      { steps: [toolCall('read_file', { path: 'app.ts' }, 'r1')] },
      { steps: [toolCall('edit_file', { path: 'app.ts', oldText: '"hi"', newText: '"hello"' }, 'e1')] },
      textTurn('Changed the greeting.'),
    );
    await transport.invoke('run:send', { sessionId, text: 'Make the greeting longer' });
    let approval: Extract<JournalEntry['event'], { type: 'approval_requested' }> | undefined;
    while (!approval) {
      approval = (await journal())
        .map((entry) => entry.event)
        .find((event): event is Extract<JournalEntry['event'], { type: 'approval_requested' }> => event.type === 'approval_requested');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(approval.tool).toBe('edit_file');
    expect(approval.preview).toContain('-const greeting = "hi";');
    expect(approval.preview).toContain('+const greeting = "hello";');
    expect(readFileSync(join(folder.path, 'app.ts'), 'utf8')).toBe('const greeting = "hi";\n');
    await transport.invoke('approval:answer', { approvalId: approval.approvalId, decision: 'allow_once' });
    await core.runtime?.whenIdle(sessionId);
    expect(readFileSync(join(folder.path, 'app.ts'), 'utf8')).toBe('const greeting = "hello";\n');
    const readResult = server.requests[1]?.body['messages'] as Array<{ role: string; content: string }>;
    expect(readResult.find((message) => message.role === 'tool')?.content).toBe('const greeting = "hi";\n');
  });

  it('a grant for a folder, chosen at the gate, covers the tool anywhere in that folder and nowhere else', async () => {
    const approvals = async (): Promise<Array<Extract<JournalEntry['event'], { type: 'approval_requested' }>>> =>
      (await journal())
        .map((entry) => entry.event)
        .filter(
          (event): event is Extract<JournalEntry['event'], { type: 'approval_requested' }> =>
            event.type === 'approval_requested' && event.tool === 'write_file',
        );
    const waitForApprovals = async (count: number) => {
      let found = await approvals();
      while (found.length < count) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        found = await approvals();
      }
      return found;
    };
    server.enqueue(
      { steps: [toolCall('write_file', { path: 'src/ui/button.ts', content: 'export {};\n' }, 'w1')] },
      { steps: [toolCall('write_file', { path: './src/model/total.ts', content: 'export {};\n' }, 'w2')] },
      { steps: [toolCall('write_file', { path: 'docs/notes.md', content: '# Notes\n' }, 'w3')] },
      textTurn('Wrote three files.'),
    );
    await transport.invoke('run:send', { sessionId, text: 'Write the files' });
    const [first] = await waitForApprovals(1);
    // The gate offers the folders holding the path, innermost first, and the whole workspace.
    expect(first?.folders).toEqual(['src/ui/', 'src/', '']);
    // A folder it did not offer, or one with an answer that makes no grant, is refused at the door.
    const wrong = await transport.invoke('approval:answer', {
      approvalId: first?.approvalId ?? '',
      decision: 'allow_once',
      folder: 'src/',
    });
    expect(wrong.ok).toBe(false);
    await transport.invoke('approval:answer', { approvalId: first?.approvalId ?? '', decision: 'allow_30m', folder: 'src/' });
    // The second write is in src/ (written roundabout): it runs on the grant. The third, in docs/, asks.
    const asked = await waitForApprovals(2);
    expect(asked.map((approval) => approval.summary.split(' ')[0])).toEqual(['src/ui/button.ts', 'docs/notes.md']);
    expect(readFileSync(join(folder.path, 'src/model/total.ts'), 'utf8')).toBe('export {};\n');
    const grants = await transport.invoke('trust:list', {});
    expect(grants.ok && grants.value).toEqual([
      expect.objectContaining({ tool: 'write_file', pattern: { kind: 'path_prefix', folder: 'src/' }, description: 'write_file in src/' }),
    ]);
    await transport.invoke('approval:answer', { approvalId: asked[1]?.approvalId ?? '', decision: 'deny' });
    await core.runtime?.whenIdle(sessionId);
  });

  /** Waits for the gate of `tool` that has no answer yet, and answers it. */
  const answerGate = async (
    tool: string,
    decision: 'allow_once' | 'deny',
  ): Promise<Extract<JournalEntry['event'], { type: 'approval_requested' }>> => {
    for (;;) {
      const events = (await journal()).map((entry) => entry.event);
      const open = events.find(
        (event): event is Extract<JournalEntry['event'], { type: 'approval_requested' }> =>
          event.type === 'approval_requested' &&
          event.tool === tool &&
          !events.some((answer) => answer.type === 'approval_answered' && answer.approvalId === event.approvalId),
      );
      if (open) {
        await transport.invoke('approval:answer', { approvalId: open.approvalId, decision });
        return open;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  /** What the model has been given for the tool calls of the session, in order, as its last request carried them. */
  const toolResults = (): string[] =>
    (server.requests.at(-1)?.body['messages'] as Array<{ role: string; content: string }>)
      .filter((message) => message.role === 'tool')
      .map((message) => message.content);

  /** The gates opened since the journal had `from` entries. */
  const gatesSince = async (from: number): Promise<JournalEntry[]> =>
    (await journal()).slice(from).filter((entry) => entry.event.type === 'approval_requested');

  it('runs the person’s version of a write changed at its gate, tells the model so, and refuses a version it cannot run', async () => {
    // The newest gate of a tool, once it is open.
    const requested = async (tool: string, after: number) => {
      for (;;) {
        const found = (await journal())
          .filter((entry) => entry.seq > after)
          .map((entry) => entry.event)
          .findLast(
            (event): event is Extract<JournalEntry['event'], { type: 'approval_requested' }> =>
              event.type === 'approval_requested' && event.tool === tool,
          );
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    const lastSeq = async (): Promise<number> => (await journal()).at(-1)?.seq ?? 0;
    server.reset();
    server.enqueue(
      { steps: [toolCall('write_file', { path: 'config.json', content: '{ "port": 80 }\n' }, 'gate-w1')] },
      textTurn('Wrote the config.'),
    );
    const before = await lastSeq();
    await transport.invoke('run:send', { sessionId, text: 'Write a config' });
    const gate = await requested('write_file', before);
    expect(gate.editableField).toBe('content');
    // A version with a denial, or one the tool cannot take, is refused and the gate stays open.
    const denied = await transport.invoke('approval:answer', { approvalId: gate.approvalId, decision: 'deny', content: 'x' });
    expect(denied).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    const huge = await transport.invoke('approval:answer', {
      approvalId: gate.approvalId,
      decision: 'allow_once',
      content: 'x'.repeat(6 * 1024 * 1024),
    });
    expect(huge).toMatchObject({
      ok: false,
      error: { code: 'invalid_input', message: expect.stringMatching(/^Your version cannot be used: /) },
    });
    const mine = '{ "port": 8080 }\n';
    expect(await transport.invoke('approval:answer', { approvalId: gate.approvalId, decision: 'allow_once', content: mine })).toMatchObject(
      { ok: true },
    );
    await core.runtime?.whenIdle(sessionId);
    expect(readFileSync(join(folder.path, 'config.json'), 'utf8')).toBe(mine);
    const told = (server.requests.at(-1)?.body['messages'] as Array<{ role: string; content: string }>).findLast(
      (message) => message.role === 'tool',
    );
    expect(told?.content).toMatch(
      /^The person changed the content you proposed before approving it; this ran with their version instead of yours:\n<person_version>\n\{ "port": 8080 \}\n\n<\/person_version>/,
    );
    const answered = (await journal())
      .map((entry) => entry.event)
      .find((event) => event.type === 'approval_answered' && event.toolCallId === gate.toolCallId);
    expect(answered).toMatchObject({ decision: 'allow_once', content: mine });

    // A command's gate has nothing to change.
    server.reset();
    server.enqueue({ steps: [toolCall('run_command', { command: 'echo hi' }, 'gate-c1')] }, textTurn('Ran it.'));
    const beforeCommand = await lastSeq();
    await transport.invoke('run:send', { sessionId, text: 'Say hi' });
    const command = await requested('run_command', beforeCommand);
    expect(command.editableField).toBeUndefined();
    const refused = await transport.invoke('approval:answer', {
      approvalId: command.approvalId,
      decision: 'allow_once',
      content: 'rm -rf /',
    });
    expect(refused).toMatchObject({ ok: false, error: { message: "Only a write's or an edit's content can be changed at its gate." } });
    await transport.invoke('approval:answer', { approvalId: command.approvalId, decision: 'deny' });
    await core.runtime?.whenIdle(sessionId);
  });

  it('fails an edit whose text is not in the file, or is there twice, at once and without asking', async () => {
    writeFileSync(join(folder.path, 'once.txt'), 'one\n');
    writeFileSync(join(folder.path, 'twice.txt'), 'a\na\n');
    const from = (await journal()).length;
    server.enqueue(
      {
        steps: [
          toolCall('edit_file', { path: 'once.txt', oldText: 'two', newText: 'three' }, 'e1'),
          toolCall('edit_file', { path: 'twice.txt', oldText: 'a', newText: 'b' }, 'e2'),
        ],
      },
      { steps: [toolCall('edit_file', { path: 'once.txt', oldText: 'one', newText: 'one' }, 'e3')] },
      textTurn('None of them applied.'),
    );
    await transport.invoke('run:send', { sessionId, text: 'Edit the files' });
    await core.runtime?.whenIdle(sessionId);
    expect(await gatesSince(from)).toEqual([]);
    expect(toolResults().slice(-3)).toEqual([
      'edit_file failed: oldText was not found in once.txt. Read the file again and copy the text exactly, whitespace included.',
      'edit_file failed: oldText occurs 2 times in twice.txt. Give more context to make it unique, or set replaceAll.',
      'edit_file failed: newText is the same as oldText: the edit would change nothing in once.txt.',
    ]);
    expect(readFileSync(join(folder.path, 'once.txt'), 'utf8')).toBe('one\n');
  });

  it('fails a write that would leave the file as it is, at once and without asking, and says so when run without a gate', async () => {
    writeFileSync(join(folder.path, 'same.txt'), 'as it is\n');
    const from = (await journal()).length;
    server.enqueue({ steps: [toolCall('write_file', { path: 'same.txt', content: 'as it is\n' }, 'w1')] }, textTurn('Nothing to write.'));
    await transport.invoke('run:send', { sessionId, text: 'Write the file' });
    await core.runtime?.whenIdle(sessionId);
    expect(await gatesSince(from)).toEqual([]);
    expect(toolResults().slice(-1)).toEqual(['write_file failed: same.txt already holds exactly this text: there is nothing to write.']);

    // Where writes run without asking, the write itself says the same.
    await transport.invoke('session:setAutonomy', { sessionId, autonomy: 'L2' });
    server.enqueue({ steps: [toolCall('write_file', { path: 'same.txt', content: 'as it is\n' }, 'w2')] }, textTurn('Still nothing.'));
    await transport.invoke('run:send', { sessionId, text: 'Write it again' });
    await core.runtime?.whenIdle(sessionId);
    expect(toolResults().at(-1)).toBe('write_file failed: same.txt already holds exactly this text: there is nothing to write.');
    await transport.invoke('session:setAutonomy', { sessionId, autonomy: 'L1' });
  });

  it('asks about an edit of a file a call before it in the same answer writes, showing the file as it is by then', async () => {
    server.enqueue(
      {
        steps: [
          toolCall('write_file', { path: 'new.txt', content: 'first\n' }, 'w1'),
          toolCall('edit_file', { path: 'new.txt', oldText: 'first', newText: 'second' }, 'e1'),
        ],
      },
      textTurn('Written and edited.'),
    );
    await transport.invoke('run:send', { sessionId, text: 'Write, then edit' });
    await answerGate('write_file', 'allow_once');
    const edit = await answerGate('edit_file', 'allow_once');
    expect(edit.preview).toContain('-first');
    expect(edit.preview).toContain('+second');
    await core.runtime?.whenIdle(sessionId);
    expect(readFileSync(join(folder.path, 'new.txt'), 'utf8')).toBe('second\n');
  });

  it('tells the model plainly when a path is refused', async () => {
    server.enqueue({ steps: [toolCall('read_file', { path: '../../etc/passwd' }, 'x1')] }, textTurn('I cannot read that.'));
    await transport.invoke('run:send', { sessionId, text: 'Read the password file' });
    await core.runtime?.whenIdle(sessionId);
    const messages = server.requests.at(-1)?.body['messages'] as Array<{ role: string; content: string }>;
    expect(messages.filter((message) => message.role === 'tool').at(-1)?.content).toBe(
      'read_file failed: Refused "../../etc/passwd": it is outside the workspace.',
    );
  });

  it('runs a command after approval, streaming its output, and Stop ends a long one at once', needs(bash), async () => {
    server.enqueue({ steps: [toolCall('run_command', { command: 'echo building; sleep 0.2; echo built' }, 'sh1')] }, textTurn('Built.'));
    await transport.invoke('run:send', { sessionId, text: 'Build it' });
    const approvalOf = async (tool: string): Promise<string> => {
      for (;;) {
        const found = (await journal())
          .map((entry) => entry.event)
          .filter((event) => event.type === 'approval_requested' && event.tool === tool);
        const last = found.at(-1);
        if (
          last?.type === 'approval_requested' &&
          !(await journal()).some((entry) => entry.event.type === 'approval_answered' && entry.event.approvalId === last.approvalId)
        )
          return last.approvalId;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await transport.invoke('approval:answer', { approvalId: await approvalOf('run_command'), decision: 'allow_once' });
    await core.runtime?.whenIdle(sessionId);
    const events = (await journal()).map((entry) => entry.event);
    const live = events
      .filter((event) => event.type === 'tool_output' && event.toolCallId.length > 0)
      .map((event) => (event.type === 'tool_output' ? event.text : ''))
      .join('');
    expect(live).toContain('building');
    const finished = events.filter((event) => event.type === 'tool_call_finished').at(-1);
    expect(finished).toMatchObject({ status: 'succeeded', output: 'building\nbuilt\n[exit code 0]' });

    server.enqueue({ steps: [toolCall('run_command', { command: 'sleep 34.5' }, 'sh2')] });
    await transport.invoke('run:send', { sessionId, text: 'Wait a long time' });
    await transport.invoke('approval:answer', { approvalId: await approvalOf('run_command'), decision: 'allow_once' });
    for (;;) {
      if ((await journal()).some((entry) => entry.event.type === 'tool_call_started' && entry.event.toolCallId !== finished?.toolCallId))
        break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const stoppedAt = Date.now();
    await transport.invoke('run:cancel', { sessionId });
    expect(Date.now() - stoppedAt).toBeLessThan(500);
    const status = (await journal())
      .map((entry) => entry.event)
      .filter((event) => event.type === 'status_changed')
      .at(-1);
    expect(status).toMatchObject({ status: 'cancelled' });
  });
});

describe('the trash over IPC', () => {
  it('lists what the agent deleted and puts it back', async () => {
    const { mkdirSync: makeFolder } = await import('node:fs');
    const folder = temporaryFolder();
    const dataDir = join(folder.path, 'data');
    const workspace = join(folder.path, 'ws');
    makeFolder(workspace);
    writeFileSync(join(workspace, 'notes.md'), 'keep me');
    const server = await ScriptedModelServer.start();
    let n = 0;
    const { core, transport } = await createCoreWithScriptedModel({
      dataDir,
      openaiBaseUrl: server.openaiBaseUrl,
      tools: builtinTools({ shell, dataDir, newId: () => `del${(n += 1)}`, now: () => 1 }),
    });
    const created = await transport.invoke('session:create', { workspacePath: workspace });
    const sessionId = created.ok ? (created.value as { id: string }).id : '';
    await transport.invoke('session:setAutonomy', { sessionId, autonomy: 'L3' });
    server.enqueue({ steps: [toolCall('delete', { path: 'notes.md' }, 'd1')] }, textTurn('Deleted.'));
    await transport.invoke('run:send', { sessionId, text: 'Delete the notes' });
    await core.runtime?.whenIdle(sessionId);
    const listed = await transport.invoke('trash:list', {});
    expect(listed).toMatchObject({ ok: true, value: [{ id: 'del1', relativePath: 'notes.md', directory: false }] });
    expect(await transport.invoke('trash:restore', { id: 'del1' })).toMatchObject({ ok: true, value: { relativePath: 'notes.md' } });
    expect(readFileSync(join(workspace, 'notes.md'), 'utf8')).toBe('keep me');
    await core.close();
    await server.close();
    folder.remove();
  });
});
