import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool, ToolRegistry, type Tool } from '../../../../src/main/agent/ports/tools';

const tool = (name: string, workspace?: string): Tool => ({
  ...defineTool({ name, description: name, input: z.object({}), risk: 'read_only', execute: async () => ({ output: name }) }),
  ...(workspace === undefined ? {} : { workspace }),
});

describe("the registry's tools of one folder", () => {
  it("offers a folder's tools in that folder's sessions only, after every session's", () => {
    const registry = new ToolRegistry([tool('read_file')]);
    registry.register(tool('server__echo', '/work/a'));
    expect(registry.list('/work/a').map((found) => found.name)).toEqual(['read_file', 'server__echo']);
    expect(registry.list('/work/b').map((found) => found.name)).toEqual(['read_file']);
    expect(registry.list().map((found) => found.name)).toEqual(['read_file']);
    expect(registry.specs([], '/work/a').map((spec) => spec.name)).toEqual(['read_file', 'server__echo']);
    // The definitions of one folder's sessions are not those of another's, whatever was asked before.
    expect(registry.specs([], '/work/b').map((spec) => spec.name)).toEqual(['read_file']);
    expect(registry.offered(['server__echo'], '/work/a').map((found) => found.name)).toEqual(['read_file']);
    expect(registry.get('server__echo', '/work/a')?.name).toBe('server__echo');
    expect(registry.get('server__echo', '/work/b')).toBeUndefined();
    expect(registry.get('server__echo')).toBeUndefined();
  });

  it("keeps two folders' tools of the same name apart, and never lets one hide a tool of every session", () => {
    const registry = new ToolRegistry();
    const first = tool('server__echo', '/work/a');
    const second = tool('server__echo', '/work/b');
    const removeFirst = registry.register(first);
    registry.register(second);
    expect(() => registry.register(tool('server__echo', '/work/a'))).toThrow(/already registered/);
    expect(registry.get('server__echo', '/work/a')).toBe(first);
    expect(registry.get('server__echo', '/work/b')).toBe(second);
    const everywhere = tool('server__echo');
    registry.register(everywhere);
    expect(registry.takenEverywhere('server__echo')).toBe(true);
    expect(registry.get('server__echo', '/work/a')).toBe(everywhere);
    expect(registry.list('/work/a')).toEqual([everywhere]);
    removeFirst();
    expect(registry.list('/work/b')).toEqual([everywhere]);
    expect(registry.get('server__echo', '/work/b')).toBe(everywhere);
  });

  it("lists every folder's own tools by folder, for the person to deny, without those a tool of every session hides", () => {
    const registry = new ToolRegistry([tool('read_file')]);
    registry.register(tool('server__echo', '/work/a'));
    registry.register(tool('server__add', '/work/a'));
    const removeB = registry.register(tool('server__echo', '/work/b'));
    registry.register(tool('read_file', '/work/b'));
    const names = (): Array<[string, string[]]> =>
      registry.byFolder().map(({ folder, tools }) => [folder, tools.map((found) => found.name)]);
    expect(names()).toEqual([
      ['/work/a', ['server__echo', 'server__add']],
      ['/work/b', ['server__echo']],
    ]);
    // A folder whose only tool left is hidden has none to list.
    removeB();
    expect(names()).toEqual([['/work/a', ['server__echo', 'server__add']]]);
  });
});
