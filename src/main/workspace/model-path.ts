/*
 * A path as a model writes it on Windows (`C:\Users\me\proj\src\a.ts`, `C:/Users/...`, `src\a.ts`, Git bash's
 * `/c/Users/...`), put in the one form the path checks read: `/` separators and a drive letter. Elsewhere the text is
 * left as it is.
 */

/**
 * The text of a path the model gave, in the form the workspace checks read. On Windows `\` is a separator (it cannot be
 * part of a name there), so it becomes `/`; Git bash's and Cygwin's drive forms (`/c/...`, `/cygdrive/c/...`) and the
 * long-path prefix (`\\?\C:\...`) become `C:/...`. Everything else is left for the checks to judge: a network share
 * stays `//server/...`, a drive-relative `C:x` stays as written. On other systems `\` is a character of a name, which the
 * checks refuse, so nothing changes there.
 */
export function modelPathText(requested: string, platform: 'win32' | 'posix'): string {
  if (platform !== 'win32') return requested;
  const slashed = requested.replace(/\\/g, '/');
  const longPath = /^\/\/\?\/([A-Za-z]:(?:\/|$))/.exec(slashed);
  if (longPath) return `${(longPath[1] as string).toUpperCase()}${slashed.slice(longPath[0].length)}`;
  // `/c` or `/c/...` (MSYS, Git bash) and `/cygdrive/c/...`: one letter alone as the first name is a drive there.
  const drive = /^(?:\/cygdrive)?\/([A-Za-z])(?=\/|$)/.exec(slashed);
  if (drive) return `${(drive[1] as string).toUpperCase()}:${slashed.slice(drive[0].length) || '/'}`;
  return slashed;
}

/**
 * A path the model gave, as `modelPathText` puts it and, when it is absolute and lies in the workspace folder `root`,
 * made relative to it (`.` for the folder itself); any other text is returned for the caller's checks to judge. For
 * tools that hand paths to another program (git) rather than open them through the workspace checks.
 */
export function workspaceRelativeText(requested: string, root: string, platform: 'win32' | 'posix'): string {
  const text = modelPathText(requested, platform);
  const absolute = text.startsWith('/') || (platform === 'win32' && /^[A-Za-z]:\//.test(text));
  if (!absolute) return text;
  const base = (platform === 'win32' ? root.replace(/\\/g, '/') : root).replace(/\/+$/, '');
  const fold = (value: string): string => (platform === 'win32' ? value.toLowerCase() : value);
  if (fold(text.replace(/\/+$/, '')) === fold(base)) return '.';
  return fold(text).startsWith(fold(`${base}/`)) ? text.slice(base.length + 1) : text;
}
