import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyPolicy, readUpdatePolicy, systemPolicyPath } from '../../../src/main/updates/update-policy';
import { defaultUpdateSettings, type UpdateSettings } from '../../../src/shared/updates';
import { temporaryFolder } from '../../helpers';

const person: UpdateSettings = { ...defaultUpdateSettings, enabled: true, feedUrl: 'https://mine.example.com/feed/' };

describe('the update policy', () => {
  const folders: Array<{ remove: () => void }> = [];
  const policyFile = (text: string): string => {
    const folder = temporaryFolder();
    folders.push(folder);
    const path = join(folder.path, 'policy.json');
    writeFileSync(path, text);
    return path;
  };
  afterEach(() => folders.splice(0).forEach((folder) => folder.remove()));

  it('is looked for where each system keeps what only an administrator writes', () => {
    expect(systemPolicyPath('linux', {})).toBe('/etc/agent-workbench/policy.json');
    expect(systemPolicyPath('darwin', {})).toBe('/Library/Application Support/Agent Workbench/policy.json');
    expect(systemPolicyPath('win32', { ProgramData: 'D:\\Data' })).toBe('D:\\Data\\Agent Workbench\\policy.json');
    expect(systemPolicyPath('win32', {})).toBe('C:\\ProgramData\\Agent Workbench\\policy.json');
  });

  it('leaves the person’s choices as they are when there is no policy file', () => {
    const reading = readUpdatePolicy('/no/such/folder/policy.json');
    expect(reading).toEqual({ path: '/no/such/folder/policy.json', policy: null, problem: null });
    expect(applyPolicy(person, reading)).toEqual({ settings: person, locked: { enabled: false, feedUrl: false } });
  });

  it('forces updates off, and says the choice is the policy’s', () => {
    const reading = readUpdatePolicy(policyFile('{ "version": 1, "updates": { "enabled": false } }'));
    expect(applyPolicy(person, reading)).toEqual({
      settings: { ...person, enabled: false },
      locked: { enabled: true, feedUrl: false },
    });
  });

  it('sets the feed and locks it, in place of the person’s', () => {
    const reading = readUpdatePolicy(policyFile('{ "updates": { "enabled": true, "feedUrl": "https://updates.example.org/workbench/" } }'));
    const applied = applyPolicy({ ...defaultUpdateSettings, feedUrl: 'https://mine.example.com/' }, reading);
    expect(applied.settings).toMatchObject({ enabled: true, feedUrl: 'https://updates.example.org/workbench/' });
    expect(applied.locked).toEqual({ enabled: true, feedUrl: true });
  });

  it('offers an unlocked feed only where the person set none', () => {
    const reading = readUpdatePolicy(policyFile('{ "updates": { "feedUrl": "https://updates.example.org/", "feedUrlLocked": false } }'));
    expect(applyPolicy(person, reading).settings.feedUrl).toBe('https://mine.example.com/feed/');
    expect(applyPolicy({ ...person, feedUrl: null }, reading).settings.feedUrl).toBe('https://updates.example.org/');
    expect(applyPolicy(person, reading).locked.feedUrl).toBe(false);
  });

  it.each([
    ['not JSON', '{ updates: off', /is not JSON/],
    [
      'a feed over plain http',
      '{ "updates": { "feedUrl": "http://updates.example.org/" } }',
      /updates\.feedUrl: it must start with https:\/\//,
    ],
    ['a misspelt field', '{ "updates": { "enable": false } }', /is not valid/],
    ['a list', '[]', /is not valid/],
  ])('reports a malformed file (%s), and turns updates off', (_what, text, problem) => {
    const reading = readUpdatePolicy(policyFile(text));
    expect(reading.problem).toMatch(problem);
    expect(reading.problem).toMatch(/updates are off/);
    expect(applyPolicy(person, reading)).toEqual({ settings: { ...person, enabled: false }, locked: { enabled: true, feedUrl: false } });
  });

  it('reports a policy that cannot be read, rather than taking it for none', () => {
    const folder = temporaryFolder();
    folders.push(folder);
    const path = join(folder.path, 'policy.json');
    mkdirSync(path);
    expect(readUpdatePolicy(path).problem).toMatch(/could not be read \(EISDIR\): updates are off/);
  });
});
