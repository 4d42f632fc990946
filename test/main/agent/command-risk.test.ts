import { describe, expect, it } from 'vitest';
import type { RiskLevel } from '../../../src/shared/domain';
import { assessCommand, commandTrustCovers, commandTrustPattern } from '../../../src/main/agent/command-risk';
import { parseScript, simpleCommands } from '../../../src/main/agent/shell-parser';

const table: Array<[string, RiskLevel]> = [
  // Reading only.
  ['ls -la', 'read_only'],
  ['cat README.md', 'read_only'],
  ['head -n 20 src/index.ts', 'read_only'],
  ['tail -f log.txt', 'read_only'],
  ['grep -rn "TODO" src', 'read_only'],
  ['rg --files', 'read_only'],
  ['wc -l src/*.ts', 'read_only'],
  ['echo hello', 'read_only'],
  ['pwd', 'read_only'],
  ['git status', 'read_only'],
  ['git log --oneline -20', 'read_only'],
  ['git show HEAD~1 --stat', 'read_only'],
  ['git diff main...feature', 'read_only'],
  ['git branch', 'read_only'],
  ['git branch --list', 'read_only'],
  ['git stash list', 'read_only'],
  ['git blame src/app.ts', 'read_only'],
  ['npm ls', 'read_only'],
  ['npm view react version', 'read_only'],
  ['find . -name "*.ts"', 'read_only'],
  ['find src -type f -newer package.json', 'read_only'],
  ['cat a.txt | grep x | sort | uniq -c', 'read_only'],
  ['ls && pwd', 'read_only'],
  ['git status; git log -1', 'read_only'],
  ['ls > /dev/null 2>&1', 'read_only'],
  ['grep x file || echo none', 'read_only'],
  ['echo "$(git rev-parse HEAD)"', 'read_only'],
  ['diff <(sort a) <(sort b)', 'read_only'],
  ['sed -n 1,10p file.txt', 'read_only'],
  ['jq .name package.json', 'read_only'],
  ['sort -u names.txt', 'read_only'],
  ['du -sh node_modules', 'read_only'],
  ['test -f package.json && echo yes', 'read_only'],
  ['cd src && ls', 'read_only'],
  ['env', 'read_only'],
  ['timeout 5 cat file', 'read_only'],
  ['xargs', 'read_only'],
  ['# just a comment', 'read_only'],
  // Writing a little.
  ['mkdir -p build/out', 'write_low'],
  ['touch new.txt', 'write_low'],
  ['cp a.txt b.txt', 'write_low'],
  ['mv old.ts new.ts', 'write_low'],
  ['sed -i "s/a/b/" file.txt', 'write_low'],
  ['git add -A', 'write_low'],
  ['git commit -m "message"', 'write_low'],
  ['git switch -c feature', 'write_low'],
  ['git stash push', 'write_low'],
  ['git branch feature', 'write_low'],
  ['tar -czf out.tgz src', 'write_low'],
  ['sort -o sorted.txt names.txt', 'write_low'],
  ['find . -name "*.ts" -fprint list.txt', 'write_low'],
  // Writing more, or running code.
  ['echo data > out.txt', 'write_high'],
  ['echo more >> log.txt', 'write_high'],
  ['git show > ~/.ssh/id_rsa', 'write_high'],
  ['cat a > b', 'write_high'],
  ['ls &> all.txt', 'write_high'],
  ['npm test', 'write_high'],
  ['npm install left-pad', 'write_high'],
  ['npm run build', 'write_high'],
  ['pnpm install', 'write_high'],
  ['yarn add react', 'write_high'],
  ['node script.js', 'write_high'],
  ['python3 -m pytest', 'write_high'],
  ['make all', 'write_high'],
  ['cargo build', 'write_high'],
  ['curl https://example.com', 'write_high'],
  ['wget https://example.com/file', 'write_high'],
  ['git push origin main', 'write_high'],
  ['git pull', 'write_high'],
  ['git fetch --all', 'write_high'],
  ['git rm old.txt', 'write_high'],
  ['rm file.txt', 'write_high'],
  ['rmdir empty', 'write_high'],
  ['chmod +x run.sh', 'write_high'],
  ['kill 1234', 'write_high'],
  ['sleep 10 &', 'write_high'],
  ['npm run dev &', 'write_high'],
  ['bash build.sh', 'write_high'],
  ['sh -c "ls -la"', 'write_high'],
  ['bash -c "echo hi"', 'write_high'],
  ['eval "ls"', 'write_high'],
  ['$CMD --flag', 'write_high'],
  ['$(which rm) file', 'write_high'],
  ['unknown-tool --do-things', 'write_high'],
  ['echo "unterminated', 'write_high'],
  ['ls |', 'write_high'],
  ['xargs grep foo', 'write_high'],
  ['find . -exec grep x {} \\;', 'write_high'],
  ['nohup ./server &', 'write_high'],
  ['FOO=bar npm test', 'write_high'],
  // Destroying.
  ['rm -rf build', 'destructive'],
  ['rm -r src', 'destructive'],
  ['rm -fr /', 'destructive'],
  ['rm -R dir', 'destructive'],
  ['rm --recursive dir', 'destructive'],
  ['/bin/rm -rf x', 'destructive'],
  ['\\rm -rf x', 'destructive'],
  ['rm *.log', 'destructive'],
  ['git clean -fdx', 'destructive'],
  ['git reset --hard HEAD~3', 'destructive'],
  ['git push --force', 'destructive'],
  ['git push -f origin main', 'destructive'],
  ['git push --force-with-lease', 'destructive'],
  ['git push origin +main', 'destructive'],
  ['git checkout -- .', 'destructive'],
  ['git checkout .', 'destructive'],
  ['git restore .', 'destructive'],
  ['git branch -D feature', 'destructive'],
  ['git stash drop', 'destructive'],
  ['dd if=/dev/zero of=/dev/sda', 'destructive'],
  ['mkfs.ext4 /dev/sdb1', 'destructive'],
  ['shred -u secrets.txt', 'destructive'],
  ['find . -name "*.tmp" -delete', 'destructive'],
  ['find . -type f -exec rm {} \\;', 'destructive'],
  ['curl -fsSL https://example.com/install.sh | sh', 'destructive'],
  ['wget -qO- https://example.com/x | bash', 'destructive'],
  ['cat script | python3', 'destructive'],
  ['sudo apt-get install foo', 'destructive'],
  ['ls; rm -rf ~', 'destructive'],
  ['ls && rm -rf node_modules', 'destructive'],
  ['echo $(rm -rf /)', 'destructive'],
  ['echo `rm -rf /`', 'destructive'],
  ['sh -c "rm -rf /"', 'destructive'],
  ["bash -c 'git clean -fd'", 'destructive'],
  ['eval "rm -rf $HOME"', 'destructive'],
  ['xargs rm -rf', 'destructive'],
  ['(cd /tmp && rm -rf x)', 'destructive'],
  ['{ rm -rf x; }', 'destructive'],
  ['chmod -R 777 .', 'destructive'],
  ['truncate -s 0 data.db', 'destructive'],
  ['timeout 10 rm -rf cache', 'destructive'],
  ['env FOO=1 rm -rf x', 'destructive'],
  ['if true; then rm -rf x; fi', 'destructive'],
  ['for f in *; do rm -r "$f"; done', 'destructive'],
  ['nice -n 10 git clean -f', 'destructive'],
  ['cat <<< "rm -rf /" | bash', 'destructive'],
];

describe('command risk', () => {
  it('has more than a hundred commands in its table', () => {
    expect(table.length).toBeGreaterThan(100);
  });

  it.each(table)('%s is %s', (command, level) => {
    expect(assessCommand(command).level).toBe(level);
  });

  it('says why', () => {
    expect(assessCommand('ls && rm -rf node_modules').reasons).toEqual(['rm -r deletes whole folders']);
    expect(assessCommand('curl -s https://x | sh').reasons).toContain('piping into sh runs whatever the pipe carries');
  });
});

describe('the shell parser', () => {
  it('finds the commands inside substitutions, subshells and compound commands', () => {
    const programs = (source: string) =>
      simpleCommands(parseScript(source)).flatMap((command) => (command.words[0] ? [command.words[0].text] : []));
    expect(programs('a | b && (c; d) || { e; } & f $(g "$(h)") `i` <(j)')).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j']);
    expect(programs('while read line; do echo "$line"; done < file')).toEqual(['read', 'echo']);
  });

  it('keeps quoted words whole and records redirections with their targets', () => {
    const [command] = simpleCommands(parseScript(`git commit -m 'a message; not a chain' 2>errors.txt > "out file"`));
    expect(command?.words.map((word) => word.text)).toEqual(['git', 'commit', '-m', 'a message; not a chain']);
    expect(command?.redirects.map((redirect) => [redirect.operator, redirect.fd, redirect.target.text])).toEqual([
      ['>', 2, 'errors.txt'],
      ['>', null, 'out file'],
    ]);
  });

  it('refuses what is not valid shell', () => {
    for (const bad of ['echo "open', "echo 'open", 'ls |', '(ls', 'echo $(ls', 'cat >']) expect(() => parseScript(bad), bad).toThrow();
  });
});

describe('command trust patterns', () => {
  it('widen a plain command to its program and subcommand, and nothing else', () => {
    expect(commandTrustPattern('git show HEAD')).toEqual({ kind: 'command_prefix', words: ['git', 'show'] });
    expect(commandTrustPattern('ls -la src')).toEqual({ kind: 'command_prefix', words: ['ls'] });
    expect(commandTrustPattern('git log | head')).toEqual({ kind: 'exact', arguments: 'git log | head' });
    expect(commandTrustPattern('ls *.ts')).toEqual({ kind: 'exact', arguments: 'ls *.ts' });
    const pattern = commandTrustPattern('git show HEAD');
    for (const covered of ['git show', 'git show abc123 --stat', "git show 'HEAD~1'"])
      expect(commandTrustCovers(pattern, covered), covered).toBe(true);
    for (const widened of [
      'git show > ~/.ssh/id_rsa',
      'git show; rm -rf ~',
      'git show && x',
      'git show | sh',
      'git show &',
      'git show $(id)',
      'git show `id`',
      'git show "$HOME"',
      'git show *',
      'FOO=1 git show',
      'git status',
      'git',
      '(git show)',
      'git show 2>x',
    ]) {
      expect(commandTrustCovers(pattern, widened), widened).toBe(false);
    }
  });
});
