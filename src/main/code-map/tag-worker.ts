/*
 * The code map's tagging thread: parses source files with tree-sitter off the app's main thread and sends their tags
 * back. Its own entry: built as `tag-worker.js` beside the main process's bundle, or run from source with tsx.
 */

import { parentPort } from 'node:worker_threads';
import { GrammarError, Tagger } from './tagger';
import type { TagReply, TagRequest } from './worker-tagger';

const tagger = new Tagger();
const port = parentPort;
if (port === null) throw new Error('The tagging thread runs as a worker thread only.');

port.postMessage({ ready: true } satisfies TagReply);

port.on('message', (request: TagRequest) => {
  tagger.tag(request.path, request.source).then(
    (tags) => port.postMessage({ id: request.id, tags } satisfies TagReply),
    (error: unknown) =>
      port.postMessage(
        (error instanceof GrammarError
          ? { id: request.id, grammar: { language: error.language, reason: error.reason } }
          : { id: request.id, error: error instanceof Error ? error.message : String(error) }) satisfies TagReply,
      ),
  );
});
