import type { LoopbackTransport } from '../test/host/loopback-transport';

/** Saves the scripted server as an endpoint and opens a session on its model, through the IPC as the page would. */
export async function scriptedSession(transport: LoopbackTransport, baseUrl: string): Promise<{ providerId: string; sessionId: string }> {
  const saved = await transport.invoke('provider:save', { kind: 'openai-compatible', name: 'S', baseUrl });
  if (!saved.ok) throw new Error(saved.error.message);
  const providerId = (saved.value as { id: string }).id;
  const created = await transport.invoke('session:create', {});
  if (!created.ok) throw new Error(created.error.message);
  const sessionId = (created.value as { id: string }).id;
  const chosen = await transport.invoke('session:setModel', { sessionId, model: { providerId, model: 'scripted-model' } });
  if (!chosen.ok) throw new Error(chosen.error.message);
  return { providerId, sessionId };
}
