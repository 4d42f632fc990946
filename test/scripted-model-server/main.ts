import { ScriptedModelServer } from './server';

/*
 * The scripted model server as a process of its own, as a real model server would be. It prints
 * one JSON line with its URL; turns are queued with POST /__script/enqueue {"turns": [...]}.
 */
const server = await ScriptedModelServer.start({ countPrompts: process.env['SCRIPTED_COUNT_PROMPTS'] !== '0' });
console.log(JSON.stringify({ url: server.url }));
const stop = (): void => {
  void server.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
