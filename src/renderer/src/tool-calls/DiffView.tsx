/** A unified diff with added and removed lines marked, for file writes. */
export function DiffView({ diff, label }: { diff: string; label: string }) {
  const lines = diff.split('\n').filter((line) => !line.startsWith('Index: ') && !/^=+$/.test(line));
  return (
    <pre className="diff" aria-label={label}>
      {lines.map((line, index) => {
        const kind =
          line.startsWith('+++') || line.startsWith('---')
            ? 'file'
            : line.startsWith('+')
              ? 'add'
              : line.startsWith('-')
                ? 'remove'
                : line.startsWith('@@')
                  ? 'hunk'
                  : 'same';
        return (
          <span key={index} className={`diff-${kind}`}>
            {line}
            {'\n'}
          </span>
        );
      })}
    </pre>
  );
}
