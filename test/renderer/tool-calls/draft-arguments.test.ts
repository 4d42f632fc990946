import { describe, expect, it } from 'vitest';
import { draftDisplay, readPartialObject, tailOf } from '../../../src/renderer/src/tool-calls/draft-arguments';

describe('reading the arguments of a tool call as they stream', () => {
  it('gives finished fields whole and the one being written as far as it has arrived', () => {
    expect(readPartialObject('{"path": "notes/a.txt", "content": "line one\\nline tw')).toEqual([
      { key: 'path', value: 'notes/a.txt', kind: 'string', complete: true },
      { key: 'content', value: 'line one\nline tw', kind: 'string', complete: false },
    ]);
  });

  it('reads every prefix of a whole object without failing, and the whole of it exactly', () => {
    const value = {
      path: 'a "quoted" name.txt',
      content: 'tab\there\\back\u00e9 \ud83d\ude00 end',
      nested: { list: [1, '}', { x: null }] },
      n: -1.5,
    };
    const raw = JSON.stringify(value);
    for (let length = 0; length <= raw.length; length += 1)
      expect(readPartialObject(raw.slice(0, length)), raw.slice(0, length)).not.toBeNull();
    const whole = readPartialObject(raw);
    expect(whole?.map((field) => [field.key, field.value, field.complete])).toEqual([
      ['path', value.path, true],
      ['content', value.content, true],
      ['nested', JSON.stringify(value.nested), true],
      ['n', '-1.5', true],
    ]);
  });

  it('leaves out an escape cut off at the end until the rest of it arrives', () => {
    expect(readPartialObject('{"content": "say \\')?.[0]?.value).toBe('say ');
    expect(readPartialObject('{"content": "say \\"hi\\')?.[0]?.value).toBe('say "hi');
    expect(readPartialObject('{"content": "caf\\u00')?.[0]?.value).toBe('caf');
    expect(readPartialObject('{"content": "caf\\u00e9')?.[0]?.value).toBe('café');
  });

  it('leaves out the first half of a surrogate pair until its second half arrives', () => {
    expect(readPartialObject('{"content": "smile \\ud83d')?.[0]?.value).toBe('smile ');
    expect(readPartialObject('{"content": "smile \\ud83d\\ude')?.[0]?.value).toBe('smile ');
    expect(readPartialObject('{"content": "smile \\ud83d\\ude00')?.[0]?.value).toBe('smile 😀');
    expect(readPartialObject('{"content": "smile 😀')?.[0]?.value).toBe('smile 😀');
  });

  it('skips nested objects and arrays, braces inside their strings included, and shows them as JSON', () => {
    const fields = readPartialObject('{"options": {"a": "}", "b": [1, {"c": "]"}]}, "command": "ls -');
    expect(fields).toEqual([
      { key: 'options', value: '{"a": "}", "b": [1, {"c": "]"}]}', kind: 'other', complete: true },
      { key: 'command', value: 'ls -', kind: 'string', complete: false },
    ]);
    expect(readPartialObject('{"options": {"a": [1, 2')).toEqual([
      { key: 'options', value: '{"a": [1, 2', kind: 'other', complete: false },
    ]);
  });

  it('gives a key whose value has not begun, and leaves out a key cut off', () => {
    expect(readPartialObject('{"path": "a", "content":')).toEqual([
      { key: 'path', value: 'a', kind: 'string', complete: true },
      { key: 'content', value: '', kind: 'string', complete: false },
    ]);
    expect(readPartialObject('{"path": "a", "cont')).toEqual([{ key: 'path', value: 'a', kind: 'string', complete: true }]);
    expect(readPartialObject('  ')).toEqual([]);
  });

  it('says when the text is not a JSON object', () => {
    expect(readPartialObject('[1, 2')).toBeNull();
    expect(readPartialObject('<tool>write_file')).toBeNull();
    expect(readPartialObject('{"content": "bad \\q escape"}')).toBeNull();
    expect(readPartialObject('{"content": "bad \\uzzzz"}')).toBeNull();
  });

  it('shows write_file as its path and growing content, run_command as its command, anything else as the raw text', () => {
    expect(draftDisplay('write_file', '{"path": "src/a.ts", "content": "export const')).toEqual({
      kind: 'file',
      path: 'src/a.ts',
      content: 'export const',
    });
    expect(draftDisplay('write_file', '{"pa')).toEqual({ kind: 'file', path: null, content: '' });
    expect(draftDisplay('run_command', '{"command": "npm run build && echo \\"do')).toEqual({
      kind: 'command',
      command: 'npm run build && echo "do',
    });
    expect(draftDisplay('read_file', '{"path": "a')).toEqual({ kind: 'raw', text: '{"path": "a' });
    expect(draftDisplay('write_file', 'not json')).toEqual({ kind: 'raw', text: 'not json' });
  });

  it('keeps the last lines of a long text and counts the ones before them', () => {
    const text = Array.from({ length: 100 }, (_, index) => `line ${index + 1}`).join('\n');
    expect(tailOf(text, 3)).toEqual({ shown: 'line 98\nline 99\nline 100', earlierLines: 97 });
    expect(tailOf('a\nb', 5)).toEqual({ shown: 'a\nb', earlierLines: 0 });
    expect(tailOf('a\nb\n', 1)).toEqual({ shown: '', earlierLines: 2 });
  });
});
