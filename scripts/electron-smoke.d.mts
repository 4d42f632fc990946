/** The file system as the checks read it. */
export interface SmokeFiles {
  exists(path: string): boolean;
  /** The file's text, or null when it cannot be read. */
  read(path: string): string | null;
  executable(path: string): boolean;
}

export interface ElectronBinaryOptions {
  /** The `electron` package's folder, or null where it is not installed. */
  readonly packageDir?: string | null;
  readonly env?: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
  /** Paths inside it are shown relative to it. */
  readonly root?: string;
  readonly files?: SmokeFiles;
}

export interface ElectronDisplayOptions {
  readonly env?: NodeJS.ProcessEnv;
  readonly platform?: NodeJS.Platform;
  readonly hasProgram?: (program: string) => boolean;
}

export type ElectronBinary = { readonly path: string } | { readonly missing: string };
export type ElectronDisplay = { readonly wrapper: readonly string[] } | { readonly missing: string };
export type ElectronSmokeReadiness =
  | { readonly ready: true; readonly binary: string; readonly wrapper: readonly string[] }
  | { readonly ready: false; readonly reason: string };

export const notRunStatus: number;
export const machineFiles: SmokeFiles;
export function installed(program: string): boolean;
export function electronPackageDir(): string | null;
export function findElectronBinary(options?: ElectronBinaryOptions): ElectronBinary;
export function electronDisplay(options?: ElectronDisplayOptions): ElectronDisplay;
export function electronSmokeReadiness(options?: ElectronBinaryOptions & ElectronDisplayOptions): ElectronSmokeReadiness;
export function notRunLines(reason: string): string[];
