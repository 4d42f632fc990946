/*
 * What a folder would bring into a session, for the trust prompt: its instruction files (with the signs of an
 * injection in each), the MCP servers it configures, the check commands it suggests, its `/` commands and the
 * programs its git repository would start.
 */

import type { FolderSurvey } from '../../shared/folder-trust';
import { screened } from '../agent/context/system-prompt';
import { readRepositoryPrograms } from '../git/repository-programs';
import { readProjectServers } from '../mcp/project-servers';
import { suggestCheckCommands } from '../workspace/check-commands';
import { loadCustomCommands } from '../workspace/command-files';
import { InstructionFiles, instructionDigest, withReleases } from '../workspace/instruction-files';
import type { FolderTrustSource } from '../agent/ports/folder-trust';
import { WorkspaceFiles } from '../workspace/workspace-files';

const maxListed = 50;

export interface SurveyOptions {
  /** The app's data folder: never read as part of a workspace, and its own commands are not the folder's. */
  readonly dataDir: string;
  /** The person's git and its environment, to ask what the repository would start; none: not asked. */
  readonly git?: { readonly program: string; readonly env: NodeJS.ProcessEnv };
  /** The files the person let through though they carry signs; none: none was. */
  readonly trust?: Pick<FolderTrustSource, 'isReleased'>;
}

/** What a folder would bring. Nothing is run: files are read without following links, and git only reads configuration. */
export async function surveyFolder(path: string, options: SurveyOptions): Promise<FolderSurvey> {
  const notes: string[] = [];
  const loaded = await new InstructionFiles().load(path);
  const instructions = options.trust ? withReleases(loaded, path, options.trust) : loaded;
  notes.push(...instructions.notes);
  const files = new WorkspaceFiles(path, { protectedRoots: [options.dataDir] });
  const reader = files.reader();
  try {
    const servers = await readProjectServers(reader);
    notes.push(...servers.notes);
    const checkCommands = await suggestCheckCommands(reader);
    const commands = await loadCustomCommands({ workspacePath: path, dataDir: options.dataDir });
    let gitPrograms: FolderSurvey['gitPrograms'] = [];
    if (options.git) {
      try {
        gitPrograms = readRepositoryPrograms(reader.root, options.git.program, options.git.env).map((program) => ({
          source: program.source,
          program: program.verbs === 'every' ? 'every git command' : `git ${program.verbs.slice(0, 6).join(', ')}`,
        }));
      } catch (error) {
        notes.push(`The folder's git configuration could not be read: ${(error as Error).message}`);
      }
    }
    return {
      path: reader.root,
      instructionFiles: instructions.files.slice(0, maxListed).map((file) => ({
        path: file.path,
        ...(file.scope ? { scope: file.scope } : {}),
        signs: screened(file.text).map((sign) => sign.explanation),
        released: file.released === true,
        sha256: instructionDigest(file.text),
      })),
      mcpServers: servers.servers.slice(0, maxListed),
      checkCommands,
      commands: commands.commands
        .filter((command) => command.source === 'workspace')
        .slice(0, maxListed)
        .map((command) => ({ name: command.name, from: command.path })),
      gitPrograms: gitPrograms.slice(0, maxListed),
      notes: notes.slice(0, 20),
    };
  } finally {
    reader.close();
  }
}
