/*
 * Checkpoints in words for the history (the message, the answer, the tool and its target), and the checkpoint right
 * after a message.
 */

import type { ApprovalDecision } from '../../../shared/domain';
import type { ViewCheckpoint, ViewGateAnswer, ViewMessage } from '../../../shared/session-view';

/** How long an allow at a gate lasts, in words after "You allowed <tool>". */
const allowWords: Readonly<Record<Exclude<ApprovalDecision, 'deny'>, string>> = {
  allow_once: 'once',
  allow_5m: 'for 5 min',
  allow_30m: 'for 30 min',
  allow_1h: 'for 1 h',
  allow_5h: 'for 5 h',
  allow_session: 'for this session',
};

/** The person's answer at a gate, as the history names its checkpoint: "You allowed write_file once". */
export function answerWords(answer: ViewGateAnswer): string {
  switch (answer.gate) {
    case 'call':
      return answer.decision === 'deny' ? `You denied ${answer.tool}` : `You allowed ${answer.tool} ${allowWords[answer.decision]}`;
    case 'plan':
      return answer.decision === 'approve'
        ? 'You approved the plan'
        : answer.decision === 'reject'
          ? 'You rejected the plan'
          : 'You asked for another plan';
    case 'result':
      return answer.decision === 'release' ? `You let the result of ${answer.tool} in` : `You withheld the result of ${answer.tool}`;
  }
}

/** The first words of a text, on one line. */
export function firstWords(text: string, limit = 60): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= limit ? line : `${line.slice(0, limit - 1).trimEnd()}…`;
}

/** A call in words: the tool and its target; work handed on names the sub-agents that did it. */
function callWords(call: ViewMessage['toolCalls'][number]): string {
  const ran = call.state === 'running' || call.state === 'succeeded';
  const goal = ran && typeof call.input === 'object' && call.input !== null && 'goal' in call.input ? call.input.goal : null;
  if (call.tool === 'delegate' && typeof goal === 'string') return `Sub-agent “${firstWords(goal, 50)}”`;
  if (call.tool === 'run_plan' && typeof goal === 'string') return `Plan “${firstWords(goal, 50)}”, by its sub-agents`;
  return `${call.tool} ${firstWords(call.summary, 50)}`.trim();
}

/**
 * What happened at each checkpoint, in words a person can tell apart: the first words of the message, what the answer
 * said or asked for, the tool and its target, the answer given at a gate. In the checkpoints' order.
 */
export function checkpointLabels(checkpoints: readonly ViewCheckpoint[], messages: readonly ViewMessage[]): string[] {
  const byTurn = new Map<string, ViewMessage[]>();
  for (const message of messages) byTurn.set(message.turnId, [...(byTurn.get(message.turnId) ?? []), message]);
  // Each answer and each tool result of a turn has its checkpoint, in the turn's order.
  const answersSeen = new Map<string, number>();
  const toolsSeen = new Map<string, number>();
  return checkpoints.map((checkpoint) => {
    const turn = byTurn.get(checkpoint.turnId) ?? [];
    switch (checkpoint.source) {
      case 'input': {
        const question = turn.find((message) => message.role === 'user');
        return question ? `You: “${firstWords(question.text)}”` : 'Your message';
      }
      case 'model': {
        const index = answersSeen.get(checkpoint.turnId) ?? 0;
        answersSeen.set(checkpoint.turnId, index + 1);
        const answer = turn.filter((message) => message.role === 'assistant')[index];
        if (!answer) return 'Answer';
        if (answer.text.trim() !== '') return `Answer: “${firstWords(answer.text)}”`;
        const calls = answer.toolCalls.length;
        return calls === 0 ? 'Answer' : `Answer: asked for ${calls} tool call${calls === 1 ? '' : 's'}`;
      }
      case 'tool': {
        const index = toolsSeen.get(checkpoint.turnId) ?? 0;
        toolsSeen.set(checkpoint.turnId, index + 1);
        const calls = turn.flatMap((message) => message.toolCalls);
        // The call whose result was written last before this checkpoint: calls run side by side finish in any order.
        const at = checkpoint.journalSeq;
        const finished = at === undefined ? [] : calls.filter((call) => call.finishedSeq !== undefined && call.finishedSeq < at);
        const call = finished.length > 0 ? finished.reduce((a, b) => ((a.finishedSeq ?? 0) > (b.finishedSeq ?? 0) ? a : b)) : calls[index];
        return call ? callWords(call) : 'Tool result';
      }
      case 'approval':
        return checkpoint.answer ? answerWords(checkpoint.answer) : 'Your answer at a gate';
      case 'compaction':
        return 'Older messages summarized';
      default:
        return checkpoint.source;
    }
  });
}

/**
 * The checkpoint right after a message: a message's own (its turn's input), or an answer's (the turn's answers and
 * their checkpoints in order). Null when there is none, as for a message whose turn saved nothing yet.
 */
export function checkpointAfter(
  checkpoints: readonly ViewCheckpoint[],
  messages: readonly ViewMessage[],
  message: ViewMessage,
): ViewCheckpoint | null {
  const ofTurn = checkpoints.filter((checkpoint) => checkpoint.turnId === message.turnId);
  if (message.role === 'user') return ofTurn.find((checkpoint) => checkpoint.source === 'input') ?? null;
  const answers = messages.filter((candidate) => candidate.turnId === message.turnId && candidate.role === 'assistant');
  const index = answers.findIndex((candidate) => candidate.id === message.id);
  return index === -1 ? null : (ofTurn.filter((checkpoint) => checkpoint.source === 'model')[index] ?? null);
}
