/*
 * Folder trust: whether the person trusts the authors of a workspace folder, so that what the folder brings (its
 * instruction files, the MCP servers it configures, its check command, its git programs) may steer the agent.
 */
import { z } from 'zod';

/** A decision the person made about a folder: for that folder alone, or for it and every folder under it. */
export const folderTrustEntrySchema = z
  .object({
    path: z.string().min(1).max(4096),
    trusted: z.boolean(),
    /** `folder`: this folder only; `tree`: this folder and every folder under it (a parent the person trusts). */
    scope: z.enum(['folder', 'tree']),
    /** When the person decided; an entry written by hand may leave it out. */
    decidedAt: z.number().int().nonnegative().default(0),
  })
  .strict();
export type FolderTrustEntry = z.infer<typeof folderTrustEntrySchema>;

export const maxFolderTrustEntries = 1_000;

/**
 * An instruction file the person read and let the model have though it carries the signs of a prompt injection: that
 * file with that content only (a change to it holds it back again).
 */
export const releasedFileSchema = z
  .object({
    path: z.string().min(1).max(4096),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    releasedAt: z.number().int().nonnegative(),
  })
  .strict();
export type ReleasedFile = z.infer<typeof releasedFileSchema>;

/** The trust file as it is kept: a version, then the decisions, then the instruction files let through. */
export const folderTrustFileSchema = z
  .object({
    version: z.literal(1),
    folders: z.array(folderTrustEntrySchema).max(maxFolderTrustEntries),
    released: z.array(releasedFileSchema).max(maxFolderTrustEntries).default([]),
  })
  .strict();
export type FolderTrustFile = z.infer<typeof folderTrustFileSchema>;

/** What is known of one folder: trusted or not, whether the person decided it, and which decision counts. */
export const folderTrustStateSchema = z.object({
  path: z.string(),
  trusted: z.boolean(),
  /** False until the person answered for this folder or one above it: such a folder runs restricted and is asked about. */
  decided: z.boolean(),
  /** The decision that counts (the nearest one), when there is one. */
  by: folderTrustEntrySchema.nullable(),
  /** The folder above that the prompt may offer to trust as a whole; null where none may be (the root, the temporary folder). */
  parent: z.string().nullable(),
});
export type FolderTrustState = z.infer<typeof folderTrustStateSchema>;

/** The person's answer at the trust prompt. */
export const folderTrustDecisionSchema = z.enum(['trust', 'trust_parent', 'restrict']);
export type FolderTrustDecision = z.infer<typeof folderTrustDecisionSchema>;

/** What a folder would bring into a session: what trusting it lets steer the agent. */
export const folderSurveySchema = z.object({
  path: z.string(),
  /** The instruction files that would go into the system prompt, nearest first, and the signs of an injection in each. */
  instructionFiles: z.array(
    z.object({
      path: z.string(),
      scope: z.string().optional(),
      signs: z.array(z.string()),
      /** A file with signs the person let the model have as it is now. */
      released: z.boolean(),
      /** Its content as read for this survey: a release names it, so a file changed since it was read is not let through. */
      sha256: z.string(),
    }),
  ),
  /** The MCP servers the folder's own configuration files name, with what each would start or reach. */
  mcpServers: z.array(z.object({ name: z.string(), from: z.string(), launch: z.string() })),
  /** The check commands the folder suggests (the person chooses one before any runs). */
  checkCommands: z.array(z.object({ command: z.string(), from: z.string() })),
  /** The `/` commands the folder's command folders hold. */
  commands: z.array(z.object({ name: z.string(), from: z.string() })),
  /** Programs the folder's git repository would start: settings of its own configuration and hooks. */
  gitPrograms: z.array(z.object({ source: z.string(), program: z.string() })),
  /** What could not be read, in words. */
  notes: z.array(z.string()),
});
export type FolderSurvey = z.infer<typeof folderSurveySchema>;

/** The trust file's decisions, and what is wrong with the file when it could not be used (every folder then restricted). */
export const folderTrustListSchema = z.object({
  folders: z.array(folderTrustEntrySchema),
  problem: z.string().nullable(),
  /** Where the file is kept, for the person who edits it by hand. */
  file: z.string(),
});
export type FolderTrustList = z.infer<typeof folderTrustListSchema>;

/** The autonomy an untrusted folder runs at, at most: every change asks. */
export const restrictedAutonomy = 'L1' as const;
