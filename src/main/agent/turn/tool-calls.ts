/*
 * A call the model asked for, parsed and assessed, and given its result.
 */
import type { ToolCallStatus } from '../../../shared/events';
import type { InjectionFinding } from '../../../shared/guardrails';
import type { ToolCallRequest } from '../ports/model-provider';
import type { RiskAssessment, ToolRegistry } from '../ports/tools';
import { capForDisk, truncateForModel } from '../rules/truncate';
import type { PreparedCall } from './loop-state';
import type { StepContext } from './step-context';

/** Deeper nesting than any tool's input has is refused: serializing it again (to journal it) would exhaust the stack. */
export const maxArgumentDepth = 64;
/** Longer arguments are refused whole: write_file's largest content (5 MB), escaped, fits with room. */
export const maxArgumentsLength = 16 * 1024 * 1024;
/** What is kept of refused arguments, as text: enough to show what was sent. */
const refusedArgumentsKept = 2_000;

/** How deep a parsed JSON value nests (a scalar is 0), walked without recursion; stops counting past `limit`. */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop() as { value: unknown; depth: number };
    if (current === null || typeof current !== 'object') continue;
    const inner = depth + 1;
    deepest = Math.max(deepest, inner);
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push({ value: child, depth: inner });
  }
  return deepest;
}

/** Why arguments are refused before anything else is done with them, or null. */
function argumentsTooLarge(name: string, text: string, parsed: unknown): string | null {
  if (text.length > maxArgumentsLength)
    return `The arguments of ${name} are ${text.length} characters long, over the limit of ${maxArgumentsLength}. Send a smaller call.`;
  if (nestingDepth(parsed, maxArgumentDepth) > maxArgumentDepth)
    return `The arguments of ${name} nest deeper than ${maxArgumentDepth} levels. No tool takes input like that; send them again as plain values.`;
  return null;
}

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
  // Checked before anything is stored: the journal and the accounting keep the start of the text instead.
  const oversize = jsonError === null ? argumentsTooLarge(request.name, request.arguments, rawInput) : null;
  if (oversize !== null) {
    const kept = request.arguments.slice(0, refusedArgumentsKept);
    rawInput = kept.length < request.arguments.length ? `${kept}… (${request.arguments.length} characters)` : kept;
    jsonError = oversize;
  }
  // A tool of another folder's MCP server is not this session's: the model is told there is no such tool.
  const tool = tools.get(request.name, workspacePath) ?? null;
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
        .offered(deniedTools(), workspacePath)
        .map((candidate) => candidate.name)
        .join(', ') || 'none';
    return refused(`There is no tool named ${request.name}. Available tools: ${known}.`);
  }
  if (jsonError) return refused(jsonError);
  const parsed = tool.parse(rawInput);
  if (!parsed.ok) return refused(parsed.message);
  let assessment: RiskAssessment;
  let summary: string;
  try {
    assessment = tool.assess(parsed.input, { workspacePath });
    summary = tool.summarize(parsed.input);
  } catch (error) {
    // A call that cannot be judged does not run; the model is told why, and the turn goes on.
    return refused(
      `The risk of this ${request.name} call could not be judged (${error instanceof Error ? error.message : String(error)}), so it was not run. Send a simpler call.`,
    );
  }
  return { request, tool, rawInput, input: parsed.input, invalid: null, assessment, summary, preview: null };
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
 * added to what the model sees next, and checkpointed. `injection`: the signs of a prompt injection
 * found in it; with `reviewId` the result is held for the person instead, and is neither added nor
 * checkpointed until they answer (see `result-review.ts`). Returns what the model is (or would be) given.
 */
export function giveResult(
  { setup, services, writer }: StepContext,
  call: PreparedCall,
  status: ToolCallStatus,
  output: string,
  latencyMs: number,
  guard: { readonly injection?: InjectionFinding; readonly reviewId?: string } = {},
): string {
  const { turnId, sessionId } = setup;
  const toolCallId = call.request.id;
  const forModel = truncateForModel(output);
  const onDisk = capForDisk(output);
  const truncated = forModel.truncated || onDisk.capped;
  const { injection, reviewId } = guard;
  writer.journal([
    {
      type: 'tool_call_finished',
      turnId,
      toolCallId,
      status,
      output: forModel.text,
      outputBytes: onDisk.bytes,
      truncated,
      latencyMs,
      ...(injection ? { injection } : {}),
    },
    ...(reviewId === undefined ? [] : [{ type: 'tool_result_held' as const, turnId, toolCallId, reviewId, tool: call.request.name }]),
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
  if (reviewId !== undefined) return forModel.text;
  writer.addToolResult(call.request, forModel.text, status);
  writer.checkpoint('tool');
  return forModel.text;
}
