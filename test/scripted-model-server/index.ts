export { ScriptedModelServer, type Protocol, type RecordedRequest, type ScriptedModelServerOptions } from './server';
export { textTurn, type ScriptedTurn, type ScriptStep, type ScriptFault } from './script';
