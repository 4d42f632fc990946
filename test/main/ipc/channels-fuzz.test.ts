import { statSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCodeSchema } from '../../../src/shared/errors';
import { channelNames, channels, type ChannelName } from '../../../src/shared/ipc/contract';
import type { WorkbenchCore } from '../../../src/main/core/workbench-core';
import { temporaryFolder } from '../../helpers';
import { LoopbackTransport } from '../../host/loopback-transport';
import { createNodeCore } from '../../host/node-core';

/** Payloads per channel; `IPC_FUZZ_RUNS` and `IPC_FUZZ_SEED` change the run (the seed is printed on a failure). */
const runs = Number(process.env['IPC_FUZZ_RUNS'] ?? 2000);
const seed = Number(process.env['IPC_FUZZ_SEED'] ?? 20261127);

/** A small seeded generator (mulberry32): the same seed, the same payloads. */
function generator(start: number): () => number {
  let state = start >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

/** The field names a channel's input may have, from its schema: a payload built on them reaches deeper. */
function fieldsOf(schema: z.ZodType): string[] {
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodUnion) return [...new Set((schema.options as z.ZodType[]).flatMap(fieldsOf))];
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault)
    return fieldsOf(schema.unwrap() as z.ZodType);
  if (schema instanceof z.ZodPipe) return fieldsOf(schema.in as z.ZodType);
  return [];
}

const oddStrings = [
  '',
  ' ',
  '..',
  '../../etc/passwd',
  '/',
  '/etc/passwd',
  'C:\\Windows\\System32',
  'a\0b',
  '\u202e\u2066evil',
  '\ud800',
  '__proto__',
  'constructor',
  '%s%n',
  '${7*7}',
  '$(touch /tmp/fuzzed)',
  'x'.repeat(70_000),
  '0',
  '-1',
  'NaN',
  'L9',
  'allow_forever',
];
const oddNumbers = [0, -0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 2 ** 53, -(2 ** 31), 1e308];
const oddKeys = ['__proto__', 'constructor', 'prototype', 'toString', '', 'x'.repeat(300), 'sessionId', 'path'];

/** A value of any kind, nested a little. */
function anyValue(random: () => number, depth: number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const kind = Math.floor(random() * (depth > 2 ? 6 : 9));
  switch (kind) {
    case 0:
      return null;
    case 1:
      return undefined;
    case 2:
      return random() < 0.5;
    case 3:
      return pick(oddNumbers);
    case 4:
      return pick(oddStrings);
    case 5:
      return Math.floor(random() * 1e9).toString(36);
    case 6:
      return Array.from({ length: Math.floor(random() * 4) }, () => anyValue(random, depth + 1));
    default: {
      const object: Record<string, unknown> = {};
      const keys = 1 + Math.floor(random() * 3);
      for (let index = 0; index < keys; index += 1)
        Object.defineProperty(object, random() < 0.5 ? pick(oddKeys) : Math.floor(random() * 1e6).toString(36), {
          value: anyValue(random, depth + 1),
          enumerable: true,
          configurable: true,
          writable: true,
        });
      return object;
    }
  }
}

/**
 * A payload no channel can take: any value that is not an object, or an object with the channel's own field names (at
 * least one) holding values of any kind, with an unknown field now and then.
 */
function payloadFor(random: () => number, fields: readonly string[]): unknown {
  if (fields.length === 0 || random() < 0.3) {
    const value = anyValue(random, 0);
    // `{}` is the one payload a channel without input takes: never sent.
    return value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0 ? 'empty' : value;
  }
  const payload: Record<string, unknown> = {};
  const count = 1 + Math.floor(random() * fields.length);
  for (let index = 0; index < count; index += 1) payload[fields[Math.floor(random() * fields.length)] as string] = anyValue(random, 1);
  if (random() < 0.2) payload[`unknown${Math.floor(random() * 100)}`] = anyValue(random, 1);
  return payload;
}

describe('every IPC channel under random and malformed payloads', () => {
  let folder: ReturnType<typeof temporaryFolder>;
  let transport: LoopbackTransport;
  let core: WorkbenchCore;
  let watcher: BetterSqlite3.Database;
  let sessionId = '';
  const codes = new Set<string>(errorCodeSchema.options);

  beforeAll(async () => {
    folder = temporaryFolder();
    transport = new LoopbackTransport();
    core = (await createNodeCore({ dataDir: folder.path, transport })).core;
    // A session with a workspace, so payloads with real-looking ids meet real state.
    core.rememberChosenPath(folder.path);
    const created = await transport.invokeFromPage('session:create', { workspacePath: folder.path });
    if (!created.ok) throw new Error(created.error.message);
    sessionId = (created.value as { id: string }).id;
    // Payloads name it now and then, so they meet the session's state past the "not found".
    oddStrings.push(sessionId, folder.path);
    // Another connection to the database: its data_version moves when the app's connection commits anything.
    watcher = new BetterSqlite3(join(folder.path, 'workbench.sqlite'), { readonly: true });
  });
  afterAll(async () => {
    watcher.close();
    await core.close();
    folder.remove();
  });

  const settingsStamp = (): string => {
    const found = statSync(join(folder.path, 'settings.json'), { throwIfNoEntry: false });
    return found ? `${found.mtimeMs}:${found.size}` : '-';
  };

  it('sees a write the app makes, so a refusal that wrote would be seen too', async () => {
    const version = watcher.pragma('data_version', { simple: true });
    expect(await transport.invokeFromPage('session:rename', { sessionId, title: 'Renamed' })).toMatchObject({ ok: true });
    expect(watcher.pragma('data_version', { simple: true })).not.toBe(version);
  });

  it(`answers ${runs} payloads per channel with data, and each refusal is a typed error that changed nothing`, async () => {
    const random = generator(seed);
    const problems: string[] = [];
    let refused = 0;
    for (const channel of channelNames as readonly ChannelName[]) {
      const fields = fieldsOf(channels[channel].input as z.ZodType);
      for (let run = 0; run < runs; run += 1) {
        const payload = payloadFor(random, fields);
        const version = watcher.pragma('data_version', { simple: true });
        const settings = settingsStamp();
        let result: Awaited<ReturnType<LoopbackTransport['invokeFromPage']>>;
        try {
          result = await transport.invokeFromPage(channel, payload);
        } catch (error) {
          problems.push(`${channel} threw ${String(error)} (seed ${seed}, run ${run})`);
          continue;
        }
        if (result.ok) continue;
        refused += 1;
        if (!codes.has(result.error.code) || typeof result.error.message !== 'string' || result.error.message === '')
          problems.push(`${channel} answered an untyped error ${JSON.stringify(result.error).slice(0, 200)} (seed ${seed}, run ${run})`);
        if (result.error.code === 'internal')
          problems.push(`${channel} failed inside: ${result.error.message.slice(0, 200)} (seed ${seed}, run ${run})`);
        if (watcher.pragma('data_version', { simple: true }) !== version)
          problems.push(`${channel} wrote to the database though it refused (seed ${seed}, run ${run})`);
        if (settingsStamp() !== settings) problems.push(`${channel} changed the settings though it refused (seed ${seed}, run ${run})`);
        if (problems.length > 20) break;
      }
    }
    expect(problems).toEqual([]);
    // Nearly every payload is refused: the few a channel takes are the ones built on its own fields.
    expect(refused).toBeGreaterThan(channelNames.length * runs * 0.9);
  }, 600_000);
});
