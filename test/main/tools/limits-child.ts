/**
 * The app's side of a run that may hurt the machine, in a process of its own so the test can run it as an ordinary user:
 * runs one command with run_command in the real sandbox under the limits given, and prints one JSON line with the
 * result and the longest pause of a 20 ms timer meanwhile (how responsive the app stayed).
 *
 * Usage: limits-child.ts '{"command": "...", "timeoutSeconds": 3, "limits": {...}, "niceness": 10}'
 */
import { writeSync } from 'node:fs';
import { BashParser } from '../../../src/main/shell/bash-parser';
import { runCommandTool } from '../../../src/main/tools/run-command';
import { detectSandbox } from '../../../src/main/tools/sandbox';
import { defaultCommandLimits, type CommandLimits } from '../../../src/shared/domain';
import { temporaryFolder } from '../../helpers';

const request = JSON.parse(process.argv[2] ?? '{}') as {
  command: string;
  timeoutSeconds: number;
  limits: Partial<CommandLimits>;
  niceness?: number;
};
const workspace = temporaryFolder('workbench-limits-');
const tool = runCommandTool({
  shell: await BashParser.load(),
  sandbox: detectSandbox(),
  niceness: () => request.niceness ?? 10,
  limits: () => ({ ...defaultCommandLimits, ...request.limits }),
});
const parsed = tool.parse({ command: request.command, timeoutSeconds: request.timeoutSeconds });
if (!parsed.ok) throw new Error(parsed.message);

let last = Date.now();
let longestPause = 0;
const ticking = setInterval(() => {
  longestPause = Math.max(longestPause, Date.now() - last);
  last = Date.now();
}, 20);
const result = await tool.execute(parsed.input, {
  signal: new AbortController().signal,
  sessionId: 's',
  toolCallId: 'c',
  workspacePath: workspace.path,
  emitOutput: () => undefined,
});
clearInterval(ticking);
workspace.remove();
writeSync(1, `${JSON.stringify({ ...result, longestPause })}\n`);
