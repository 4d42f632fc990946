import { mkdirSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../../src/main/agent/ports/tools';
import { McpManager } from '../../../src/main/mcp/mcp-manager';
import { expandPlaceholders, readFolderServers, type ExpansionContext } from '../../../src/main/mcp/project-servers';
import { scrubbedEnvironment } from '../../../src/main/tools/run-command';
import { WorkspaceFiles } from '../../../src/main/workspace/workspace-files';
import { temporaryFolder, waitFor } from '../../helpers';

const everything = fileURLToPath(new URL('../../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url));

describe('${...} in a folder entry', () => {
  const context: ExpansionContext = {
    folder: join(sep, 'home', 'ada', 'project'),
    env: { PATH: '/usr/bin', HOME: '/home/ada', EMPTY: '' },
    home: '/home/ada',
  };
  const expand = (text: string) => expandPlaceholders(text, context);

  it('fills in the folder, its name, the home folder and the path separator, as VS Code and Cursor do', () => {
    expect(expand('${workspaceFolder}${/}server.js')).toEqual({ text: join(sep, 'home', 'ada', 'project', 'server.js') });
    expect(expand('--name=${workspaceFolderBasename}')).toEqual({ text: '--name=project' });
    expect(expand('${userHome}${pathSeparator}.cache')).toEqual({ text: `/home/ada${sep}.cache` });
  });

  it('fills in variables the servers are given, with a default where one is written, as .mcp.json does', () => {
    expect(expand('${PATH}:${env:HOME}')).toEqual({ text: '/usr/bin:/home/ada' });
    expect(expand('${PORT:-8080}')).toEqual({ text: '8080' });
    expect(expand('${EMPTY:-fallback}|${EMPTY}|')).toEqual({ text: 'fallback||' });
    expect(expand('no placeholders, $HOME and {braces} left alone')).toEqual({ text: 'no placeholders, $HOME and {braces} left alone' });
  });

  it('matches a variable whatever its case on Windows, and only as written elsewhere', () => {
    const windows = { ...context, env: { Path: 'C:\\Windows' }, namesIgnoreCase: true };
    expect(expandPlaceholders('${PATH}', windows)).toEqual({ text: 'C:\\Windows' });
    expect(expandPlaceholders('${PATH}', { ...windows, namesIgnoreCase: false })).toEqual({
      problem: expect.stringMatching(/PATH is not among/),
    });
  });

  it('refuses a variable kept from the servers, an input to ask for, and anything else, naming it', () => {
    expect(expand('Bearer ${GITHUB_TOKEN}')).toEqual({ problem: expect.stringMatching(/\$\{GITHUB_TOKEN\}.*never the person's keys/) });
    expect(expand('${env:ANTHROPIC_API_KEY}')).toEqual({ problem: expect.stringMatching(/ANTHROPIC_API_KEY is not among/) });
    expect(expand('${input:api-key}')).toEqual({ problem: 'it asks for ${input:api-key}, an input the app does not prompt for' });
    expect(expand('${command:pickFile}')).toEqual({ problem: 'it uses ${command:pickFile}, which the app cannot fill in' });
    expect(expand('${env:HOME:-x}')).toEqual({ problem: 'it uses ${env:HOME:-x}, which the app cannot fill in' });
  });
});

describe("a folder's servers with ${...} in their entries", () => {
  let root: ReturnType<typeof temporaryFolder>;
  let project: string;
  let manager: McpManager;
  beforeEach(() => {
    root = temporaryFolder('workbench-project-servers-');
    project = join(root.path, 'project');
    mkdirSync(join(project, '.vscode'), { recursive: true });
    manager = new McpManager({ registry: new ToolRegistry(), onChanged: () => undefined, baseEnv: scrubbedEnvironment() });
  });
  afterEach(async () => {
    await manager.dispose();
    root.remove();
  });

  const read = async (env: Record<string, string> = scrubbedEnvironment()) => {
    const reader = new WorkspaceFiles(project, { protectedRoots: [] }).reader();
    try {
      return await readFolderServers(reader, { folder: project, env, home: '/home/ada' });
    } finally {
      reader.close();
    }
  };

  it('starts a server whose file names its script by ${workspaceFolder}, and refuses one that needs a secret, saying why', async () => {
    // The folder's own script starts the server, as a project's `.vscode/mcp.json` usually has it.
    writeFileSync(join(project, 'start.mjs'), `await import(${JSON.stringify(everything)});\n`);
    writeFileSync(
      join(project, '.vscode', 'mcp.json'),
      JSON.stringify({
        servers: {
          local: { command: process.execPath, args: ['${workspaceFolder}${/}start.mjs', 'stdio'] },
          hosted: { url: 'https://mcp.example.com/${workspaceFolderBasename}', headers: { Authorization: 'Bearer ${env:SERVICE_TOKEN}' } },
          later: { command: '${input:binary}', disabled: true },
        },
      }),
    );
    const servers = await read();
    expect(servers.map((server) => [server.name, server.problem ?? null])).toEqual([
      ['local', null],
      [
        'hosted',
        expect.stringMatching(
          /^\.vscode\/mcp\.json: the server "hosted" was not started: it uses \$\{env:SERVICE_TOKEN\}, and SERVICE_TOKEN/,
        ),
      ],
      ['later', null],
    ]);
    expect(servers[0]?.config).toMatchObject({ args: [join(project, 'start.mjs'), 'stdio'], cwd: project });
    expect(servers[1]).toMatchObject({ config: null, transport: 'http' });

    await manager.configureFolder(project, servers);
    await waitFor(() => manager.statuses().find((status) => status.name === 'local')?.state === 'running', 20_000, 'the server to run');
    const hosted = manager.statuses().find((status) => status.name === 'hosted');
    expect(hosted).toMatchObject({ state: 'failed', transport: 'http' });
    expect(hosted?.error).toMatch(/SERVICE_TOKEN is not among the variables/);
  });

  it('fills in a variable the servers are given, in the env it passes on', async () => {
    writeFileSync(
      join(project, '.mcp.json'),
      JSON.stringify({
        mcpServers: { tool: { command: 'node', args: ['server.js'], env: { LOG_DIR: '${HOME}/logs', LEVEL: '${LEVEL:-info}' } } },
      }),
    );
    const [server] = await read({ HOME: '/home/ada', PATH: '/usr/bin' });
    expect(server?.config).toMatchObject({ env: { LOG_DIR: '/home/ada/logs', LEVEL: 'info' } });
  });
});
