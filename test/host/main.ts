import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ScriptedModelServer } from '../scripted-model-server';
import { startTestHost } from './host';

/*
 * Starts the test host by hand: the real core and renderer in any browser, with a scripted model
 * endpoint already configured that answers every message with a short demo reply.
 *   npm run host -- --data /tmp/workbench-demo
 */
const { values } = parseArgs({ options: { data: { type: 'string' }, workspace: { type: 'string' } } });
const dataDir = values.data ?? join(process.cwd(), '.workbench-host-data');
mkdirSync(dataDir, { recursive: true });
const server = await ScriptedModelServer.start({
  fallback: (request) => {
    const messages = request.body['messages'] as Array<{ role: string; content: unknown }> | undefined;
    const last = messages?.at(-1);
    const asked = typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? '');
    return {
      steps: [
        { kind: 'reasoning', text: 'The person asked something; the scripted model answers with a fixed demo reply.' },
        {
          kind: 'text',
          text: `You said: *${asked.slice(0, 200)}*\n\nThis answer comes from the **scripted model server**, streamed in small chunks.\n\n\`\`\`ts\nconst answer = 42;\n\`\`\`\n`,
          chunkSize: 3,
        },
      ],
      chunkDelayMs: 15,
    };
  },
});
const host = await startTestHost({
  dataDir,
  folderPicker: { pickFolder: async () => values.workspace ?? process.cwd() },
  builtinTools: true,
  // As the app: a folder is asked about before it can steer the agent.
  folderTrust: 'ask',
});
const providers = await host.invoke('provider:list', {});
if (providers.ok && (providers.value as unknown[]).length === 0) {
  const saved = await host.invoke('provider:save', {
    kind: 'openai-compatible',
    name: 'Scripted demo model',
    baseUrl: server.openaiBaseUrl,
  });
  if (saved.ok)
    await host.invoke('settings:update', { defaultModel: { providerId: (saved.value as { id: string }).id, model: 'scripted-model' } });
}
console.log(`Test host: ${host.url}`);
console.log(`Data: ${dataDir}`);
const stop = async (): Promise<void> => {
  await host.close();
  await server.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
