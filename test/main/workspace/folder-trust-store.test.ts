import { mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FolderTrustStore } from '../../../src/main/workspace/folder-trust-store';
import { temporaryFolder } from '../../helpers';

describe('the folder trust file', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let file: string;
  let project: string;
  let time = 1_000;
  const store = (): FolderTrustStore => new FolderTrustStore(file, () => time);
  beforeEach(() => {
    folder = temporaryFolder();
    file = join(folder.path, 'data', 'folder-trust.json');
    project = join(folder.path, 'code', 'project');
    mkdirSync(join(project, 'sub'), { recursive: true });
    mkdirSync(join(folder.path, 'code', 'other'), { recursive: true });
  });
  afterEach(() => folder.remove());

  it('knows no folder until the person decides: every folder is untrusted and undecided', () => {
    const state = store().stateOf(project);
    expect(state).toMatchObject({ trusted: false, decided: false, by: null });
  });

  it('keeps a decision across restarts, in a file a person can read', () => {
    store().decide(project, 'trust');
    time = 2_000;
    const again = store();
    expect(again.stateOf(project)).toMatchObject({ trusted: true, decided: true });
    // A folder's own decision is for it alone: the folder under it is asked about.
    expect(again.stateOf(join(project, 'sub'))).toMatchObject({ trusted: false, decided: false });
    const written = JSON.parse(readFileSync(file, 'utf8')) as { version: number; folders: Array<{ path: string; scope: string }> };
    expect(written.version).toBe(1);
    expect(written.folders).toEqual([{ path: project, trusted: true, scope: 'folder', decidedAt: 1_000 }]);
  });

  it('trusts a parent for every folder under it, and a nearer decision wins over it', () => {
    const trust = store();
    trust.decide(project, 'trust_parent');
    expect(trust.stateOf(join(folder.path, 'code', 'other'))).toMatchObject({ trusted: true, decided: true });
    expect(trust.stateOf(join(project, 'sub'))).toMatchObject({ trusted: true });
    // The folder's own "restricted" beats its parent's trust.
    trust.decide(join(folder.path, 'code', 'other'), 'restrict');
    expect(trust.stateOf(join(folder.path, 'code', 'other'))).toMatchObject({ trusted: false, decided: true });
    expect(trust.stateOf(project)).toMatchObject({ trusted: true });
    // A folder beside the trusted parent is not under it.
    expect(trust.stateOf(folder.path)).toMatchObject({ trusted: false, decided: false });
  });

  it('judges a folder by its real path: a link to an untrusted folder is not trusted through a trusted one', () => {
    const trust = store();
    trust.decide(join(folder.path, 'code', 'other'), 'trust');
    symlinkSync(project, join(folder.path, 'code', 'other', 'link'));
    // The link is in no trusted place once followed; the parent-tree rule does not reach it either.
    trust.decide(join(folder.path, 'code', 'other'), 'trust_parent');
    trust.decide(project, 'restrict');
    expect(trust.stateOf(join(folder.path, 'code', 'other', 'link'))).toMatchObject({ trusted: false, path: project });
  });

  it('takes a decision back, and refuses to take back one it does not have', () => {
    const trust = store();
    trust.decide(project, 'trust');
    trust.forget(project, 'folder');
    expect(trust.stateOf(project)).toMatchObject({ trusted: false, decided: false });
    expect(() => trust.forget(project, 'folder')).toThrow(/No decision is kept/);
  });

  it('reads a file edited by hand while the app runs', () => {
    const trust = store();
    trust.decide(project, 'restrict');
    writeFileSync(
      file,
      JSON.stringify({ version: 1, folders: [{ path: project, trusted: true, scope: 'folder', decidedAt: 5 }] }, null, 2) + '\n\n',
    );
    expect(trust.stateOf(project)).toMatchObject({ trusted: true, decided: true });
  });

  it('trusts nothing when the file cannot be used, says why, leaves it, and sets it aside at the next decision', () => {
    const trust = store();
    trust.decide(project, 'trust');
    mkdirSync(join(folder.path, 'data'), { recursive: true });
    const broken = '{ "version": 1, "folders": [ { "path": "/x", "trusted": "yes" } ] }';
    writeFileSync(file, broken);
    expect(trust.stateOf(project)).toMatchObject({ trusted: false, decided: false });
    expect(trust.list().problem).toMatch(/could not be used \(folders\.0\.trusted: .*\), so no folder is trusted/);
    expect(readFileSync(file, 'utf8')).toBe(broken);

    writeFileSync(file, 'not json at all');
    expect(trust.list().problem).toMatch(/it is not JSON/);

    time = 9_000;
    trust.decide(project, 'trust');
    expect(trust.list().problem).toBeNull();
    expect(trust.stateOf(project)).toMatchObject({ trusted: true });
    const aside = readdirSync(join(folder.path, 'data')).filter((name) => name.startsWith('folder-trust.json.invalid-'));
    expect(aside).toEqual(['folder-trust.json.invalid-9000']);
    expect(readFileSync(join(folder.path, 'data', aside[0] ?? ''), 'utf8')).toBe('not json at all');
  });

  it('never trusts as a whole the root, or a folder where others make folders', () => {
    const trust = new FolderTrustStore(
      file,
      () => time,
      (path) => path,
      [join(folder.path, 'code')],
    );
    expect(() => trust.decide('/', 'trust_parent')).toThrow(/cannot be trusted as a whole/);
    expect(() => trust.decide('/etc', 'trust_parent')).toThrow(/cannot be trusted as a whole/);
    expect(trust.stateOf(project).parent).toBeNull();
    expect(() => trust.decide(project, 'trust_parent')).toThrow(/cannot be trusted as a whole/);
    expect(trust.stateOf(join(project, 'sub')).parent).toBe(project);
    expect(trust.list().folders).toEqual([]);
  });

  it("trusting the parent takes back the folder's own restriction, for it or for everything under it", () => {
    const trust = store();
    trust.put({ path: project, trusted: false, scope: 'tree' });
    trust.decide(project, 'trust_parent');
    expect(trust.stateOf(project)).toMatchObject({ trusted: true });
    expect(trust.stateOf(join(project, 'sub'))).toMatchObject({ trusted: true });
  });

  it('takes paths written by hand as whole paths: a trailing separator or a dot changes nothing, a relative path is refused', () => {
    mkdirSync(join(folder.path, 'data'), { recursive: true });
    const write = (folders: unknown[]): void => writeFileSync(file, JSON.stringify({ version: 1, folders }));
    // The folder's own "restricted" beats its parent's trust, however the parent was written.
    write([
      { path: `${join(folder.path, 'code')}/./`, trusted: true, scope: 'tree' },
      { path: project, trusted: false, scope: 'folder' },
    ]);
    const trust = store();
    expect(trust.stateOf(project)).toMatchObject({ trusted: false, decided: true });
    expect(trust.stateOf(join(project, 'sub'))).toMatchObject({ trusted: true });
    write([{ path: '.', trusted: true, scope: 'tree' }]);
    expect(trust.stateOf(project)).toMatchObject({ trusted: false, decided: false });
    expect(trust.list().problem).toMatch(/"\." is not a whole path from the root/);
  });
});
