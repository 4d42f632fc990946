import type { ToolCallStatus } from '../../shared/events';
import type { ToolCallRequest } from './model-provider';
import type { RiskAssessment, ToolRegistry } from './tools';
import { capForDisk, truncateForModel } from './truncate';
import type { PreparedCall, StepContext } from './turn-types';

/** Parses and assesses a call as the model asked for it, or says why it cannot run. */
export function prepareCall(
  request: ToolCallRequest,
  tools: ToolRegistry,
  { workspacePath, deniedTools }: { readonly workspacePath: string | null; readonly deniedTools: () => readonly string[] },
): PreparedCall {
  let rawInput: unknown = request.arguments;
  let jsonError: string | null = null;
  try {
    rawInput = JSON.parse(request.arguments || '{}');
  } catch (error) {
    jsonError = `The arguments of ${request.name} are not valid JSON (${(error as Error).message}). Send them again as one JSON object.`;
  }
  const tool = tools.get(request.name) ?? null;
  const fallback: RiskAssessment = { level: tool?.baseRisk ?? 'read_only', reason: 'not run' };
  const refused = (invalid: string): PreparedCall => ({
    request,
    tool,
    rawInput,
    input: null,
    invalid,
    assessment: fallback,
    summary: request.name,
    preview: null,
  });
  if (!tool) {
    const known =
      tools
        .offered(deniedTools())
        .map((candidate) => candidate.name)
        .join(', ') || 'none';
    return refused(`There is no tool named ${request.name}. Available tools: ${known}.`);
  }
  if (jsonError) return refused(jsonError);
  const parsed = tool.parse(rawInput);
  if (!parsed.ok) return refused(parsed.message);
  return {
    request,
    tool,
    rawInput,
    input: parsed.input,
    invalid: null,
    assessment: tool.assess(parsed.input, { workspacePath }),
    summary: tool.summarize(parsed.input),
    preview: null,
  };
}

/** Works out what each call would change, for the events and gates that show it. */
export async function addPreviews(calls: readonly PreparedCall[], workspacePath: string | null): Promise<void> {
  await Promise.all(
    calls.map(async (call) => {
      if (call.tool && call.invalid === null) call.preview = await call.tool.preview(call.input, { workspacePath });
    }),
  );
}

/**
 * Gives a call its result: journalled (cut for the model, whole up to a cap on disk), accounted,
 * added to what the model sees next, and checkpointed.
 */
export function giveResult(
  { setup, services, writer }: StepContext,
  call: PreparedCall,
  status: ToolCallStatus,
  output: string,
  latencyMs: number,
): void {
  const { turnId, sessionId } = setup;
  const toolCallId = call.request.id;
  const forModel = truncateForModel(output);
  const onDisk = capForDisk(output);
  const truncated = forModel.truncated || onDisk.capped;
  writer.journal([
    { type: 'tool_call_finished', turnId, toolCallId, status, output: forModel.text, outputBytes: onDisk.bytes, truncated, latencyMs },
  ]);
  const at = services.clock.now();
  const input = typeof call.rawInput === 'string' ? call.rawInput : JSON.stringify(call.rawInput);
  writer.stage(() =>
    services.accounting.recordToolCall({
      id: toolCallId,
      sessionId,
      turnId,
      tool: call.request.name,
      input,
      output: onDisk.text,
      outputBytes: onDisk.bytes,
      truncated: onDisk.capped,
      status,
      latencyMs,
      at,
    }),
  );
  writer.addToolResult(call.request, forModel.text, status);
  writer.checkpoint('tool');
}
