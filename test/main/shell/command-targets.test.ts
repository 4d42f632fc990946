import { describe, expect, it } from 'vitest';
import { TargetJudge, type CommandPlace } from '../../../src/main/shell/command-targets';

// Paths under a folder that is not on this machine, so nothing on the disk (no link, no real path) plays a part.
const place = (caseIgnored: boolean): CommandPlace => ({
  workspace: '/no-such-home/me/Project',
  sandbox: null,
  protectedFolders: ['/no-such-home/me/Project/.workbench-data'],
  home: '/no-such-home/me',
  user: 'me',
  caseIgnored,
});
const kindOf = (caseIgnored: boolean, path: string) => new TargetJudge(place(caseIgnored)).judge({ text: path, glob: false }, '/').kind;

describe("where a command's write lands, by the file system's case rules", () => {
  it("takes the workspace written in another case as the workspace where case is ignored, and protects its .git and the app's data", () => {
    expect(kindOf(true, '/no-such-home/me/PROJECT/src/a.ts')).toBe('inside');
    expect(kindOf(true, '/no-such-home/me/project/.GIT/config')).toBe('protected');
    expect(kindOf(true, '/No-Such-Home/me/Project/.Workbench-Data/db.sqlite')).toBe('protected');
  });

  it('takes a path differing in case as another folder, outside, where case is kept', () => {
    expect(kindOf(false, '/no-such-home/me/PROJECT/src/a.ts')).toBe('outside');
    expect(kindOf(false, '/no-such-home/me/Project/src/a.ts')).toBe('inside');
    expect(kindOf(false, '/no-such-home/me/Project/.workbench-data/db.sqlite')).toBe('protected');
  });
});
