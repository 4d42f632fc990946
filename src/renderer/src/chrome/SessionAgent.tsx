/*
 * The agent button in the session header: the profile the session runs with, and the tool groups switched on or off
 * for it alone.
 */

import { useEffect, useRef, useState } from 'react';
import type { SessionProfileView } from '../../../shared/ipc/profile-channels';
import type { Profile } from '../../../shared/profiles';
import { builtInToolGroups, toolGroupLabel, type ToolGroup } from '../../../shared/tool-groups';
import { errorMessage } from '../client';
import { useAppState, type AppStore } from '../store';
import { Popover } from './Popover';

/**
 * The session's agent, in its header: which profile it runs with (and at which version), and the tool groups switched
 * on or off for this session alone. A change applies from the next turn; while one runs, it is refused.
 */
export function SessionAgent({ store, sessionId }: { store: AppStore; sessionId: string }) {
  const workspacePath = useAppState(store, (state) => state.sessions.find((session) => session.id === sessionId)?.workspacePath ?? null);
  // The object itself is selected: a new array of its keys at every read would never settle.
  const servers = useAppState(store, (state) => state.settings?.mcpServers);
  const mcpServers = Object.keys(servers ?? {});
  const [view, setView] = useState<SessionProfileView | null>(null);
  const [profiles, setProfiles] = useState<Profile[]>([]);
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    let live = true;
    store.call('session:profile', { sessionId }).then(
      (found) => live && setView(found),
      () => undefined,
    );
    if (open)
      store.call('profile:list', { workspacePath }).then(
        (found) => live && setProfiles(found),
        () => undefined,
      );
    return () => {
      live = false;
    };
  }, [store, sessionId, workspacePath, open]);

  const choose = (profileId: string, toolGroupsOff?: ToolGroup[] | null): void => {
    store.call('session:setProfile', { sessionId, profileId, ...(toolGroupsOff === undefined ? {} : { toolGroupsOff }) }).then(
      (next) => {
        setView(next);
        setError(null);
        // The profile may have brought a model or an autonomy: the session row changed.
        void store
          .call('session:list', {})
          .then((sessions) => sessions.forEach((session) => session.id === sessionId && store.upsertSession(session)));
      },
      (failure: unknown) => {
        setError(errorMessage(failure));
        void store.call('session:profile', { sessionId }).then(setView, () => undefined);
      },
    );
  };
  if (!view) return null;
  const groups: ToolGroup[] = [...builtInToolGroups, ...mcpServers.map((name): ToolGroup => `mcp:${name}`)];
  const toggle = (group: ToolGroup, on: boolean): void => {
    const next = on ? view.toolGroupsOff.filter((other) => other !== group) : [...view.toolGroupsOff, group];
    // Shown at once; the answer (or a refusal, which puts the view back) follows.
    setView({ ...view, toolGroupsOff: next, ownToolGroups: true });
    choose(view.profileId, next);
  };

  return (
    <div className="session-agent">
      <button
        ref={button}
        type="button"
        aria-expanded={open}
        aria-haspopup="dialog"
        title="The agent profile and tools of this session"
        onClick={() => setOpen(!open)}
      >
        Agent: {view.name}
        {view.toolGroupsOff.length > 0 ? ` (${view.toolGroupsOff.length} off)` : ''}
      </button>
      {open && (
        <Popover
          anchor={button}
          onClose={() => setOpen(false)}
          className="session-agent-popover"
          role="dialog"
          label="Agent of this session"
        >
          <label className="small">
            Profile
            <select aria-label="Profile" value={view.profileId} onChange={(event) => choose(event.target.value)}>
              {profiles.map((profile) => (
                <option key={profile.id} value={profile.id}>
                  {profile.name}
                  {profile.scope === 'builtin' ? '' : ` (v${profile.version})`}
                </option>
              ))}
            </select>
          </label>
          <fieldset className="small">
            <legend>Tools in this session</legend>
            {groups.map((group) => (
              <label key={group} className="row">
                <input
                  type="checkbox"
                  checked={!view.toolGroupsOff.includes(group)}
                  onChange={(event) => toggle(group, event.target.checked)}
                />
                {toolGroupLabel(group)}
              </label>
            ))}
          </fieldset>
          {view.ownToolGroups && (
            <button type="button" className="link small" onClick={() => choose(view.profileId, null)}>
              Use the profile’s tools
            </button>
          )}
          {error && (
            <p role="alert" className="message-error small">
              {error}
            </p>
          )}
          <button type="button" className="link small" onClick={() => setOpen(false)}>
            Close
          </button>
        </Popover>
      )}
    </div>
  );
}
