/*
 * The model setup's notes on servers with no model list: why those that are running were slow or failing, and how to
 * start the others.
 */

import type { DiscoveryResult } from '../../../shared/ipc/contract';
import { unansweredServers } from './model-setup';

/** A step's text, with `code` shown as code. */
function Step({ text }: { text: string }) {
  return (
    <li>{text.split('`').map((part, index) => (index % 2 === 1 ? <code key={index}>{part}</code> : <span key={index}>{part}</span>))}</li>
  );
}

/**
 * The servers that gave no model list: the ones that are there but slow or failing, with why (they are running, so no
 * install guide), then how to install and start each one that is not running.
 */
export function SetupGuides({ result }: { result: DiscoveryResult }) {
  const { guides, troubled } = unansweredServers(result);
  return (
    <>
      {troubled.length > 0 && (
        <ul className="server-troubles" aria-label="Servers that did not answer in time">
          {troubled.map((missed) => (
            <li key={missed.baseUrl} className="small">
              <strong>{missed.name}</strong> <code>{missed.baseUrl}</code>: {missed.message}
              {missed.reason === 'slow' && ' “Check again” waits longer.'}
            </li>
          ))}
        </ul>
      )}
      {guides.length > 0 && (
        <>
          <p className="small">
            {result.found.length === 0 && troubled.length === 0
              ? 'No server answered on this computer. To start one:'
              : 'Not running here:'}
          </p>
          <ul className="server-guides">
            {guides.map((guide) => (
              <li key={guide.name} aria-label={`How to start ${guide.name}`}>
                <strong>{guide.name}</strong> <span className="muted small">(port {guide.port})</span>
                <ol className="small">
                  {guide.steps.map((step) => (
                    <Step key={step} text={step} />
                  ))}
                </ol>
              </li>
            ))}
          </ul>
        </>
      )}
    </>
  );
}
