import { describe, expect, it } from 'vitest';
import { mcpServersSchema } from '../../../src/shared/domain';
import { draftOfServer, emptyMcpDraft, keepGrantedTrust, readMcpDraft, type McpDraft } from '../../../src/renderer/src/settings/mcp-draft';

const draft = (change: Partial<McpDraft>): McpDraft => ({ ...emptyMcpDraft, ...change });

describe('the MCP server form', () => {
  it('reads a command with its arguments and variables as the same JSON would be stored, rows left empty skipped', () => {
    const reading = readMcpDraft(
      draft({
        name: ' files ',
        command: ' npx ',
        args: ['-y', '', '@modelcontextprotocol/server-filesystem', ' /a folder '],
        env: [
          { key: 'TOKEN', value: 'secret value' },
          { key: '', value: '' },
        ],
      }),
      [],
    );
    const json = {
      files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', ' /a folder '], env: { TOKEN: 'secret value' } },
    };
    expect(reading).toEqual({ ok: true, name: 'files', config: mcpServersSchema.parse(json)['files'] });
  });

  it('reads a URL with its headers, and a folder when one is given', () => {
    expect(
      readMcpDraft(
        draft({
          name: 'remote',
          transport: 'http',
          url: 'https://example.com/mcp',
          headers: [{ key: 'Authorization', value: 'Bearer x' }],
        }),
        [],
      ),
    ).toEqual({
      ok: true,
      name: 'remote',
      config: { url: 'https://example.com/mcp', headers: { Authorization: 'Bearer x' }, disabled: false, trusted: false },
    });
    // Trust in the server's marks is kept through the form: off unless ticked, and shown again when edited.
    const trusted = readMcpDraft(draft({ name: 'marks', command: 'uvx', trusted: true }), []);
    expect(trusted).toMatchObject({ ok: true, config: { trusted: true } });
    if (trusted.ok) expect(draftOfServer('marks', trusted.config).trusted).toBe(true);
    expect(readMcpDraft(draft({ name: 'here', command: 'uvx', cwd: '/srv/tools' }), [])).toMatchObject({
      ok: true,
      config: { cwd: '/srv/tools' },
    });
  });

  it('says what is wrong with each field', () => {
    expect(readMcpDraft(draft({ name: '', command: '' }), [])).toEqual({
      ok: false,
      problems: {
        name: 'Name the server: its tools are called name__tool.',
        command: 'Enter the command that starts the server, such as npx or uvx.',
      },
    });
    expect(readMcpDraft(draft({ name: 'my server', command: 'x' }), [])).toMatchObject({
      problems: { name: 'A name is 1 to 40 letters, digits, - and _.' },
    });
    expect(readMcpDraft(draft({ name: 'files', command: 'x' }), ['files'])).toMatchObject({
      problems: { name: 'There is a server named “files” already.' },
    });
    expect(
      readMcpDraft(
        draft({
          name: 'ok',
          command: 'x',
          env: [
            { key: '2FAST', value: '1' },
            { key: '', value: 'orphan' },
            { key: 'A', value: '1' },
            { key: 'A', value: '2' },
          ],
        }),
        [],
      ),
    ).toEqual({
      ok: false,
      problems: {
        'env.0.key': 'A variable’s name is letters, digits and _, not starting with a digit.',
        'env.1.key': 'Name the variable.',
        'env.3.key': '“A” is set twice.',
      },
    });
    expect(readMcpDraft(draft({ name: 'ok', transport: 'http', url: 'ftp://example.com' }), [])).toMatchObject({
      problems: { url: 'The address must start with http:// or https://.' },
    });
    expect(
      readMcpDraft(draft({ name: 'ok', transport: 'http', url: 'https://x.test', headers: [{ key: 'Bad Header', value: 'v' }] }), []),
    ).toMatchObject({
      problems: { 'headers.0.key': 'A header’s name has no spaces or punctuation other than - and _.' },
    });
  });

  it('shows a server set up already, and reads it back unchanged', () => {
    const stdio = mcpServersSchema.parse({ files: { command: 'npx', args: ['-y', 'pkg'], env: { K: 'v' }, cwd: '/srv' } })['files']!;
    expect(readMcpDraft(draftOfServer('files', stdio), [])).toEqual({ ok: true, name: 'files', config: stdio });
    const http = mcpServersSchema.parse({ remote: { url: 'https://example.com/mcp', headers: { 'X-Key': '1' } } })['remote']!;
    expect(draftOfServer('remote', http)).toMatchObject({
      transport: 'http',
      url: 'https://example.com/mcp',
      headers: [{ key: 'X-Key', value: '1' }],
    });
    expect(readMcpDraft(draftOfServer('remote', http), [])).toEqual({ ok: true, name: 'remote', config: http });
    expect(draftOfServer('bare', mcpServersSchema.parse({ bare: { command: 'x' } })['bare']!).args).toEqual(['']);
  });

  it('JSON keeps trust in a server only where it was given to that same server', () => {
    const server = { command: 'uvx', args: ['tool'], env: {}, disabled: false, trusted: true };
    const current = { trusted: server, plain: { ...server, trusted: false } };
    const { servers, untrusted } = keepGrantedTrust(
      {
        trusted: server,
        plain: { ...server, trusted: true },
        moved: { ...server, args: ['other-tool'], trusted: true },
        renamedCommand: { ...server, command: 'npx' },
      },
      { ...current, moved: server },
    );
    expect(servers['trusted']?.trusted).toBe(true);
    expect(servers['plain']?.trusted).toBe(false);
    expect(servers['moved']?.trusted).toBe(false);
    expect(servers['renamedCommand']?.trusted).toBe(false);
    expect(untrusted).toEqual(['plain', 'moved', 'renamedCommand']);
  });
});
