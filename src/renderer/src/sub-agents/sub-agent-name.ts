/*
 * A sub-agent named in words: its session's title ("Sub-agent: Survey the notes") as `Sub-agent “Survey the notes”`.
 */

const titled = /^Sub-agent: (.*)$/s;

/** `Sub-agent “goal”` from a sub-agent's title; a title of another shape as it is. */
export function subAgentName(title: string): string {
  const goal = titled.exec(title)?.[1];
  return goal === undefined ? title : `Sub-agent “${goal}”`;
}
