import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Tagger } from '../../../src/main/code-map/tagger';
import { WorkerTagger, sourceTagWorker } from '../../../src/main/code-map/worker-tagger';
import { temporaryFolder } from '../../helpers';
import { fixtureRepos } from './fixture-repos';

const opened: Array<{ dispose?(): Promise<void>; remove?(): void }> = [];
afterEach(async () => {
  for (const item of opened.splice(0)) {
    await item.dispose?.();
    item.remove?.();
  }
});

const sources = fixtureRepos.flatMap((repo) => Object.entries(repo.files));

describe('tagging on a thread of its own', () => {
  it('gives every language the tags the main thread would, many files at once', async () => {
    const threaded = new WorkerTagger(sourceTagWorker());
    opened.push(threaded);
    const local = new Tagger();
    const [fromThread, fromMain] = await Promise.all([
      Promise.all(sources.map(([path, text]) => threaded.tag(path, text))),
      Promise.all(sources.map(([path, text]) => local.tag(path, text))),
    ]);
    expect(fromThread).toEqual(fromMain);
    // Tagged on the thread itself, not by the main thread standing in for one that could not start.
    expect(threaded.onThread).toBe(true);
    expect(fromThread.filter((tags) => tags !== null && tags.tags.length > 0)).toHaveLength(sources.length);
    expect(await threaded.tag('notes.txt', 'plain text')).toBeNull();
  });

  it('a file that stops two threads is left out; when threads keep stopping, the main thread tags the rest', async () => {
    const folder = temporaryFolder('workbench-tag-thread-');
    opened.push(folder);
    // A thread that dies at its first file, every time it is started.
    const dying = join(folder.path, 'dying-worker.mjs');
    writeFileSync(
      dying,
      "import { parentPort } from 'node:worker_threads';\nparentPort.postMessage({ ready: true });\nparentPort.on('message', () => process.exit(7));\n",
    );
    const tagger = new WorkerTagger({ path: dying });
    opened.push(tagger);
    const [path, text] = sources[0] ?? ['', ''];
    const [otherPath, otherText] = sources[1] ?? ['', ''];
    expect(await tagger.tag(path, text)).toBeNull();
    expect(await tagger.tag(otherPath, otherText)).toEqual(await new Tagger().tag(otherPath, otherText));
    expect(tagger.onThread).toBe(false);

    const missing = new WorkerTagger({ path: join(folder.path, 'no-such-worker.mjs') });
    opened.push(missing);
    expect((await missing.tag(path, text))?.tags.length).toBeGreaterThan(0);
  });
});
