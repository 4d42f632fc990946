/*
 * The problems found in the files a call changed, under its card: the counts, the problems (errors first), what went
 * wrong with a server, and the servers waiting for the person to let them run in this folder.
 */

import { checkedLanguageNames, type ProblemReport } from '../../../shared/diagnostics';
import { useAppState, type AppStore } from '../store';

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** What the checks after a call found, as the model was told, with a way to let a waiting server run. */
export function CallProblems({ store, sessionId, report }: { store: AppStore; sessionId: string; report: ProblemReport }) {
  const sandboxed = useAppState(store, (state) => state.info?.sandbox.available === true);
  const total = report.errors + report.warnings;
  const shown = report.problems.filter((problem) => problem.severity === 'error' || problem.severity === 'warning');
  return (
    <div className="call-problems small" role="group" aria-label="Problems after this change">
      {report.checked.length > 0 && (
        <p className={report.errors > 0 ? 'problems-head has-errors' : 'problems-head'}>
          {total === 0
            ? `No problems in ${report.checked.map((file) => file.path).join(', ')}`
            : `${plural(report.errors, 'error')}, ${plural(report.warnings, 'warning')} in ${report.checked
                .filter((file) => file.errors + file.warnings > 0)
                .map((file) => file.path)
                .join(', ')}`}
        </p>
      )}
      {shown.length > 0 && (
        <ul className="problems" aria-label="Problems">
          {shown.map((problem, index) => (
            <li key={index} data-severity={problem.severity}>
              <span className="problem-place">
                {problem.path}:{problem.line}:{problem.column}
              </span>{' '}
              <span className="problem-severity">{problem.severity}</span> {problem.message}
              {problem.code && <span className="muted"> ({[problem.source, problem.code].filter(Boolean).join(' ')})</span>}
            </li>
          ))}
        </ul>
      )}
      {report.notes.map((note, index) => (
        <p key={index} className="muted">
          {note}
        </p>
      ))}
      {report.unallowed.map((language) => {
        const { language: name, server } = checkedLanguageNames[language];
        return (
          <p key={language} className="problems-allow">
            {name} files are checked by {server}, a program of this folder&apos;s or your PATH&apos;s that runs in it
            {sandboxed ? ', read-only and without network in the sandbox' : ' with your rights: there is no sandbox here'}.{' '}
            <button
              type="button"
              onClick={() =>
                void store.attempt(async () =>
                  store.setSettings(await store.call('diagnostics:allow', { sessionId, language, allow: true })),
                )
              }
            >
              Allow {server} in this folder
            </button>
          </p>
        );
      })}
    </div>
  );
}
