export { ScriptedModelServer, type ScriptedModelServerOptions } from './server';
export type { Protocol, RecordedRequest } from './recorded-request';
export type { Personality, ScriptedModel } from './local-servers';
export { textTurn, type ScriptedTurn, type ScriptStep, type ScriptFault } from './script';
export { type OllamaOptions } from './ollama';
export { type OllamaContext } from './ollama-context';
export { promptPieces, type LlamaSlotOptions, type LlamaSlotUse } from './llama-slots';
export { signatureOf } from './thinking';
