/*
 * What `/init` asks the agent: to look at the folder and draft its AGENTS.md, or improve the one there.
 */

/**
 * The prompt `/init` sends as an ordinary message, so whatever the agent writes waits at the usual gate.
 * `instructionFiles` are the instruction files at the workspace's root (`AGENTS.md`, `CLAUDE.md`…): an AGENTS.md there
 * is improved rather than replaced, and the others are read for what they already say. `stress` is what the person
 * typed after `/init`.
 */
export function initPrompt(instructionFiles: readonly string[], stress: string): string {
  const exists = instructionFiles.includes('AGENTS.md');
  const others = instructionFiles.filter((name) => name !== 'AGENTS.md');
  const lines = [
    exists
      ? 'Look at this folder and improve its AGENTS.md: the project instructions that an AI coding agent (and a new contributor) reads before working here.'
      : 'Look at this folder and draft an AGENTS.md at its root: the project instructions that an AI coding agent (and a new contributor) reads before working here.',
    '',
    'First explore: list the files; read the README, the build and package files (package.json, Makefile, pyproject.toml, Cargo.toml, go.mod and the like), the CI configuration, the linter and formatter settings, and a few representative source and test files.',
    '',
    'Then write, briefly and concretely:',
    '- what the project is, and how it is laid out (the main folders and what each holds);',
    '- how to install its dependencies, build it, run it, test it (the whole suite and a single test) and lint or format it, as exact commands;',
    '- the conventions its code follows (style, naming, error handling, tests, commit messages), and anything a newcomer would get wrong.',
    '',
    'Only write what the folder shows: never invent a command. Keep it short (under about 100 lines of Markdown).',
  ];
  if (exists)
    lines.push(
      '',
      'An AGENTS.md is already there: read it first and improve it rather than replace it. Keep what is still right, correct what is out of date, add what is missing, and change it with edits rather than rewriting the whole file.',
    );
  if (others.length > 0)
    lines.push(
      '',
      `The folder also has ${others.join(', ')}: read ${others.length === 1 ? 'it' : 'them'} and carry over what still holds.`,
    );
  if (stress.trim() !== '') lines.push('', `Also: ${stress.trim()}`);
  return lines.join('\n');
}
