import { describe, expect, it } from 'vitest';
import { readBlock, textToolRequest } from '../../../src/main/providers/text-tool-protocol';
import { ToolBlockParser, type BlockEvent } from '../../../src/main/providers/tool-blocks';

/** Feeds `pieces` and gathers what came out: the answer's text, and each closed block's body. */
function parse(pieces: readonly string[]): { text: string; blocks: string[]; events: BlockEvent[] } {
  const parser = new ToolBlockParser();
  const events = [...pieces.flatMap((piece) => parser.push(piece)), ...parser.end()];
  const text = events.map((event) => (event.kind === 'text' ? event.text : '')).join('');
  const blocks = events.flatMap((event) => (event.kind === 'close' ? [event.body] : []));
  return { text, blocks, events };
}

const answer =
  'I will read both files.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>\n' +
  '<tool_call>{"name": "read_file", "arguments": {"path": "b<c>.txt"}}</tool_call>\nThen I compare a < b.';

describe('reading tool blocks out of a streamed answer', () => {
  it('finds every block and keeps the text around them, however the answer is cut into pieces', () => {
    const whole = parse([answer]);
    expect(whole.blocks.map((body) => readBlock(body))).toEqual([
      { ok: true, name: 'read_file', arguments: '{"path":"a.txt"}' },
      { ok: true, name: 'read_file', arguments: '{"path":"b<c>.txt"}' },
    ]);
    expect(whole.text).toBe('I will read both files.\n\n\nThen I compare a < b.');
    for (let size = 1; size <= 13; size += 1) {
      const pieces: string[] = [];
      for (let at = 0; at < answer.length; at += size) pieces.push(answer.slice(at, at + size));
      const cut = parse(pieces);
      expect(cut.blocks, `pieces of ${size}`).toEqual(whole.blocks);
      expect(cut.text, `pieces of ${size}`).toBe(whole.text);
      expect(cut.text).not.toContain('<tool');
    }
  });

  it('reports a block the answer never closed, and never shows it as text', () => {
    const { text, events } = parse(['Reading.<tool_', 'call>{"name": "read_file", "argu']);
    expect(text).toBe('Reading.');
    expect(events.at(-1)).toEqual({ kind: 'unclosed', body: '{"name": "read_file", "argu' });
  });

  it('drops a tool result the model starts to invent, and all that follows', () => {
    const { text, blocks, events } = parse([
      '<tool_call>{"name": "list_files", "arguments": {}}</tool_call>\n<tool_res',
      'ult name="list_files">\na.txt\n</tool_result>\nThe folder holds a.txt.',
    ]);
    expect(blocks).toHaveLength(1);
    expect(text).toBe('\n');
    expect(events.some((event) => event.kind === 'invented')).toBe(true);
  });

  it('keeps tags mentioned in a sentence as text, and still reads a call written right after a sentence', () => {
    const prose = 'Models write calls in a <tool_call> tag, and read results from a <tool_result> tag.\nThat is all.';
    for (const size of [1, 3, 7, prose.length]) {
      const pieces: string[] = [];
      for (let at = 0; at < prose.length; at += size) pieces.push(prose.slice(at, at + size));
      const read = parse(pieces);
      expect(read.text, `pieces of ${size}`).toBe(prose);
      expect(read.events.some((event) => event.kind !== 'text')).toBe(false);
    }
    const call = parse(['Reading it now.<tool_', 'call>\n', '{"name": "read_file", "arguments": {"path": "a"}}</tool_call>']);
    expect(call.text).toBe('Reading it now.');
    expect(call.blocks).toEqual(['\n{"name": "read_file", "arguments": {"path": "a"}}']);
  });

  it('keeps text that only looks like the start of a tag', () => {
    expect(parse(['if a <', 'tool then <tool_c', 'all']).text).toBe('if a <tool then <tool_call');
  });
});

describe('one block read', () => {
  it('takes fenced JSON, `parameters`, and arguments written as a JSON string', () => {
    expect(readBlock('```json\n{"name": "run_command", "parameters": {"command": "ls"}}\n```')).toEqual({
      ok: true,
      name: 'run_command',
      arguments: '{"command":"ls"}',
    });
    expect(readBlock('{"name": "read_file", "arguments": "{\\"path\\": \\"a\\"}"}')).toEqual({
      ok: true,
      name: 'read_file',
      arguments: '{"path":"a"}',
    });
    expect(readBlock('{"name": "list_files"}')).toEqual({ ok: true, name: 'list_files', arguments: '{}' });
  });

  it('says what is wrong with a block that cannot be read', () => {
    expect(readBlock('{"name": "read_file", "arguments": {"path": }}')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/not valid JSON/),
    });
    expect(readBlock('{"arguments": {}}')).toEqual({ ok: false, problem: 'the block has no "name" of a tool' });
    expect(readBlock('[1, 2]')).toMatchObject({ ok: false });
    expect(readBlock('   ')).toEqual({ ok: false, problem: 'the block is empty' });
    expect(readBlock('{"name": "read_file", "arguments": [1]}')).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/must be a JSON object/),
    });
  });
});

describe('the request a model without native tools gets', () => {
  it('has the tools in the system prompt, calls as blocks, results as user messages, and roles that alternate', () => {
    const request = textToolRequest({
      model: 'm',
      system: 'You are careful.',
      tools: [
        { name: 'read_file', description: 'Reads a file.', inputSchema: { type: 'object', properties: { path: { type: 'string' } } } },
      ],
      messages: [
        { role: 'user', content: 'Read a and b.' },
        {
          role: 'assistant',
          content: 'Reading.',
          toolCalls: [
            { id: 'c1', name: 'read_file', arguments: '{"path":"a"}' },
            { id: 'c2', name: 'read_file', arguments: '{"path":"b"}' },
          ],
        },
        { role: 'tool', toolCallId: 'c1', content: 'A' },
        { role: 'tool', toolCallId: 'c2', content: 'no such file', isError: true },
        { role: 'user', content: 'And?' },
      ],
    });
    expect(request.tools).toBeUndefined();
    expect(request.system).toMatch(/^You are careful\.\n\n# Tools/);
    expect(request.system).toContain('### read_file\nReads a file.\nArguments (JSON Schema): {"type":"object"');
    expect(request.messages.map((message) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(request.messages[1]?.content).toBe(
      'Reading.\n\n<tool_call>\n{"name":"read_file","arguments":{"path":"a"}}\n</tool_call>\n\n<tool_call>\n{"name":"read_file","arguments":{"path":"b"}}\n</tool_call>',
    );
    expect(request.messages[2]?.content).toBe(
      '<tool_result name="read_file">\nA\n</tool_result>\n\n<tool_result name="read_file" status="error">\nno such file\n</tool_result>\n\nAnd?',
    );
  });
});
