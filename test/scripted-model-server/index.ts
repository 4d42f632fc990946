export { ScriptedModelServer, type Protocol, type RecordedRequest, type ScriptedModelServerOptions } from './server';
export type { Personality, ScriptedModel } from './local-servers';
export { textTurn, type ScriptedTurn, type ScriptStep, type ScriptFault } from './script';
export { type OllamaOptions } from './ollama';
export { type OllamaContext } from './ollama-context';
export { signatureOf } from './thinking';
