import { runCheckpointsBench } from './checkpoints';
import { runCodeMapBench } from './code-map';
import { runContextBench } from './context';
import { runDelegateBench } from './delegate';
import { runGitBench } from './git';
import { runLocalBench } from './local';
import { runPrefillBench } from './prefill';
import { runPromptBench } from './prompt';
import { runPtyBench } from './pty';
import { runRuntimeBench } from './runtime';
import { runSessionOpenBench } from './session-open';
import { runStreamBench } from './stream';
import { runToolsBench } from './tools';
import { runTrashBench } from './trash';
import { runUiBench } from './ui';

/** `npm run bench -- <name>`: runs one benchmark; its last line is one JSON object. */
const benches: Record<string, () => Promise<void>> = {
  stream: runStreamBench,
  runtime: runRuntimeBench,
  pty: runPtyBench,
  checkpoints: runCheckpointsBench,
  ui: runUiBench,
  'session-open': runSessionOpenBench,
  context: runContextBench,
  tools: runToolsBench,
  prompt: runPromptBench,
  local: runLocalBench,
  prefill: runPrefillBench,
  delegate: runDelegateBench,
  'code-map': runCodeMapBench,
  git: runGitBench,
  trash: runTrashBench,
};

const name = process.argv[2];
const bench = name ? benches[name] : undefined;
if (!bench) {
  console.error(`Usage: npm run bench -- <${Object.keys(benches).join('|')}>`);
  process.exit(2);
}
await bench();
