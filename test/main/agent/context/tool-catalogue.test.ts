import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ConversationEntry } from '../../../../src/main/agent/context/context-view';
import type { ToolSpec } from '../../../../src/main/agent/ports/model-provider';
import { describeToolsTool, fitTools, toolShare } from '../../../../src/main/agent/context/tool-catalogue';
import { defineTool, ToolRegistry, type Tool } from '../../../../src/main/agent/ports/tools';
import { testTools, toolCall } from '../harness';
import type { ModelCheck } from '../../../../src/shared/domain';
import { textTurn } from '../../../scripted-model-server';
import { answer, useScriptedCore } from '../../scripted-core';
import type { WorkbenchCore } from '../../../../src/main/core/workbench-core';
import type { LoopbackTransport } from '../../../host/loopback-transport';
import type { ScriptedModelServer } from '../../../scripted-model-server';

/** Tools as MCP servers add them: namespaced, grouped by server, each with a paragraph of description and a schema. */
function serverTools(server: string, count: number, log: string[] = []): Tool[] {
  return Array.from({ length: count }, (_, index) => {
    const tool = defineTool({
      name: `${server}__tool_${index}`,
      description: `Does thing ${index} of ${server}. ${'It has a long description that explains every option in detail. '.repeat(3)}`,
      input: z.object({ id: z.string().describe('The id of the thing'), note: z.string().optional() }),
      risk: index % 2 === 0 ? 'read_only' : 'write_low',
      execute: async (input) => {
        log.push(`${server} ${index} ${input.id}`);
        return { status: 'succeeded', output: `done ${input.id}` };
      },
    });
    return { ...tool, group: server };
  });
}

const builtIns = (): Tool[] => testTools([]).tools.slice(0, 2);
const specsOf = (tools: readonly Tool[]): readonly ToolSpec[] => new ToolRegistry(tools).specs();
const tokensOf = (chars: number): number => Math.ceil(chars * 0.34);
const sizeOf = (fitted: ReturnType<typeof fitTools>): number =>
  tokensOf(JSON.stringify(fitted.tools ?? []).length) + tokensOf(fitted.catalogue?.length ?? 0);

describe('a tool catalogue that fits the window', () => {
  const many = specsOf([...builtIns(), ...serverTools('github', 30), ...serverTools('jira', 20), ...serverTools('files', 10)]);

  it('sends all definitions when they fit, as the same array', () => {
    const fitted = fitTools(many, 200_000, [], tokensOf);
    expect(fitted.tools).toBe(many);
    expect(fitted.catalogue).toBeNull();
  });

  it('on a small window, defines the built-in tools and lists the rest by server and by what they do, within the share', () => {
    const fitted = fitTools(many, 8192, [], tokensOf);
    expect(fitted.tools?.map((tool) => tool.name)).toEqual([...builtIns().map((tool) => tool.name), 'describe_tools']);
    expect(fitted.catalogue).toContain('## github (MCP server): 30 tools');
    expect(fitted.catalogue).toContain('## jira (MCP server): 20 tools');
    expect(fitted.catalogue).toMatch(/reads:\n- github__tool_0: Does thing 0 of github\./);
    expect(fitted.catalogue).toMatch(/changes things:\n- github__tool_1:/);
    expect(sizeOf(fitted)).toBeLessThanOrEqual(8192 * toolShare);
    expect(sizeOf(fitted)).toBeLessThan(tokensOf(JSON.stringify(many).length) / 4);
  });

  it('leaves the optional built-in tools (sub-agents) out first on a window too small for them, or lists them in the catalogue', () => {
    const handOn = (name: string): Tool =>
      defineTool({
        name,
        description: `Hands work on. ${'Its schema and description are long. '.repeat(8)}`,
        input: z.object({ goal: z.string(), steps: z.array(z.object({ id: z.string(), goal: z.string() })).optional() }),
        risk: 'read_only',
        optional: true,
        execute: async () => ({ output: 'handed on' }),
      });
    const own = specsOf([...builtIns(), handOn('delegate'), handOn('run_plan')]);
    // Room for the agent's own tools made short, not for these too: they are not offered, and no catalogue is added.
    const ownShort = tokensOf(JSON.stringify(fitTools(specsOf(builtIns()), 10, [], tokensOf).tools).length);
    const window = Math.ceil((ownShort + 5) / toolShare);
    const fitted = fitTools(own, window, [], tokensOf);
    expect(fitted.tools?.map((tool) => tool.name)).toEqual(builtIns().map((tool) => tool.name));
    expect(fitted.catalogue).toBeNull();
    // With a server's tools in a catalogue anyway, they are listed there, under the built-in ones.
    const mixed = fitTools(specsOf([...builtIns(), handOn('delegate'), ...serverTools('github', 30)]), 8192, [], tokensOf);
    expect(mixed.tools?.map((tool) => tool.name)).toEqual([...builtIns().map((tool) => tool.name), 'describe_tools']);
    expect(mixed.catalogue).toMatch(/## built-in: 1 tool\nreads:\n- delegate: Hands work on\./);
  });

  it('tells less about each tool as the window shrinks, and still fits', () => {
    const names = fitTools(many, 4096, [], tokensOf);
    expect(names.catalogue).toMatch(/reads: github__tool_0, github__tool_2/);
    expect(sizeOf(names)).toBeLessThanOrEqual(4096 * toolShare);
    const huge = specsOf([...builtIns(), ...serverTools('a', 300), ...serverTools('b', 300)]);
    const counts = fitTools(huge, 4096, [], tokensOf);
    expect(counts.catalogue).toContain('## a (MCP server): 300 tools');
    expect(counts.catalogue).not.toContain('a__tool_0');
    expect(sizeOf(counts)).toBeLessThanOrEqual(4096 * toolShare);
  });

  it('makes every definition short before leaving any out: first sentences, schemas without words, the same array each time', () => {
    const tools = specsOf([...builtIns(), ...serverTools('jira', 3)]);
    const full = tokensOf(JSON.stringify(tools).length);
    // A window whose share holds the short definitions but not the full ones.
    const window = Math.ceil((full * 0.6) / toolShare);
    const fitted = fitTools(tools, window, [], tokensOf);
    expect(fitted.catalogue).toBeNull();
    expect(fitted.tools?.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name));
    const jira = fitted.tools?.find((tool) => tool.name === 'jira__tool_0');
    expect(jira?.description).toBe('Does thing 0 of jira.');
    // Every property and what is required stay; the words and the schema's own URL go.
    expect(JSON.stringify(jira?.inputSchema)).not.toMatch(/The id of the thing|\$schema/);
    expect(jira?.inputSchema).toMatchObject({
      type: 'object',
      properties: { id: { type: 'string' }, note: { type: 'string' } },
      required: ['id'],
    });
    expect(sizeOf(fitted)).toBeLessThanOrEqual(window * toolShare);
    // The next request gets the very same definitions, so the prompt's beginning holds.
    expect(fitTools(tools, window, [], tokensOf).tools).toBe(fitted.tools);
  });

  it('keeps a property named like a schema keyword', () => {
    const tool = defineTool({
      name: 'tag',
      description: 'Tags a thing. More words here.',
      input: z.object({ description: z.string().describe('The text of the tag'), title: z.string() }),
      risk: 'write_low',
      execute: async () => ({ status: 'succeeded', output: '' }),
    });
    const [spec] = specsOf([tool]);
    const fitted = fitTools(specsOf([tool]), Math.ceil((tokensOf(JSON.stringify(spec).length) * 0.8) / toolShare), [], tokensOf);
    expect(fitted.tools?.[0]?.inputSchema).toMatchObject({ properties: { description: { type: 'string' }, title: { type: 'string' } } });
  });

  it('defines the tools the model asked about in the requests after', () => {
    const entries: ConversationEntry[] = [
      { role: 'user', content: 'Open issue 7' },
      { role: 'assistant', content: '', toolCalls: [{ id: 'c', name: 'describe_tools', arguments: '{"names": ["jira__tool_3"]}' }] },
      { role: 'tool', toolCallId: 'c', content: '…' },
    ];
    const fitted = fitTools(many, 8192, entries, tokensOf);
    expect(fitted.tools?.map((tool) => tool.name)).toContain('jira__tool_3');
    expect(fitted.catalogue).not.toContain('- jira__tool_3:');
  });

  it('describes tools by name, says when one does not exist, and lists a server’s tools', async () => {
    const registry = new ToolRegistry([...builtIns(), ...serverTools('jira', 3)]);
    const describe = describeToolsTool(registry);
    const run = async (input: unknown): Promise<string> => {
      const parsed = describe.parse(input);
      if (!parsed.ok) return parsed.message;
      const outcome = await describe.execute(parsed.input, { signal: AbortSignal.timeout(1000) } as never);
      return outcome.output;
    };
    const described = await run({ names: ['jira__tool_1', 'nope'] });
    expect(described).toContain('## jira__tool_1\nDoes thing 1 of jira.');
    expect(described).toContain('"id":{"type":"string","description":"The id of the thing"}');
    expect(described).toContain('## nope\nNo tool has this name.');
    expect(await run({ server: 'jira' })).toMatch(/^Tools of jira:\n- jira__tool_0: Does thing 0 of jira\./);
    expect(await run({})).toMatch(/give the names of tools, or a server/);
  });
});

describe('a model working from the catalogue', () => {
  let server: ScriptedModelServer;
  let transport: LoopbackTransport;
  let core: WorkbenchCore;
  let sessionId: string;
  const log: string[] = [];

  useScriptedCore(
    {
      tools: () => [...testTools(log).tools, ...serverTools('jira', 40, log)],
      session: 'workspace',
      // Room for the built-in tools (the memory tools among them) and one asked-for definition within the tools' share.
      server: { personality: 'llama.cpp', contextWindow: 10_240 },
    },
    (started) => ({ server, transport, core, sessionId } = started),
  );

  it('asks for a definition, gets it natively in the next request, and calls the tool', async () => {
    const value = <T>(channel: string, payload: unknown): Promise<T> => answer<T>(transport, channel, payload);
    for (let waited = 0; (await value<ModelCheck[]>('model:checks', {})).length === 0 && waited < 5_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    await value('session:setAutonomy', { sessionId, autonomy: 'L2' });
    server.enqueue(
      { steps: [toolCall('describe_tools', { names: ['jira__tool_5'] })] },
      { steps: [toolCall('jira__tool_5', { id: 'ISSUE-7' })] },
      textTurn('Done.'),
    );
    await value('run:send', { sessionId, text: 'Close issue 7' });
    await core.runtime?.whenIdle(sessionId);
    const names = (index: number): string[] =>
      ((server.requests[index]?.body['tools'] ?? []) as { function: { name: string } }[]).map((tool) => tool.function.name);
    expect(names(0)).not.toContain('jira__tool_5');
    expect(names(0)).toContain('describe_tools');
    const system = (server.requests[0]?.body['messages'] as { content: string }[])[0]?.content ?? '';
    expect(system).toContain('## jira (MCP server): 40 tools');
    expect(names(1)).toContain('jira__tool_5');
    expect(log).toEqual(['jira 5 ISSUE-7']);
    const opened = await value<{ entries: { event: { type: string; status?: string } }[] }>('session:open', { sessionId });
    expect(opened.entries.some((entry) => entry.event.type === 'context_truncated')).toBe(false);
    expect(opened.entries.findLast((entry) => entry.event.type === 'run_finished')?.event).toMatchObject({ status: 'completed' });
  });
});
